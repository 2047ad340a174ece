/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_reason.c - names of the loopback drop reasons. */
#include "lb_reason.h"

static const char *const tx_names[] = {
#define LB_NAME(n, s) s,
    LB_FOREACH_TX_DROP(LB_NAME)
#undef LB_NAME
};

static const char *const rx_names[] = {
#define LB_NAME(n, s) s,
    LB_FOREACH_RX_DROP(LB_NAME)
#undef LB_NAME
};

static const char *const invalid_names[] = {
#define LB_NAME(n, s) s,
    LB_FOREACH_INVALID(LB_NAME)
#undef LB_NAME
};

const char *lb_invalid_name(unsigned r)
{
    return r < LB_INVALID_MAX ? invalid_names[r] : "unknown";
}

const char *lb_tx_drop_name(unsigned r)
{
    return r < LB_TX_DROP_MAX ? tx_names[r] : "unknown";
}

const char *lb_rx_drop_name(unsigned r)
{
    return r < LB_RX_DROP_MAX ? rx_names[r] : "unknown";
}

