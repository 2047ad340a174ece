/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_tx_throttle.c - the SFC's throttle frames to the readouts, from the header pool, sent at once. */
#include "sfc_tx.h"

#include <string.h>

#include <rte_ethdev.h>

void sfc_tx_throttle(struct sfc_tx *tx, const uint8_t *src_mac, struct ebf_throttle_hdr h,
                     const struct sfc_ro_dest *d, unsigned n, struct sfc_tx_throttled *out)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    int on = h.on;

    memset(out, 0, sizeof(*out));
    memcpy(a.src_mac, src_mac, 6);
    for (unsigned i = 0; i < n; i++) {
        struct rte_mbuf *m = rte_pktmbuf_alloc(tx->hdr_pool);
        uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_THROTTLE_LEN)
                       : NULL;
        if (!p) {
            rte_pktmbuf_free(m);
            out->fail++;
            continue;
        }
        memcpy(a.dst_mac, d[i].mac, 6);
        h.on = d[i].on;
        out->spared += on && !h.on;
        ebf_encap_write(p, &a, EBF_THROTTLE_LEN);
        ebf_throttle_write(p + EBF_ETH_HLEN, &h);
        if (rte_eth_tx_burst(d[i].port, 0, &m, 1) != 1) {
            rte_pktmbuf_free(m);
            out->fail++;
            continue;
        }
        out->frames++;
    }
}
