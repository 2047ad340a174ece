/* SPDX-License-Identifier: BSD-3-Clause */
/* node_decide.c - the emulated trigger's decision: a draw from the event id against the accept fraction. */
#include "node_decide.h"

#include "ebf_mix.h"

int node_decide(uint64_t event_id, uint64_t seed, double accept)
{
    uint64_t r = ebf_mix64(event_id ^ ebf_mix64(seed)) % 1000000;
    return (double)r < accept * 1e6;
}
