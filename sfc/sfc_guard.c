/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_guard.c - the SFC's receive guard: sequence windows, source binding, the readouts and their ports. */
#include "sfc_guard.h"

void sfc_guard_init(struct sfc_guard *g, const struct sfc_guard_conf *c)
{
    memset(g, 0, sizeof(*g));
    g->verify = c->verify;
    g->verify_every = c->verify_every ? c->verify_every : 1;
    g->rx_port = c->rx_port;
    g->multi_rx = c->multi_rx;
    g->n_cfg = c->n_readouts < SFC_MAX_READOUTS ? c->n_readouts : SFC_MAX_READOUTS;
    memcpy(g->cfg_mac, c->readout_mac, sizeof(g->cfg_mac[0]) * g->n_cfg);
    for (uint16_t i = 0; i < g->n_cfg; i++) {
        sfc_guard_readout_add(g, g->cfg_mac[i]);    /* throttle frames go to these only */
        if (c->multi_rx && c->ro_port)
            g->ro_port[i] = c->ro_port[i];          /* corrected when heard elsewhere */
    }
}

/* --- Sequence numbers ------------------------------------------------------ */

/* A number beyond the window of the one due: counted as a
 * resynchronisation; when the number after it comes next, the sender really
 * moved on (a restart), and the sequence is re-based there. A lone forged
 * number changes nothing else. */
static void seq_jump(struct sfc_seq_state *q, struct sfc_seq_stats *st, uint16_t source,
                     uint32_t seq)
{
    if (q->jumped && seq == q->jump_next) {
        q->next = seq + 1;
        q->seen = 3;                        /* seq and the jump before it */
        q->jumped = 0;
        return;
    }
    st->resync[source]++;
    q->jump_next = seq + 1;
    q->jumped = 1;
}

void sfc_guard_seq(struct sfc_guard *g, struct sfc_seq_stats *st, uint16_t source, uint32_t seq)
{
    struct sfc_seq_state *q = &g->seq[source];

    if (__builtin_expect(seq == q->next && q->started, 1)) {
        q->jumped = 0;                      /* in order, the usual case: ahead 0 below */
        q->seen = (q->seen << 1) | 1;
        q->next = seq + 1;
        return;
    }
    uint32_t ahead = seq - q->next;
    uint32_t back = q->next - 1 - seq;      /* 0: the last one again */

    if (!q->started) {
        /* The first frame: the window starts at 0, so a number in it
         * counts the frames before it as a gap (lost at the start); any
         * other number (0xFFFFFFFE, a sender that did not start at 0)
         * starts the window there, nothing counted. */
        q->started = 1;
        if (ahead >= SFC_SEQ_WINDOW) {
            q->next = seq + 1;
            q->seen = 1;
            return;
        }
    }
    if (ahead >= SFC_SEQ_WINDOW && back >= SFC_SEQ_WINDOW) {
        seq_jump(q, st, source, seq);
        return;
    }
    q->jumped = 0;
    if (ahead < SFC_SEQ_WINDOW) {
        /* In order (ahead 0) or after a gap of `ahead` frames. */
        st->gap[source] += ahead;
        q->seen = ahead >= 63 ? 1 : (q->seen << (ahead + 1)) | 1;
        q->next = seq + 1;
        return;
    }
    if (back < 64 && !(q->seen & (1ull << back))) {
        q->seen |= 1ull << back;
        st->reorder[source]++;              /* a frame of an earlier gap */
    } else {
        st->dup[source]++;                  /* seen, or too old to tell */
    }
}

/* --- Who may send ---------------------------------------------------------- */

static int readout_configured(const struct sfc_guard *g, const uint8_t *mac)
{
    for (uint16_t i = 0; i < g->n_cfg; i++)
        if (memcmp(g->cfg_mac[i], mac, 6) == 0)
            return 1;
    return 0;
}

enum sfc_drop sfc_guard_source(struct sfc_guard *g, uint16_t source, const uint8_t *mac)
{
    struct sfc_src_bind *b = &g->bind[source];

    if (b->bound && memcmp(b->mac, mac, 6) == 0)
        return SFC_DROP_MAX;                /* the usual case: its own readout */
    if (g->n_cfg && !readout_configured(g, mac))
        return SFC_DROP_FOREIGN_SOURCE;
    if (b->bound)
        return SFC_DROP_SOURCE_SPOOFED;
    memcpy(b->mac, mac, 6);
    b->bound = 1;
    return SFC_DROP_MAX;
}

/* --- The readouts ---------------------------------------------------------- */

void sfc_guard_readout_add(struct sfc_guard *g, const uint8_t *mac)
{
    for (uint16_t i = 0; i < g->n_ro; i++)
        if (memcmp(g->ro_mac[i], mac, 6) == 0) {
            g->last_ro = i;
            return;
        }
    if (g->n_ro == SFC_MAX_READOUTS)
        return;
    memcpy(g->ro_mac[g->n_ro], mac, 6);
    g->ro_port[g->n_ro] = g->multi_rx ? SFC_NO_PORT : g->rx_port;
    g->last_ro = g->n_ro++;
}

void sfc_guard_readout_port(struct sfc_guard *g, const uint8_t *mac, uint16_t port)
{
    uint16_t i = g->last_ro;

    if (i >= g->n_ro || memcmp(g->ro_mac[i], mac, 6) != 0)
        for (i = 0; i < g->n_ro && memcmp(g->ro_mac[i], mac, 6) != 0; i++)
            ;
    if (i < g->n_ro)
        g->ro_port[i] = port;
}

/* How far readout i got: 1 + the highest event id heard from a source
 * bound to its MAC; 0 when none. */
static uint64_t readout_progress(const struct sfc_guard *g, uint16_t i, const uint64_t *next,
                                 uint16_t n_sources)
{
    uint64_t p = 0;

    for (uint16_t s = 0; s < n_sources; s++)
        if (g->bind[s].bound && memcmp(g->bind[s].mac, g->ro_mac[i], 6) == 0 && next[s] > p)
            p = next[s];
    return p;
}

int sfc_guard_heard(const struct sfc_guard *g, uint16_t i, uint16_t n_sources)
{
    for (uint16_t s = 0; s < n_sources && s < EBF_MAX_SOURCES; s++)
        if (g->bind[s].bound && memcmp(g->bind[s].mac, g->ro_mac[i], 6) == 0)
            return 1;
    return 0;
}

unsigned sfc_guard_throttle_to(const struct sfc_guard *g, int on, const uint64_t *next_by_source,
                               uint16_t n_sources, struct sfc_ro_dest *out)
{
    uint64_t lead = 0, p[SFC_MAX_READOUTS] = {0};
    int ranked = on && g->n_ro >= 2;         /* while on, a readout behind is let go */
    unsigned n = 0;

    for (uint16_t i = 0; ranked && i < g->n_ro; i++) {
        p[i] = readout_progress(g, i, next_by_source, n_sources);
        lead = p[i] > lead ? p[i] : lead;
    }
    for (uint16_t i = 0; i < g->n_ro; i++) {
        if (g->ro_port[i] == SFC_NO_PORT)
            continue;                       /* not heard yet: fills nothing */
        memcpy(out[n].mac, g->ro_mac[i], 6);
        out[n].port = g->ro_port[i];
        out[n++].on = (uint8_t)(on && !(ranked && p[i] < lead));
    }
    return n;
}

/* --- One frame judged alone ------------------------------------------------ */

struct sfc_verdict sfc_guard_judge(const struct sfc_judge_conf *c, const uint8_t *p, size_t len,
                                   struct ebf_l2l3 *l, struct ebf_frag_hdr *h)
{
    struct sfc_verdict v = {.reject = EBF_R_OK, .drop = SFC_DROP_MAX, .rule = 2};
    size_t used;

    memset(h, 0, sizeof(*h));
    memset(l, 0, sizeof(*l));
    v.reject = ebf_parse_l2l3(p, len, c->udp_port, l);
    if (v.reject != EBF_R_OK)
        return v;
    v.rule = 3;
    if (l->type != EBF_T_FRAGMENT) {
        v.drop = SFC_DROP_WRONG_TYPE;
        return v;
    }
    v.reject = ebf_frag_parse(p + l->hlen, l->len, c->n_sources, c->check_crc, h, &used);
    if (v.reject != EBF_R_OK) {
        v.rule = v.reject == EBF_R_BAD_CHECKSUM ? 5 : 4;
        return v;
    }
    v.drop = sfc_guard_oversize(c->mtu, l, (uint32_t)len, h->piece_len) ? SFC_DROP_OVERSIZE
             : l->dst_mac[0] & 1                                        ? SFC_DROP_NOT_UNICAST
             : memcmp(l->dst_mac, c->mac, 6)                            ? SFC_DROP_NOT_FOR_US
                                                                        : SFC_DROP_MAX;
    v.rule = v.drop == SFC_DROP_OVERSIZE ? 6 : v.drop == SFC_DROP_NOT_UNICAST ? 7
             : v.drop == SFC_DROP_NOT_FOR_US ? 8 : 0;
    return v;
}
