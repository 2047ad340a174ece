/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp_release.c - the loop's release step: every --release-ms, the watermark and one release frame (type 5) to each readout heard (docs/protocol.md 13.2). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_util.h"
#include "sfc_dp.h"
#include "sfc_dp_private.h"

/* Sends one release frame h to readout ro of the guard on the port it was
 * last heard on. 1 when the port took it. */
static int send_one(struct sfc_dp *dp, uint16_t ro, const struct ebf_release_hdr *h)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    size_t len = ebf_release_len(h->n_src);
    struct rte_mbuf *m = rte_pktmbuf_alloc(dp->c.hdr_pool);
    uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len)) : NULL;

    if (!p) {
        rte_pktmbuf_free(m);
        return 0;
    }
    memcpy(a.src_mac, dp->rx_mac, 6);
    memcpy(a.dst_mac, dp->guard.ro_mac[ro], 6);
    ebf_encap_write(p, &a, len);
    ebf_release_write(p + EBF_ETH_HLEN, h);
    if (rte_eth_tx_burst(dp->guard.ro_port[ro], 0, &m, 1) != 1) {
        rte_pktmbuf_free(m);
        return 0;
    }
    return 1;
}

/* A round's bookkeeping of the join and leave: the highest id heard (for
 * the margin), a JOIN's repetitions counted down, the counters that say
 * what is announced. */
static void heard(struct sfc_dp *dp)
{
    uint64_t top = 0;

    for (uint16_t s = 0; s < dp->c.n_sources && s < EBF_MAX_SOURCES; s++)
        top = dp->st.next_by_source[s] > top ? dp->st.next_by_source[s] : top;
    sfc_release_heard(&dp->rel, top);
    if (dp->rel.flags == EBF_RELF_JOIN && dp->rel.join_rounds && --dp->rel.join_rounds == 0)
        dp->rel.flags = 0;
}

int sfc_dp_leave(struct sfc_dp *dp, enum sfc_leave how, uint64_t at, char *err, size_t len)
{
    if (!dp->low) {
        snprintf(err, len, "failover is off (no --release-ms): the readouts route by e %% n "
                 "and cannot move this SFC's share");
        return -ENOTSUP;
    }
    if (dp->c.workers > 1 && dp->c.worker != 0) {
        snprintf(err, len, "only worker 0 announces joins and leaves");
        return -EINVAL;
    }
    uint64_t drained = dp->rel.flags == EBF_RELF_LEAVE ? dp->rel.at : 0;
    if (how == SFC_LEAVE && drained) {
        snprintf(err, len, "already drained from event %" PRIu64 " on", drained);
        return -EALREADY;
    }
    if (how == SFC_UNDRAIN && !drained) {
        snprintf(err, len, "not drained (undrain gives back the share of a drained SFC)");
        return -EALREADY;
    }
    if (!at)
        at = dp->rel.top + sfc_release_margin(dp->rel.per_round, dp->rel.period_ns);
    sfc_release_announce(&dp->rel, how == SFC_LEAVE ? EBF_RELF_LEAVE : EBF_RELF_JOIN, at);
    dp->st.release_leaves += how == SFC_LEAVE;
    dp->st.release_joins += how != SFC_LEAVE;
    return 0;
}

/*
 * Off (0 work) unless release_ms was set and this is the data plane that
 * talks to the readouts (one data plane, or worker 0). When a round is
 * due: low = min(lowest id held, each bound source's next id); a frame to
 * each readout the guard has heard on a port (as throttle frames), with
 * its sources' next sequence numbers.
 * One frame per readout per round; a refused frame is counted and the
 * next round's supersedes it.
 */
unsigned sfc_dp_release(struct sfc_dp *dp, uint64_t now)
{
    struct ebf_release_hdr h;

    if (!dp->low || (dp->c.workers > 1 && dp->c.worker != 0) ||
        !sfc_release_due(&dp->rel, tsc_to_ns(dp, now)))
        return 0;
    uint64_t low = sfc_release_low(&dp->guard, sfc_lowmark_low(dp->low), dp->st.next_by_source,
                                   dp->c.n_sources);
    heard(dp);
    for (uint16_t ro = 0; ro < dp->guard.n_ro; ro++) {
        if (dp->guard.ro_port[ro] == SFC_NO_PORT)
            continue;                   /* not heard yet: nothing of it held */
        sfc_release_make(&dp->rel, &dp->guard, ro, dp->c.n_sources, low, dp->rel.flags,
                         dp->rel.at, &h);
        if (send_one(dp, ro, &h))
            dp->st.release_frames++;
        else
            dp->st.release_tx_fail++;
    }
    return 1;
}
