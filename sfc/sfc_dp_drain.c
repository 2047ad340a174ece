/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp_drain.c - the SFC data plane's run and staged drain, as passes of sfc_dp_poll: quiet input, then acks, then what is left lost with its reason. */
#include "sfc_dp.h"

#include <inttypes.h>

#include <rte_cycles.h>
#include <rte_log.h>

#include "ebf_mix.h"
#include "sfc_dist.h"
#include "sfc_dp_private.h"

extern int sfc_logtype;          /* sfc_dp.c's */
#define SFC_LOG(level, ...) rte_log(RTE_LOG_##level, sfc_logtype, "sfc: " __VA_ARGS__)

/* Drop what is left at the end of a run, each event under its reason. */
static void drop_leftovers(struct sfc_dp *dp)
{
    static const enum sfc_lost by_state[] = {
        [SFC_EV_BUILDING] = SFC_LOST_STOPPED_BUILDING,
        [SFC_EV_READY] = SFC_LOST_STOPPED_NO_CREDIT,
        [SFC_EV_SENT] = SFC_LOST_STOPPED_UNACKED,
    };

    for (uint32_t s = 0; s < dp->c.capacity; s++) {
        struct sfc_event *e = sfc_evtab_event(dp->tab, s);
        if (e->state == SFC_EV_FREE)
            continue;
        dp->st.lost[by_state[e->state]]++;
        dp->st.lost_digest += ebf_mix64(e->event_id);
        ebf_idset_add(&dp->st.ledger_lost, e->event_id);
        sfc_evtab_drop(dp->tab, s);
    }
}

void sfc_dp_drain_begin(struct sfc_dp *dp)
{
    sfc_drain_begin(&dp->drain, rte_get_tsc_cycles(), dp->st.rx_frames + dp->ro_handed);
}

/* Drain stage 1: keep taking input until it has been quiet drain_quiet_ms
 * (on a shared readout port, worker w >= 1 first waits until worker 0 no
 * longer reads the port); then time out what is building (a replayed
 * event by the rule of sfc_dp_expire_head), stage 2. */
static unsigned drain_quiet(struct sfc_dp *dp)
{
    unsigned work = sfc_dp_poll(dp, 1);
    uint64_t now = rte_get_tsc_cycles(), dropped = 0, bytes;
    int quiet = sfc_drain_quiet(&dp->drain, now, dp->st.rx_frames + dp->ro_handed);
    struct sfc_dist *ro = dp->c.worker != 0 ? dp->c.ro_dist : NULL;

    if ((ro && !sfc_dist_fed(ro)) || !quiet)
        return work;
    if (ro) {                   /* what its table could not take: counted */
        unsigned k = sfc_dist_flush(ro, dp->c.worker, &bytes);
        dp->st.rx_frames += k;
        dp->st.rx_bytes += bytes;
        dp->st.drop[SFC_DROP_DIST_LEFT] += k;
    }
    uint64_t now_ns = 0;
    while (sfc_evtab_building_head(dp->tab) != SFC_NONE)
        dropped += sfc_dp_expire_head(dp, now, &now_ns, 0);
    dp->st.drop[SFC_DROP_PARTIAL_AT_TIMEOUT] += dropped;
    sfc_drain_acks(&dp->drain, now);
    return work + 1;
}

/* Drain stage 2: no input; dispatch and wait for every ack until the table
 * is empty or drain_timeout_ms has passed, then drop what is left. */
static unsigned drain_acks(struct sfc_dp *dp, int *done)
{
    struct sfc_evtab_counts k;
    unsigned work = sfc_dp_poll(dp, 0);

    sfc_evtab_counts(dp->tab, &k);
    if (sfc_drain_over(&dp->drain, rte_get_tsc_cycles(), k.building + k.ready + k.sent)) {
        drop_leftovers(dp);
        SFC_LOG(INFO, "drained: %" PRIu64 " events sent, %" PRIu64 " acked\n",
                dp->st.events_sent, dp->st.acks);
        *done = 1;
    }
    return work;
}

unsigned sfc_dp_drain_poll(struct sfc_dp *dp, int *done)
{
    *done = 0;
    switch (dp->drain.phase) {
    case SFC_DRAIN_RUNNING:
        return 0;
    case SFC_DRAIN_QUIET:
        return drain_quiet(dp);
    case SFC_DRAIN_ACKS:
        return drain_acks(dp, done);
    default:
        *done = 1;
        return 0;
    }
}

void sfc_dp_run(struct sfc_dp *dp, const volatile sig_atomic_t *stop)
{
    struct ebf_idle idle = dp->c.idle;
    int done = 0;

    while (!*stop)
        ebf_idle_note(&idle, sfc_dp_poll(dp, 1));
    sfc_dp_drain_begin(dp);
    while (!done)
        ebf_idle_note(&idle, sfc_dp_drain_poll(dp, &done));
}

int sfc_dp_intake_over(const struct sfc_dp *dp)
{
    return dp->drain.phase >= SFC_DRAIN_ACKS;
}
