/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_guard.h - the SFC's receive guard: who may send fragments, in what order, whose CRCs are checked, and which readouts hear the throttle; no DPDK. */
#ifndef SFC_GUARD_H
#define SFC_GUARD_H

#include <stdint.h>
#include <string.h>

#include "ebf_crc.h"
#include "ebf_proto.h"
#include "sfc_stats.h"

#define SFC_MAX_READOUTS 16      /* readout MACs: --readout-mac, or learned for throttle frames */
/* A sequence number this far or farther from the one due is not a gap, a
 * reorder or a repeat: it is counted as a resynchronisation (seq.resync),
 * and the next number after it, if it comes next, re-bases the sequence. */
#define SFC_SEQ_WINDOW 65536u
#define SFC_NO_PORT UINT16_MAX   /* a readout not heard yet on any port */

/* The SFC's payload-CRC policy. The nodes check every piece end to end
 * whatever the SFC does, so a corrupted frame the SFC lets through is still
 * counted, by the node (and its ack's status), under its reason. */
enum sfc_verify {
    SFC_VERIFY_FULL = 0,         /* every fragment frame */
    SFC_VERIFY_SAMPLED,          /* the first and then every verify_every-th frame of each source */
    SFC_VERIFY_NONE,             /* none: headers only */
};

/* Sequence state of one source: the next number due and which of the 64
 * numbers below it arrived (bit i: next - 1 - i); the number that would
 * confirm a jump beyond the window (valid when jumped). */
struct sfc_seq_state {
    uint32_t next;
    uint64_t seen;
    uint32_t jump_next;
    uint8_t jumped;
    uint8_t started;             /* a frame heard: the window starts at the first one */
};

/* The readout MAC a source id is bound to: the first one heard for it. */
struct sfc_src_bind {
    uint8_t mac[6];
    uint8_t bound;
};

struct sfc_guard_conf {
    uint16_t n_readouts;         /* 0: fragments from any MAC, throttle whoever sent */
    const uint8_t (*readout_mac)[6];    /* the only sources of fragments */
    uint8_t verify;              /* enum sfc_verify */
    uint32_t verify_every;       /* SFC_VERIFY_SAMPLED: every Nth frame (0: 1) */
    uint16_t rx_port;            /* where throttle frames go with one readout port */
    uint8_t multi_rx;            /* several readout ports: each readout's is learned */
    const uint16_t *ro_port;     /* with multi_rx, NULL or readout_mac's ports in order
                                  * (a link per readout): known before it is heard, so
                                  * that a restarted SFC that hears nothing yet (the
                                  * readouts route around it) can announce its join */
};

/* One data plane's guard; one lcore only. Its counters are the sequence's
 * (struct sfc_seq_stats, in struct sfc_stats as seq): the caller hands
 * them in; every other outcome is returned. */
struct sfc_guard {
    uint8_t verify;
    uint8_t multi_rx;
    uint16_t n_cfg;              /* readouts configured (--readout-mac) */
    uint32_t verify_every;
    uint16_t n_ro, last_ro;      /* readouts known; the last one heard */
    uint16_t rx_port;
    uint8_t ro_mac[SFC_MAX_READOUTS][6];
    uint16_t ro_port[SFC_MAX_READOUTS];     /* where each was last heard (SFC_NO_PORT: not yet) */
    uint8_t cfg_mac[SFC_MAX_READOUTS][6];
    uint32_t verify_left[EBF_MAX_SOURCES];  /* frames of each source until its next CRC check */
    struct sfc_seq_state seq[EBF_MAX_SOURCES];
    struct sfc_src_bind bind[EBF_MAX_SOURCES];
};

/* One readout to send a throttle frame to, and what to tell it. */
struct sfc_ro_dest {
    uint8_t mac[6];
    uint16_t port;
    uint8_t on;
};

/* A fresh guard: nothing bound, every sequence at 0, the configured
 * readouts known (throttle frames go to these only). */
void sfc_guard_init(struct sfc_guard *g, const struct sfc_guard_conf *c);

/* What the SFC's readout port is, for sfc_guard_judge. */
struct sfc_judge_conf {
    uint16_t n_sources;          /* --sources */
    uint16_t udp_port;
    uint16_t mtu;
    uint8_t check_crc;           /* --verify full */
    uint8_t mac[6];              /* the readout port's MAC */
};

/* One frame judged by rules 2 to 8 of docs/protocol.md, section 4.3. */
struct sfc_verdict {
    enum ebf_reason reject;      /* EBF_R_OK unless the parser refused it: rx.reject.<reason> */
    enum sfc_drop drop;          /* SFC_DROP_MAX unless dropped: rx.drop.<reason> */
    uint8_t rule;                /* the rule of 4.3 that refused it (2..8), 0: passed */
};

/*
 * Rules 2 to 8 of the SFC's receive order (docs/protocol.md, 4.3) on the
 * len bytes of one frame at p, as the SFC's intake applies them: parse,
 * wrong type, fragment header, CRC, oversize, unicast, ours. The source
 * binding (rule 9) and the event table's rules need the run's state: not
 * here. DPDK-free: the test vectors and `ebfarm conform` judge with it.
 * l and h are filled as far as parsing got.
 */
struct sfc_verdict sfc_guard_judge(const struct sfc_judge_conf *c, const uint8_t *p, size_t len,
                                   struct ebf_l2l3 *l, struct ebf_frag_hdr *h);

/*
 * Is a fragment frame of frame_len bytes (l: its parsed headers) with a
 * piece of piece_len bytes too large for mtu? Its bytes after the Ethernet
 * header (and VLAN tag: the frame starts at l->dst_mac), IP options
 * included, past mtu, or a piece that an event frame at mtu could not
 * carry (piece_len > mtu - 88: the event and fragment headers):
 * docs/protocol.md, "Size limits".
 */
static inline int sfc_guard_oversize(uint16_t mtu, const struct ebf_l2l3 *l, uint32_t frame_len,
                                     uint32_t piece_len)
{
    const uint8_t *f = l->dst_mac;
    uint32_t l2 = EBF_ETH_HLEN + (f[12] == 0x81 && f[13] == 0x00 ? 4u : 0u);

    return frame_len - l2 > mtu || piece_len + EBF_EVENT_HLEN + EBF_FRAG_HLEN > mtu;
}

/* A fragment frame of source with sequence number seq was received: count
 * it in st as a gap (the numbers it skipped), a reorder (a skipped number
 * that came later), a repeat (dup: seen, or too old to tell) or a
 * resynchronisation (beyond SFC_SEQ_WINDOW; the number after it, if it
 * comes next, re-bases the sequence). In order: nothing counted. A
 * source's first frame: a number n below SFC_SEQ_WINDOW counts n as gap
 * (the window starts at 0); any other starts the window at it, nothing
 * counted (first numbers 0xFFFFFFFE, 0xFFFFFFFF, 0: gap 0, reorder 0). */
void sfc_guard_seq(struct sfc_guard *g, struct sfc_seq_stats *st, uint16_t source, uint32_t seq);

/* May a fragment of source from mac be taken? SFC_DROP_MAX when it may,
 * else the reason to drop it: foreign_source (not a configured readout),
 * source_spoofed (the source is bound to another MAC). The first MAC
 * heard for a source is bound to it for the run. */
enum sfc_drop sfc_guard_source(struct sfc_guard *g, uint16_t source, const uint8_t *mac);

/* Remember a readout MAC (up to SFC_MAX_READOUTS); it becomes the last heard. */
void sfc_guard_readout_add(struct sfc_guard *g, const uint8_t *mac);

/* With several readout ports: the readout mac was heard on port, where its
 * throttle frames go. */
void sfc_guard_readout_port(struct sfc_guard *g, const uint8_t *mac, uint16_t port);

/* Whether readout i was heard: a source among the first n_sources is bound
 * to its MAC (a port known in advance is not hearing it). */
int sfc_guard_heard(const struct sfc_guard *g, uint16_t i, uint16_t n_sources);

/*
 * The readouts a throttle frame goes to (those heard on a port), at most
 * SFC_MAX_READOUTS into out; returns how many. Each is told on, except
 * while on a readout behind the one furthest on (by next_by_source, 1 +
 * the highest event id of each of n_sources sources, through the sources
 * bound to its MAC): its frames complete events the table holds, so it is
 * let go ("off") until it catches up.
 */
unsigned sfc_guard_throttle_to(const struct sfc_guard *g, int on, const uint64_t *next_by_source,
                               uint16_t n_sources, struct sfc_ro_dest *out);

/* Whether this frame of source is one whose CRC is checked (--verify):
 * every frame, the first and then every verify_every-th of each source, or
 * none. */
static inline int sfc_guard_verify_due(struct sfc_guard *g, uint16_t source)
{
    if (g->verify != SFC_VERIFY_SAMPLED)
        return g->verify == SFC_VERIFY_FULL;
    if (g->verify_left[source] != 0) {
        g->verify_left[source]--;
        return 0;
    }
    g->verify_left[source] = g->verify_every - 1;
    return 1;
}

/* Prefetch what the verify will read of a frame of len bytes at p, a few
 * ahead in a burst: with --verify full every line its CRC reads
 * (ebf_crc_prefetch: the l3fwd shape applied to the payload, so that the
 * CRC of one frame overlaps the loads of the next); otherwise, no frame
 * being sure to be checked, only its headers' line. */
static inline void sfc_guard_prefetch(const struct sfc_guard *g, const void *p, uint16_t len)
{
    if (g->verify == SFC_VERIFY_FULL)
        ebf_crc_prefetch(p, len);
    else
        __builtin_prefetch(p, 0, 3);
}

/* A readout frame came from mac: remember it for throttle frames, unless
 * the readouts are configured (then throttle frames go to those only). */
static inline void sfc_guard_readout_note(struct sfc_guard *g, const uint8_t *mac)
{
    if (g->n_cfg || (g->n_ro && memcmp(g->ro_mac[g->last_ro], mac, 6) == 0))
        return;
    sfc_guard_readout_add(g, mac);
}

#endif /* SFC_GUARD_H */
