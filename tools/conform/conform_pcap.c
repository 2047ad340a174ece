/* SPDX-License-Identifier: BSD-3-Clause */
/* conform_pcap.c - a small reader of capture files: pcapng (dpdk-dumpcap, tshark) and classic pcap (tcpdump), Ethernet frames with their times. */
#include "conform_pcap.h"

#include <stdlib.h>
#include <string.h>

#define NG_SHB 0x0A0D0D0Au
#define NG_IDB 1u
#define NG_SPB 3u
#define NG_EPB 6u
#define NG_MAGIC 0x1A2B3C4Du

static uint32_t u32(const struct cap_file *c, const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return c->swap ? __builtin_bswap32(v) : v;
}

static uint16_t u16(const struct cap_file *c, const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return c->swap ? __builtin_bswap16(v) : v;
}

/* Read n bytes into the buffer (grown as needed): 0, or -1. */
static int take(struct cap_file *c, size_t n)
{
    if (n > c->cap) {
        uint8_t *b = realloc(c->buf, n);
        if (!b)
            return -1;
        c->buf = b;
        c->cap = n;
    }
    return fread(c->buf, 1, n, c->f) == n ? 0 : -1;
}

int cap_open(struct cap_file *c, const char *path, char *err, size_t len)
{
    uint8_t h[24];

    memset(c, 0, sizeof(*c));
    c->f = fopen(path, "rb");
    if (!c->f)
        return snprintf(err, len, "%s: cannot open it", path), -1;
    if (fread(h, 1, 24, c->f) != 24)
        return snprintf(err, len, "%s: too short for a capture", path), -1;
    uint32_t m;
    memcpy(&m, h, 4);
    if (m == NG_SHB) {
        memcpy(&m, h + 8, 4);
        c->ng = 1;
        c->swap = m != NG_MAGIC;
        rewind(c->f);
        return 0;
    }
    c->ng = 0;
    c->swap = m == 0xD4C3B2A1u || m == 0x4D3CB2A1u;
    if (m != 0xA1B2C3D4u && m != 0xA1B23C4Du && !c->swap)
        return snprintf(err, len, "%s: neither pcapng nor pcap", path), -1;
    c->ns_per_tick = (m == 0xA1B23C4Du || m == 0x4D3CB2A1u) ? 1 : 1000;
    c->link[0] = (uint16_t)u32(c, h + 20);
    return 0;
}

/* The if_tsresol option of an interface block's options at p (n bytes). */
static uint64_t tsresol(const struct cap_file *c, const uint8_t *p, size_t n)
{
    while (n >= 4) {
        uint16_t code = u16(c, p), olen = u16(c, p + 2);
        size_t step = 4 + ((olen + 3u) & ~3u);
        if (code == 0 || step > n)
            break;
        if (code == 9 && olen >= 1) {
            uint8_t r = p[4];
            uint64_t hz = 1;
            for (unsigned i = 0; i < (r & 0x7F) && i < 19; i++)
                hz *= r & 0x80 ? 2 : 10;
            return hz;
        }
        p += step;
        n -= step;
    }
    return 1000000;
}

static uint64_t to_ns(uint64_t ticks, uint64_t hz)
{
    return hz >= 1000000000u ? ticks / (hz / 1000000000u)
                             : (ticks / hz) * 1000000000u + (ticks % hz) * 1000000000u / hz;
}

/* One pcapng block: 1 with a frame, 0 for another block, -1 at the end or
 * on damage (*end set at a clean end). */
static int ng_block(struct cap_file *c, struct cap_frame *fr, int *end)
{
    uint8_t h[8];

    if (fread(h, 1, 8, c->f) != 8)
        return *end = 1, -1;
    uint32_t type = u32(c, h), blen;
    if (type == NG_SHB) {
        uint8_t m[4];
        if (fread(m, 1, 4, c->f) != 4)
            return -1;
        uint32_t mm;
        memcpy(&mm, m, 4);
        c->swap = mm != NG_MAGIC;
        c->n_if = 0;
        blen = u32(c, h + 4);
        if (blen < 16 || take(c, blen - 12))
            return -1;
        return 0;
    }
    blen = u32(c, h + 4);
    if (blen < 12 || blen > (64u << 20) || take(c, blen - 8))
        return -1;
    const uint8_t *b = c->buf;
    size_t body = blen - 12;
    if (type == NG_IDB && body >= 8 && c->n_if < CAP_IFACES) {
        c->link[c->n_if] = u16(c, b);
        c->tick_hz[c->n_if++] = tsresol(c, b + 8, body - 8);
    } else if (type == NG_EPB && body >= 20) {
        uint32_t ifc = u32(c, b), caplen = u32(c, b + 12);
        if (caplen > body - 20 || ifc >= c->n_if)
            return -1;
        uint64_t t = (uint64_t)u32(c, b + 4) << 32 | u32(c, b + 8);
        *fr = (struct cap_frame){.data = b + 20, .caplen = caplen, .len = u32(c, b + 16),
                                 .ns = to_ns(t, c->tick_hz[ifc]), .ethernet = c->link[ifc] == 1};
        return 1;
    } else if (type == NG_SPB && body >= 4 && c->n_if > 0) {
        uint32_t len = u32(c, b);
        *fr = (struct cap_frame){.data = b + 4, .caplen = len < body - 4 ? len : (uint32_t)body - 4,
                                 .len = len, .ethernet = c->link[0] == 1};
        return 1;
    }
    return 0;
}

int cap_next(struct cap_file *c, struct cap_frame *fr, char *err, size_t len)
{
    if (!c->ng) {
        uint8_t h[16];
        if (fread(h, 1, 16, c->f) != 16)
            return 0;
        uint32_t caplen = u32(c, h + 8);
        if (caplen > (1u << 20) || take(c, caplen))
            return snprintf(err, len, "a damaged frame record"), -1;
        *fr = (struct cap_frame){.data = c->buf, .caplen = caplen, .len = u32(c, h + 12),
                                 .ns = u32(c, h) * 1000000000ull + u32(c, h + 4) * c->ns_per_tick,
                                 .ethernet = c->link[0] == 1};
        return 1;
    }
    for (;;) {
        int end = 0, r = ng_block(c, fr, &end);
        if (r == 1)
            return 1;
        if (r < 0)
            return end ? 0 : (snprintf(err, len, "a damaged pcapng block"), -1);
    }
}

void cap_close(struct cap_file *c)
{
    if (c->f)
        fclose(c->f);
    free(c->buf);
    memset(c, 0, sizeof(*c));
}
