/* SPDX-License-Identifier: BSD-3-Clause */
/* make-corpus.c - writes (or checks) the fuzz seed corpus: one valid frame a file, made with proto's builders. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_pattern.h"
#include "ebf_proto.h"
#include "ebf_release.h"

/*
 *   make-corpus DIR           write every seed frame to DIR/<name>
 *   make-corpus --check DIR   exit 1 unless each DIR/<name> holds exactly
 *                             the frame this program makes (the unit suite
 *                             runs this, so the committed corpus follows
 *                             the format)
 *
 * Seeds cover each frame type, both encapsulations, an 802.1Q tag, IPv4
 * options, Ethernet padding, split and unaligned pieces, the limits
 * (128 sources, 64 acks) and bare ebfarm messages without encapsulation.
 * Files in DIR with other names (inputs that once broke an invariant) are
 * left alone.
 */

#define FRAME_MAX 2048
#define ETH_MIN 60              /* minimum Ethernet frame without FCS */

struct frame {
    uint8_t b[FRAME_MAX];
    size_t n;
};

static const uint8_t dst_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

/* ebfarm bytes of one fragment piece, pattern-filled; returns its length. */
static size_t put_frag(uint8_t *p, uint16_t source, uint32_t seq, uint64_t event_id,
                       uint32_t frag_len, uint32_t offset, uint16_t piece_len)
{
    struct ebf_frag_hdr h = {
        .source = source,
        .seq = seq,
        .event_id = event_id,
        .frag_len = frag_len,
        .offset = offset,
        .piece_len = piece_len,
        .tx_ns = 1000000000ull,
    };

    ebf_pattern_fill(p + EBF_FRAG_HLEN, piece_len, source, event_id, offset);
    ebf_frag_write(p, &h);
    return EBF_FRAG_HLEN + (size_t)piece_len;
}

/* Put the encapsulation in front of the ebfarm bytes already at
 * f->b + ebf_encap_hlen(encap), f->n of them. */
static void encap(struct frame *f, enum ebf_encap e)
{
    struct ebf_addr a = {
        .encap = e,
        .src_ip = 0x0a000001u,
        .dst_ip = 0x0a000002u,
        .udp_port = EBF_UDP_PORT_DEFAULT,
    };

    memcpy(a.dst_mac, dst_mac, 6);
    memcpy(a.src_mac, src_mac, 6);
    f->n += ebf_encap_write(f->b, &a, f->n);
}

/* Insert an 802.1Q tag (VLAN 100, priority 3) after the MAC addresses. */
static void tag(struct frame *f)
{
    memmove(f->b + 16, f->b + 12, f->n - 12);
    f->b[12] = 0x81;
    f->b[13] = 0x00;
    f->b[14] = 0x60;
    f->b[15] = 0x64;
    f->n += 4;
}

/* Pad with zeros to the Ethernet minimum, as a NIC does. */
static void pad(struct frame *f)
{
    if (f->n < ETH_MIN) {
        memset(f->b + f->n, 0, ETH_MIN - f->n);
        f->n = ETH_MIN;
    }
}

/* Give an untagged UDP frame 4 bytes of IPv4 options (NOPs), fixing the
 * lengths and the header checksum. */
static void ip_options(struct frame *f)
{
    uint8_t *ip = f->b + EBF_ETH_HLEN;

    memmove(ip + 24, ip + 20, f->n - EBF_ETH_HLEN - 20);
    memset(ip + 20, 0x01, 4);
    f->n += 4;
    ip[0] = 0x46;
    uint16_t tot = (uint16_t)(((ip[2] << 8) | ip[3]) + 4);
    ip[2] = (uint8_t)(tot >> 8);
    ip[3] = (uint8_t)tot;
    uint16_t c = ebf_ipv4_cksum(ip, 24);
    ip[10] = (uint8_t)(c >> 8);
    ip[11] = (uint8_t)c;
}

/* --- The seeds ------------------------------------------------------------- */

/* A one-piece fragment: the worked example of docs/protocol.md section 9. */
static void frag_single(struct frame *f, enum ebf_encap e)
{
    f->n = put_frag(f->b + ebf_encap_hlen(e), 2, 7, 0x1000, 16, 0, 16);
    encap(f, e);
}

/* The middle piece of a split fragment, at an unaligned offset. */
static void frag_split(struct frame *f, enum ebf_encap e)
{
    f->n = put_frag(f->b + ebf_encap_hlen(e), 5, 1234, 0xabcdef, 300, 101, 97);
    encap(f, e);
}

/* A one-byte fragment: padded to 60 bytes. */
static void frag_tiny(struct frame *f, enum ebf_encap e)
{
    f->n = put_frag(f->b + ebf_encap_hlen(e), 0, 0, 1, 1, 0, 1);
    encap(f, e);
    pad(f);
}

static void seed_frag_eth(struct frame *f) { frag_single(f, EBF_ENCAP_ETH); }
static void seed_frag_udp(struct frame *f) { frag_single(f, EBF_ENCAP_UDP); }
static void seed_frag_eth_pad(struct frame *f) { frag_tiny(f, EBF_ENCAP_ETH); }
static void seed_frag_udp_pad(struct frame *f) { frag_tiny(f, EBF_ENCAP_UDP); }

static void seed_frag_eth_vlan(struct frame *f)
{
    frag_split(f, EBF_ENCAP_ETH);
    tag(f);
}

static void seed_frag_udp_vlan(struct frame *f)
{
    frag_split(f, EBF_ENCAP_UDP);
    tag(f);
}

static void seed_frag_udp_ipopt(struct frame *f)
{
    frag_split(f, EBF_ENCAP_UDP);
    ip_options(f);
}

/* An event frame: header, then pieces of the given sources. */
static void event(struct frame *f, enum ebf_encap e, const struct ebf_event_hdr *h,
                  const uint16_t *sources, uint16_t piece_len)
{
    uint8_t *p = f->b + ebf_encap_hlen(e);
    size_t n = EBF_EVENT_HLEN;

    ebf_event_write(p, h);
    for (unsigned i = 0; i < h->n_pieces; i++)
        n += put_frag(p + n, sources[i], 10 + i, h->event_id, piece_len, 0, piece_len);
    f->n = n;
    encap(f, e);
}

/* A complete two-source event in one frame. */
static void seed_event_eth(struct frame *f)
{
    static const uint16_t src[] = { 0, 1 };
    struct ebf_event_hdr h = {
        .n_sources = 2, .sfc_id = 1, .event_id = 42, .frame_count = 1,
        .n_pieces = 2, .event_bytes = 2 * 24, .present = { 0x3, 0 },
    };
    event(f, EBF_ENCAP_ETH, &h, src, 24);
}

/* An incomplete event (source 1 of 3 timed out), tagged, over UDP. */
static void seed_event_udp_vlan(struct frame *f)
{
    static const uint16_t src[] = { 0, 2 };
    struct ebf_event_hdr h = {
        .n_sources = 3, .sfc_id = 7, .flags = EBF_EVF_INCOMPLETE, .event_id = 1ull << 40,
        .frame_count = 1, .n_pieces = 2, .event_bytes = 2 * 33, .present = { 0x5, 0 },
    };
    event(f, EBF_ENCAP_UDP, &h, src, 33);
    tag(f);
}

/* Frame 1 of 3 of a complete 128-source event, with two pieces. */
static void seed_event_eth_128(struct frame *f)
{
    static const uint16_t src[] = { 64, 127 };
    struct ebf_event_hdr h = {
        .n_sources = EBF_MAX_SOURCES, .sfc_id = 3, .event_id = 0xffffffffffull,
        .frame_index = 1, .frame_count = 3, .n_pieces = 2, .event_bytes = 128 * 8,
        .present = { ~0ull, ~0ull },
    };
    event(f, EBF_ENCAP_ETH, &h, src, 8);
}

/* An event whose every source timed out: no pieces, padded. */
static void seed_event_udp_empty(struct frame *f)
{
    struct ebf_event_hdr h = {
        .n_sources = 4, .sfc_id = 2, .flags = EBF_EVF_INCOMPLETE, .event_id = 99,
        .frame_count = 1,
    };
    event(f, EBF_ENCAP_UDP, &h, NULL, 0);
    pad(f);
}

static void credit(struct frame *f, enum ebf_encap e, struct ebf_credit_hdr *h)
{
    struct ebf_ack acks[EBF_MAX_ACKS];

    for (unsigned i = 0; i < h->n_acks; i++) {
        acks[i].event_id = 1000 + i;
        acks[i].decision = (uint8_t)(i % 3 == 0 ? EBF_DEC_ACCEPT : EBF_DEC_REJECT);
        acks[i].status = (uint8_t)(i % 5 == 4 ? EBF_ACKS_BAD_PATTERN | EBF_ACKS_BAD_CRC : 0);
    }
    ebf_credit_write(f->b + ebf_encap_hlen(e), h, acks);
    f->n = ebf_credit_len(h->n_acks);
    encap(f, e);
}

/* A heartbeat: the last example of docs/protocol.md section 9, padded. */
static void seed_credit_eth_heartbeat(struct frame *f)
{
    struct ebf_credit_hdr h = { .node_id = 1, .epoch = 3, .seq = 42 };
    credit(f, EBF_ENCAP_ETH, &h);
    pad(f);
}

static void seed_credit_udp(struct frame *f)
{
    struct ebf_credit_hdr h = { .node_id = 5, .credits = 8, .n_acks = 5, .epoch = 1, .seq = 9 };
    credit(f, EBF_ENCAP_UDP, &h);
}

static void seed_credit_eth_vlan_max(struct frame *f)
{
    struct ebf_credit_hdr h = {
        .node_id = 0xffff, .credits = 64, .n_acks = EBF_MAX_ACKS, .epoch = 0xfffffffeu,
        .seq = 1,
    };
    credit(f, EBF_ENCAP_ETH, &h);
    tag(f);
}

static void seed_credit_udp_vlan(struct frame *f)
{
    struct ebf_credit_hdr h = { .node_id = 2, .credits = 1, .n_acks = 1, .epoch = 4, .seq = 5 };
    credit(f, EBF_ENCAP_UDP, &h);
    tag(f);
}

/* Bare ebfarm messages, as a piece inside an event frame is seen. */
static void strip(struct frame *f)
{
    memmove(f->b, f->b + EBF_ETH_HLEN, f->n - EBF_ETH_HLEN);
    f->n -= EBF_ETH_HLEN;
}

static void seed_bare_frag(struct frame *f)
{
    frag_split(f, EBF_ENCAP_ETH);
    strip(f);
}

static void seed_bare_event(struct frame *f)
{
    seed_event_eth(f);
    strip(f);
}

static void seed_bare_credit(struct frame *f)
{
    struct ebf_credit_hdr h = { .node_id = 5, .credits = 2, .n_acks = 2, .epoch = 1, .seq = 9 };
    credit(f, EBF_ENCAP_ETH, &h);
    strip(f);
}

/* Bare release frames (docs/protocol.md 13.2): a round with two records,
 * and a replay end (13.4.1) of place 2 with one. */
static void seed_bare_release(struct frame *f)
{
    struct ebf_release_hdr h = { .place = 1, .n_src = 2, .epoch = 7, .seq = 300, .low = 123456,
                                 .src = { { 4, 1000 }, { 5, 2000 } } };
    f->n = ebf_release_write(f->b, &h);
}

static void seed_bare_replay_end(struct frame *f)
{
    struct ebf_release_hdr h = { .place = 2, .flags = EBF_RELF_END, .n_src = 1, .epoch = 1,
                                 .low = 4096, .at = 4095, .src = { { 4, 77 } } };
    f->n = ebf_release_write(f->b, &h);
}

static const struct seed {
    const char *name;
    void (*make)(struct frame *f);
} seeds[] = {
    { "frag-eth", seed_frag_eth },
    { "frag-eth-pad", seed_frag_eth_pad },
    { "frag-eth-vlan", seed_frag_eth_vlan },
    { "frag-udp", seed_frag_udp },
    { "frag-udp-pad", seed_frag_udp_pad },
    { "frag-udp-vlan", seed_frag_udp_vlan },
    { "frag-udp-ipopt", seed_frag_udp_ipopt },
    { "event-eth", seed_event_eth },
    { "event-eth-128", seed_event_eth_128 },
    { "event-udp-vlan", seed_event_udp_vlan },
    { "event-udp-empty", seed_event_udp_empty },
    { "credit-eth-heartbeat", seed_credit_eth_heartbeat },
    { "credit-eth-vlan-max", seed_credit_eth_vlan_max },
    { "credit-udp", seed_credit_udp },
    { "credit-udp-vlan", seed_credit_udp_vlan },
    { "bare-frag", seed_bare_frag },
    { "bare-event", seed_bare_event },
    { "bare-credit", seed_bare_credit },
    { "bare-release", seed_bare_release },
    { "bare-replay-end", seed_bare_replay_end },
};

/* --- Files ----------------------------------------------------------------- */

static int write_file(const char *path, const struct frame *f)
{
    FILE *fp = fopen(path, "wb");

    if (!fp || fwrite(f->b, 1, f->n, fp) != f->n || fclose(fp) != 0) {
        fprintf(stderr, "make-corpus: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* 0 when the file holds exactly the frame, else -1 with a message. */
static int check_file(const char *path, const struct frame *f)
{
    uint8_t b[FRAME_MAX + 1];
    FILE *fp = fopen(path, "rb");

    if (!fp) {
        fprintf(stderr, "make-corpus: %s: %s (regenerate with make-corpus DIR)\n", path,
                strerror(errno));
        return -1;
    }
    size_t n = fread(b, 1, sizeof(b), fp);
    fclose(fp);
    if (n != f->n || memcmp(b, f->b, n) != 0) {
        fprintf(stderr, "make-corpus: %s differs from the frame the builders make now "
                "(regenerate with make-corpus DIR)\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int check = argc == 3 && strcmp(argv[1], "--check") == 0;
    int bad = 0;

    if (argc != 2 + check) {
        fprintf(stderr, "usage: make-corpus [--check] DIR\n");
        return 2;
    }
    const char *dir = argv[1 + check];
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        static struct frame f;
        char path[4096];

        memset(&f, 0, sizeof(f));
        seeds[i].make(&f);
        snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
        if ((check ? check_file(path, &f) : write_file(path, &f)) != 0)
            bad = 1;
    }
    if (!check && !bad)
        printf("make-corpus: %zu frames written to %s\n", sizeof(seeds) / sizeof(seeds[0]), dir);
    return bad;
}
