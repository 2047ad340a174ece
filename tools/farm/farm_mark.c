/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_mark.c - the staged stop's ledger step after an SFC death: the dead place's watermark from the readouts to its nodes. */
#include "farm_mark.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ebf_pb.h"
#include "farm_ask.h"
#include "farm_collect.h"
#include "farm_launch.h"
#include "ledger_failover.h"
#include "ledger_replay.h"

/* The highest release.low.<place> the answering readouts report (0 for
 * one that declared the place dead, fo.dead_from.<place>, and reports no
 * watermark: a zero may be left out); UINT64_MAX when no readout reports
 * either (failover off). */
static uint64_t place_mark(const struct farm_state *st, int place)
{
    char low[64], dead[64];
    uint64_t x = UINT64_MAX;

    snprintf(low, sizeof(low), "%s.%d", LEDGER_RO_LOW, place);
    snprintf(dead, sizeof(dead), "%s.%d", LEDGER_RO_DEAD_FROM, place);
    for (unsigned i = 0; i < st->n; i++) {
        if (st->proc[i].role != FARM_READOUT || !farm_launch_answers(st, &st->proc[i]))
            continue;
        uint64_t v = farm_counter(&st->proc[i], low, UINT64_MAX, NULL);
        if (v == UINT64_MAX && farm_counter(&st->proc[i], dead, UINT64_MAX, NULL) != UINT64_MAX)
            v = 0;
        if (v != UINT64_MAX && (x == UINT64_MAX || v > x))
            x = v;
    }
    return x;
}

/* Give the answering nodes of place the watermark x of the run: by a
 * configure once they stopped (cmd EBF_C_CONFIGURE, "RUN:X"), or by the
 * action while the run goes on (EBF_C_ACT, "X"). */
static unsigned mark_place(const struct farm_state *st, const int *place, int p, uint64_t x,
                           enum ebf_cmd cmd)
{
    struct ctl_param prm = {.key = "ledger_mark"};
    unsigned n = 0;
    char err[512];

    if (cmd == EBF_C_ACT)
        snprintf(prm.value, sizeof(prm.value), "%" PRIu64, x);
    else
        snprintf(prm.value, sizeof(prm.value), "%" PRIu32 ":%" PRIu64, st->run_number, x);
    for (unsigned i = 0; i < st->n; i++) {
        if (st->proc[i].role != FARM_NODE || place[i] != p ||
            !farm_launch_answers(st, &st->proc[i]))
            continue;
        if (farm_order(&st->proc[i], cmd, 0, &prm, 1, err, sizeof(err)) == 0)
            n++;
        else
            fprintf(stderr, "ebfarm: the ledger's watermark was not given to %s: %s\n",
                    st->proc[i].name, err);
    }
    return n;
}

unsigned farm_mark_nodes(const struct farm_state *st, const int *places)
{
    int place[FARM_MAX_PROCS];
    unsigned n = 0, gone = 0;

    for (unsigned i = 0; i < st->n; i++)
        gone += st->proc[i].role == FARM_SFC && !farm_launch_answers(st, &st->proc[i]);
    if (!gone)
        return 0;               /* every SFC answers: nothing to mark, nothing loaded */
    if (places)
        memcpy(place, places, st->n * sizeof(place[0]));
    else
        farm_state_places(st, place);
    for (unsigned i = 0; i < st->n; i++) {
        if (st->proc[i].role != FARM_SFC || place[i] < 0 ||
            farm_launch_answers(st, &st->proc[i]))
            continue;
        uint64_t x = place_mark(st, place[i]);
        if (x != UINT64_MAX)
            n += mark_place(st, place, place[i], x, EBF_C_CONFIGURE);
    }
    return n;
}

/* Node p's decisions outside its marks' records (accepted + rejected -
 * ledger.acks_after_release), from its status now; 0 when it does not
 * answer. */
static uint64_t decided_below(const struct farm_proc *p)
{
    char e[512];
    Ebfarm__Reply *r = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, FARM_REPLY_MS, e, sizeof(e));
    struct ebf_kv kv = {0};
    struct ebf_idset after;
    uint64_t n = 0;

    if (r && r->status && r->status->metrics && ebf_pb_snapshot_kv(r->status->metrics, &kv) == 0) {
        ledger_kv_idset(&kv, "ledger.acks_after_release", &after);
        n = ebf_kv_u64(&kv, "accepted", 0) + ebf_kv_u64(&kv, "rejected", 0);
        n = n > ledger_fo_count(&after) ? n - ledger_fo_count(&after) : 0;
    }
    ebf_kv_free(&kv);
    if (r)
        ebfarm__reply__free_unpacked(r, NULL);
    return n;
}

unsigned farm_mark_restart(const struct farm_state *st, const struct farm_proc *sfc,
                           uint64_t *below)
{
    int place[FARM_MAX_PROCS];
    unsigned n = 0;

    *below = 0;
    farm_state_places(st, place);
    for (unsigned i = 0; i < st->n; i++) {
        if (&st->proc[i] != sfc || place[i] < 0)
            continue;
        uint64_t x = place_mark(st, place[i]);
        n = x == UINT64_MAX ? 0 : mark_place(st, place, place[i], x, EBF_C_ACT);
        for (unsigned j = 0; n && j < st->n; j++)
            if (st->proc[j].role == FARM_NODE && place[j] == place[i] &&
                farm_launch_answers(st, &st->proc[j]))
                *below += decided_below(&st->proc[j]);
        return n;
    }
    return 0;
}

unsigned farm_mark_sfc_new(const struct farm_state *st, const struct farm_proc *sfc)
{
    int place[FARM_MAX_PROCS];
    struct ctl_param a = {.key = "sfc_new", .value = "1"};
    unsigned n = 0;
    char err[512];

    farm_state_places(st, place);
    int p = place[sfc - st->proc];
    for (unsigned i = 0; p >= 0 && i < st->n; i++) {
        if (st->proc[i].role != FARM_NODE || place[i] != p ||
            !farm_launch_answers(st, &st->proc[i]))
            continue;
        if (farm_order(&st->proc[i], EBF_C_ACT, 0, &a, 1, err, sizeof(err)) == 0)
            n++;
        else
            fprintf(stderr, "ebfarm: %s was not told of the new %s: %s\n", st->proc[i].name,
                    sfc->name, err);
    }
    return n;
}
