/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz-proto.c - libFuzzer target: every proto/ parser and the SFC's frame rules on one input, with the invariants of a successful parse and of docs/protocol.md's receive order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_crc.h"
#include "ebf_pattern.h"
#include "ebf_proto.h"
#include "ebf_release.h"
#include "sfc_guard.h"

/*
 * Each input is tried two ways: as a whole frame (ebf_parse_l2l3, then the
 * parser of the type byte on the ebfarm bytes, walking an event frame's
 * pieces) and as bare ebfarm bytes (each of the three header parsers). No
 * input byte selects anything: every parser sees every input, so a corpus
 * entry is a plain frame. Parser options (CRC check on or off, n_sources) are
 * varied here and the outcomes must agree with each other.
 *
 * What must hold, beyond "no sanitizer report":
 * - every result is a reason below EBF_R_MAX with a name;
 * - the version and type bytes decide the first failure (docs/protocol.md 2);
 * - a successful parse describes bytes inside the buffer, its fields obey the
 *   checks the specification lists, one byte less is `truncated`, and the
 *   builder re-encodes the parsed fields to the same bytes wherever the
 *   format has one encoding (all ebfarm messages; the encapsulation when the
 *   IPv4 fields are the ones the sender writes);
 * - CRC32C and the IPv4 checksum agree with independent definitions;
 * - the SFC's rules 2 to 8 on a frame (sfc_guard_judge, docs/protocol.md
 *   4.3) give one verdict, the first rule that applies: a frame accepted
 *   is a fragment whose CRC holds, within the MTU (frame and piece, 3.3),
 *   unicast to the SFC's MAC; each refusal is the rule the frame breaks
 *   and none before it; a frame only not ours is accepted for its MAC.
 * A broken invariant prints the line and aborts, which libFuzzer reports as a
 * crash with the input saved.
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PORT EBF_UDP_PORT_DEFAULT
#define PIECE_MAX 65535u

#define NEED(cond)                                                             \
    do {                                                                       \
        if (!(cond))                                                           \
            broken(__LINE__, #cond);                                           \
    } while (0)

static void broken(int line, const char *what)
{
    fprintf(stderr, "fuzz-proto.c:%d: invariant broken: %s\n", line, what);
    abort();
}

/* Scratch for re-encoding: the largest fragment piece plus its header. */
static uint8_t scratch[EBF_FRAG_HLEN + PIECE_MAX];
static uint8_t pattern[PIECE_MAX];

/* A frame followed by zeros, as a NIC pads it: longer than any Ethernet
 * frame, so that 16-bit lengths would overflow. Kept all zero between uses. */
#define PADDED_MAX (EBF_ETH_HLEN + 4 + 65536 + 64)
static uint8_t padded[PADDED_MAX];

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)rd16(p) << 16) | rd16(p + 2);
}

static void check_reason(enum ebf_reason r)
{
    NEED((unsigned)r < EBF_R_MAX);
    NEED(strcmp(ebf_reason_name(r), "unknown") != 0);
}

/*
 * The outcome every header parser must give when the version and type bytes
 * already decide it (docs/protocol.md section 2), or EBF_R_MAX when they do
 * not and the rest of the header matters.
 */
static enum ebf_reason vt_outcome(const uint8_t *buf, size_t len, uint8_t type)
{
    if (len < 2)
        return EBF_R_TRUNCATED;
    if (buf[0] != EBF_PROTO_VERSION)
        return EBF_R_BAD_VERSION;
    if (buf[1] < EBF_T_FRAGMENT || buf[1] > EBF_T_THROTTLE)
        return EBF_R_UNKNOWN_TYPE;
    if (buf[1] != type)
        return EBF_R_BAD_FIELD;
    return EBF_R_MAX;
}

static void check_vt(const uint8_t *buf, size_t len, uint8_t type, enum ebf_reason r)
{
    enum ebf_reason want = vt_outcome(buf, len, type);

    if (want != EBF_R_MAX)
        NEED(r == want);
}

/* --- Checksums ------------------------------------------------------------ */

/* Bit-at-a-time CRC32C, the definition in docs/protocol.md section 4. */
static uint32_t ref_crc32c(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;

    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    }
    return ~c;
}

/* ebf_crc32c against the reference, whole and split at a data-chosen point
 * (which exercises every alignment of the word loop). */
static void check_checksums(const uint8_t *data, size_t size)
{
    size_t n = size < 512 ? size : 512;
    size_t cut = n ? data[0] % (n + 1) : 0;
    uint32_t whole = ebf_crc32c(0, data, n);

    NEED(whole == ref_crc32c(data, n));
    NEED(ebf_crc32c(ebf_crc32c(0, data, cut), data + cut, n - cut) == whole);

    /* IPv4: with the checksum stored, the one's complement sum of all the
     * header's 16-bit words is 0xFFFF, and the stored field is ignored. */
    if (size >= EBF_IPV4_HLEN) {
        uint8_t ip[EBF_IPV4_HLEN];
        uint32_t sum = 0;

        memcpy(ip, data, sizeof(ip));
        uint16_t c = ebf_ipv4_cksum(ip, sizeof(ip));
        ip[10] = (uint8_t)(c >> 8);
        ip[11] = (uint8_t)c;
        NEED(ebf_ipv4_cksum(ip, sizeof(ip)) == c);
        for (size_t i = 0; i < sizeof(ip); i += 2)
            sum += rd16(ip + i);
        while (sum >> 16)
            sum = (sum & 0xffff) + (sum >> 16);
        NEED(sum == 0xffff);
    }
}

/* --- Fragments ------------------------------------------------------------ */

/* The pattern checker on a parsed piece: -1, or the first differing byte. */
static void check_pattern(const uint8_t *piece, const struct ebf_frag_hdr *h)
{
    long bad = ebf_pattern_check(piece, h->piece_len, h->source, h->event_id, h->offset);

    NEED(bad >= -1 && bad < (long)h->piece_len);
    ebf_pattern_fill(pattern, h->piece_len, h->source, h->event_id, h->offset);
    size_t same = bad < 0 ? h->piece_len : (size_t)bad;
    NEED(memcmp(piece, pattern, same) == 0);
    if (bad >= 0)
        NEED(piece[bad] != pattern[bad]);
}

/*
 * Parse a fragment with every option combination: n_sources 0 (any) and the
 * CRC check on and off must agree, and a success must re-encode exactly.
 * Returns the CRC-checked outcome; *used and *h as from ebf_frag_parse.
 */
static enum ebf_reason check_frag(const uint8_t *buf, size_t len, struct ebf_frag_hdr *h,
                                  size_t *used)
{
    struct ebf_frag_hdr h0, hs;
    size_t used0 = SIZE_MAX, u;
    enum ebf_reason r1 = ebf_frag_parse(buf, len, 0, 1, h, used);
    enum ebf_reason r0 = ebf_frag_parse(buf, len, 0, 0, &h0, &used0);

    check_reason(r1);
    check_reason(r0);
    check_vt(buf, len, EBF_T_FRAGMENT, r0);
    /* The CRC is the last check: it can only turn a success into bad_checksum. */
    NEED(r0 == r1 || (r0 == EBF_R_OK && r1 == EBF_R_BAD_CHECKSUM));
    if (r0 != EBF_R_OK)
        return r1;

    NEED(h0.piece_len >= 1 && (h0.flags & ~EBF_FRAGF_KNOWN) == 0);
    NEED((uint64_t)h0.offset + h0.piece_len <= h0.frag_len);
    NEED(used0 == EBF_FRAG_HLEN + (size_t)h0.piece_len && used0 <= len);
    NEED(ebf_frag_parse(buf, used0, 0, 0, &hs, &u) == EBF_R_OK && u == used0);
    NEED(ebf_frag_parse(buf, used0 - 1, 0, 0, &hs, &u) == EBF_R_TRUNCATED);

    /* The source check: n_sources = source + 1 passes, = source fails. */
    if (h0.source < UINT16_MAX)
        NEED(ebf_frag_parse(buf, len, (uint16_t)(h0.source + 1), 0, &hs, &u) == EBF_R_OK);
    if (h0.source > 0)
        NEED(ebf_frag_parse(buf, len, h0.source, 0, &hs, &u) == EBF_R_BAD_SOURCE);

    /* Re-encode: the same bytes, the CRC equal exactly when it was accepted. */
    struct ebf_frag_hdr w = h0;
    memcpy(scratch + EBF_FRAG_HLEN, buf + EBF_FRAG_HLEN, h0.piece_len);
    ebf_frag_write(scratch, &w);
    NEED(memcmp(scratch, buf, 28) == 0);
    NEED(memcmp(scratch + 32, buf + 32, used0 - 32) == 0);
    NEED((w.crc == h0.crc) == (r1 == EBF_R_OK));
    if (r1 == EBF_R_OK) {
        NEED(*used == used0 && memcmp(scratch, buf, used0) == 0);
        NEED(h->source == h0.source && h->seq == h0.seq && h->event_id == h0.event_id &&
             h->frag_len == h0.frag_len && h->offset == h0.offset &&
             h->piece_len == h0.piece_len && h->crc == h0.crc && h->tx_ns == h0.tx_ns);
    }

    check_pattern(buf + EBF_FRAG_HLEN, &h0);
    return r1;
}

/* --- Event frames ---------------------------------------------------------- */

/*
 * Walk an event frame's pieces as a node does (docs/protocol.md section 5):
 * each is a whole fragment of one of the event's sources, back to back.
 * Returns the bytes the header and the valid pieces take.
 */
static size_t walk_pieces(const uint8_t *buf, size_t len, const struct ebf_event_hdr *e)
{
    size_t off = EBF_EVENT_HLEN;

    for (unsigned i = 0; i < e->n_pieces; i++) {
        struct ebf_frag_hdr h;
        size_t used = SIZE_MAX;
        enum ebf_reason r = ebf_frag_parse(buf + off, len - off, e->n_sources, 1, &h, &used);

        check_reason(r);
        check_vt(buf + off, len - off, EBF_T_FRAGMENT, r);
        if (r != EBF_R_OK)
            break;
        NEED(used >= EBF_FRAG_HLEN + 1 && used <= len - off);
        NEED(h.source < e->n_sources);
        off += used;
    }
    NEED(off <= len);
    return off;
}

static void check_event(const uint8_t *buf, size_t len)
{
    struct ebf_event_hdr h, hs;
    enum ebf_reason r = ebf_event_parse(buf, len, &h);

    check_reason(r);
    check_vt(buf, len, EBF_T_EVENT, r);
    if (r != EBF_R_OK)
        return;

    NEED(len >= EBF_EVENT_HLEN);
    NEED(h.n_sources >= 1 && h.n_sources <= EBF_MAX_SOURCES);
    NEED(h.frame_count >= 1 && h.frame_index < h.frame_count);
    NEED((h.flags & ~EBF_EVF_KNOWN) == 0);
    for (unsigned s = h.n_sources; s < EBF_MAX_SOURCES; s++)
        NEED(!ebf_present_test(h.present, s));
    if (!(h.flags & EBF_EVF_INCOMPLETE))
        NEED(ebf_present_count(h.present) == h.n_sources);
    NEED(ebf_event_parse(buf, EBF_EVENT_HLEN - 1, &hs) == EBF_R_TRUNCATED);

    ebf_event_write(scratch, &h);
    NEED(memcmp(scratch, buf, EBF_EVENT_HLEN) == 0);

    /* Each valid piece re-encodes exactly too (check_frag does that). */
    size_t end = walk_pieces(buf, len, &h);
    for (size_t off = EBF_EVENT_HLEN; off < end;) {
        struct ebf_frag_hdr f;
        size_t used = SIZE_MAX;

        NEED(check_frag(buf + off, end - off, &f, &used) == EBF_R_OK);
        off += used;
    }
}

/* --- Credit frames --------------------------------------------------------- */

static void check_credit(const uint8_t *buf, size_t len)
{
    struct ebf_credit_hdr h, hs;
    struct ebf_ack acks[EBF_MAX_ACKS], as[EBF_MAX_ACKS];
    enum ebf_reason r = ebf_credit_parse(buf, len, &h, acks);

    check_reason(r);
    check_vt(buf, len, EBF_T_CREDIT, r);
    if (r != EBF_R_OK)
        return;

    size_t n = ebf_credit_len(h.n_acks);
    NEED(h.n_acks <= EBF_MAX_ACKS && n <= len);
    for (unsigned i = 0; i < h.n_acks; i++)
        NEED(acks[i].decision <= EBF_DEC_ACCEPT);
    NEED(ebf_credit_parse(buf, n - 1, &hs, as) == EBF_R_TRUNCATED);
    ebf_credit_write(scratch, &h, acks);
    NEED(memcmp(scratch, buf, n) == 0);
}

/* --- Throttle frames ------------------------------------------------------- */

static void check_throttle(const uint8_t *buf, size_t len)
{
    struct ebf_throttle_hdr h, hs;
    enum ebf_reason r = ebf_throttle_parse(buf, len, &h);

    check_reason(r);
    check_vt(buf, len, EBF_T_THROTTLE, r);
    if (r != EBF_R_OK)
        return;
    NEED(len >= EBF_THROTTLE_LEN && h.on <= 1);
    NEED(ebf_throttle_parse(buf, EBF_THROTTLE_LEN - 1, &hs) == EBF_R_TRUNCATED);
    ebf_throttle_write(scratch, &h);
    NEED(memcmp(scratch, buf, EBF_THROTTLE_LEN) == 0);
}

/* --- Release frames (docs/protocol.md 13.2) -------------------------------- */

/*
 * A release frame accepted holds what 13.2 allows (records within the
 * count and the bytes, a known flag or none, at 0 without one; a dead
 * notice without records, a replay end with one at least), is refused
 * as truncated one byte shorter, and is written back to the same bytes.
 */
static void check_release(const uint8_t *buf, size_t len)
{
    struct ebf_release_hdr h, hs;
    enum ebf_reason r = ebf_release_parse(buf, len, &h);
    size_t n;

    check_reason(r);
    if (len < 2 || buf[1] != EBF_T_RELEASE)   /* type 5 is past EBF_T_LAST: an extension */
        check_vt(buf, len, EBF_T_RELEASE, r);
    if (r != EBF_R_OK)
        return;
    n = ebf_release_len(h.n_src);
    NEED(h.n_src <= EBF_RELEASE_MAX_SRC && len >= n);
    NEED(h.flags == 0 || h.flags == EBF_RELF_JOIN || h.flags == EBF_RELF_LEAVE ||
         h.flags == EBF_RELF_DEAD || h.flags == EBF_RELF_END);
    NEED(h.flags != EBF_RELF_DEAD || (h.at == 0 && h.n_src == 0));   /* a dead notice */
    NEED(h.flags != EBF_RELF_END || h.n_src >= 1);      /* a replay end names its sources */
    NEED(h.flags != 0 || h.at == 0);
    NEED(ebf_release_parse(buf, n - 1, &hs) == EBF_R_TRUNCATED);
    NEED(ebf_release_write(scratch, &h) == n);
    NEED(memcmp(scratch, buf, n) == 0);
}

/* --- The SFC's rules on a frame (docs/protocol.md 4.3, 2 to 8) ------------- */

/*
 * Judge the frame at an SFC of 8 sources at mtu whose MAC is its
 * destination, then at one whose MAC is not: the verdicts agree but for
 * rule 8, and each is the first rule the frame breaks.
 */
static void check_judge(const uint8_t *data, size_t size, uint16_t mtu)
{
    struct sfc_judge_conf c = {.n_sources = 8, .udp_port = PORT, .mtu = mtu, .check_crc = 1};
    struct ebf_l2l3 l, l2;
    struct ebf_frag_hdr h, h2;
    size_t used;

    if (size >= 6)
        memcpy(c.mac, data, 6);
    struct sfc_verdict v = sfc_guard_judge(&c, data, size, &l, &h);
    NEED((v.rule == 0) == (v.reject == EBF_R_OK && v.drop == SFC_DROP_MAX));
    enum ebf_reason r = ebf_parse_l2l3(data, size, PORT, &l2);
    if (r != EBF_R_OK) {         /* rule 2: the encapsulation, version, type byte */
        NEED(v.rule == 2 && v.reject == r && v.drop == SFC_DROP_MAX);
        return;
    }
    if (l2.type != EBF_T_FRAGMENT) {     /* rule 3 */
        NEED(v.rule == 3 && v.reject == EBF_R_OK && v.drop == SFC_DROP_WRONG_TYPE);
        return;
    }
    r = ebf_frag_parse(data + l2.hlen, l2.len, 8, 1, &h2, &used);
    if (r != EBF_R_OK) {         /* rule 4, or 5 for the CRC */
        NEED(v.rule == (r == EBF_R_BAD_CHECKSUM ? 5 : 4) && v.reject == r);
        return;
    }
    /* Rule 6: the bytes after the Ethernet header (and tag), IP options
     * and padding included, past the MTU, or a piece an event frame at the
     * MTU could not carry (3.3). */
    size_t eth = EBF_ETH_HLEN + (rd16(data + 12) == 0x8100 ? 4 : 0);
    int oversize = size - eth > mtu ||
                   (uint32_t)h2.piece_len + EBF_EVENT_HLEN + EBF_FRAG_HLEN > mtu;
    if (oversize) {              /* rule 6 */
        NEED(v.rule == 6 && v.drop == SFC_DROP_OVERSIZE);
        return;
    }
    NEED(v.rule == ((data[0] & 1) ? 7 : 0));    /* rule 7; rule 8 holds: the MAC is ours */
    NEED(v.rule || (h.source == h2.source && h.seq == h2.seq && h.event_id == h2.event_id &&
                    h.piece_len == h2.piece_len && l.len == l2.len));
    /* Another SFC's MAC: rule 8 where this one accepted, the same verdict else. */
    c.mac[5] ^= 0x40;
    struct sfc_verdict o = sfc_guard_judge(&c, data, size, &l, &h);
    NEED(o.rule == (v.rule == 0 ? 8 : v.rule) && o.reject == v.reject);
}

/* --- Whole frames ---------------------------------------------------------- */

/* Whether the IPv4 and UDP headers at ip are exactly what ebf_encap_write
 * writes, so that re-encoding must give the same bytes. */
static int canonical_udp(const uint8_t *ip)
{
    return ip[0] == 0x45 && ip[1] == 0 && rd16(ip + 4) == 0 && rd16(ip + 6) == 0x4000 &&
           ip[8] == 64 && rd16(ip + 20) == PORT && rd16(ip + 26) == 0;
}

/*
 * Re-encode a parsed frame's encapsulation with ebf_encap_write and compare
 * with the input less its 802.1Q tag (the sender never writes one).
 */
static void check_reencode(const uint8_t *data, const struct ebf_l2l3 *l, int tagged)
{
    size_t toff = tagged ? 4 : 0;
    const uint8_t *ip = data + EBF_ETH_HLEN + toff;
    struct ebf_addr a = { .encap = l->encap, .udp_port = PORT };
    struct ebf_l2l3 l2;

    memcpy(a.dst_mac, data, 6);
    memcpy(a.src_mac, data + 6, 6);
    if (l->encap == EBF_ENCAP_UDP) {
        a.src_ip = rd32(ip + 12);
        a.dst_ip = rd32(ip + 16);
    }
    size_t hl = ebf_encap_write(scratch, &a, l->len);
    NEED(hl == ebf_encap_hlen(l->encap));
    memcpy(scratch + hl, data + l->hlen, l->len);
    NEED(ebf_parse_l2l3(scratch, hl + l->len, PORT, &l2) == EBF_R_OK);
    NEED(l2.encap == l->encap && l2.hlen == hl && l2.len == l->len && l2.type == l->type);
    if (l->encap == EBF_ENCAP_ETH || canonical_udp(ip)) {
        NEED(memcmp(scratch, data, 12) == 0);
        NEED(memcmp(scratch + 12, data + 12 + toff, hl + l->len - 12) == 0);
    }
}

/*
 * Trailing bytes after a frame (Ethernet padding) never change a UDP frame's
 * outcome; a raw frame keeps all of them as ebfarm bytes (no length field),
 * or is refused as bad_length when they no longer fit the 16-bit len.
 */
static void check_padding(const uint8_t *data, size_t size, const struct ebf_l2l3 *l)
{
    static const size_t pads[] = { 1, 46, PADDED_MAX };
    struct ebf_l2l3 lp;

    if (size > PADDED_MAX - 1)
        return;
    memcpy(padded, data, size);
    for (size_t i = 0; i < sizeof(pads) / sizeof(pads[0]); i++) {
        size_t n = pads[i] < PADDED_MAX - size ? size + pads[i] : PADDED_MAX;
        enum ebf_reason r = ebf_parse_l2l3(padded, n, PORT, &lp);

        check_reason(r);
        if (l->encap == EBF_ENCAP_ETH && n - l->hlen > UINT16_MAX) {
            NEED(r == EBF_R_BAD_LENGTH);
            continue;
        }
        NEED(r == EBF_R_OK && lp.encap == l->encap && lp.hlen == l->hlen && lp.type == l->type);
        NEED(lp.len == l->len + (l->encap == EBF_ENCAP_ETH ? n - size : 0));
    }
    memset(padded, 0, size);
}

static void check_frame(const uint8_t *data, size_t size)
{
    struct ebf_l2l3 l;
    enum ebf_reason r = ebf_parse_l2l3(data, size, PORT, &l);

    check_judge(data, size, 1500);
    check_judge(data, size, 9000);
    check_reason(r);
    if (size < EBF_ETH_HLEN)
        NEED(r == EBF_R_TRUNCATED);
    if (r != EBF_R_OK)
        return;

    int tagged = rd16(data + 12) == 0x8100;
    NEED(l.dst_mac == data && l.src_mac == data + 6);
    NEED(l.len >= 2 && (size_t)l.hlen + l.len <= size);
    NEED(l.type >= EBF_T_FRAGMENT && l.type <= EBF_T_LAST);
    NEED(data[l.hlen] == EBF_PROTO_VERSION && data[l.hlen + 1] == l.type);
    if (l.encap == EBF_ENCAP_ETH) {
        NEED(l.hlen == EBF_ETH_HLEN + (tagged ? 4 : 0));
        NEED((size_t)l.hlen + l.len == size);      /* no length field: all of it */
    } else {
        NEED(l.encap == EBF_ENCAP_UDP);
        size_t min = ebf_encap_hlen(EBF_ENCAP_UDP) + (tagged ? 4 : 0);
        NEED(l.hlen >= min && l.hlen <= min + 40);  /* at most 40 bytes of IP options */
        struct ebf_l2l3 lo;
        NEED(ebf_parse_l2l3(data, size, PORT + 1, &lo) == EBF_R_NOT_EBFARM);
    }
    check_reencode(data, &l, tagged);
    check_padding(data, size, &l);

    /* The ebfarm bytes: the parser of the type byte, and the other two must
     * refuse a known type that is not theirs. */
    const uint8_t *p = data + l.hlen;
    struct ebf_frag_hdr h;
    size_t used;
    check_frag(p, l.len, &h, &used);
    check_event(p, l.len);
    check_credit(p, l.len);
}

/*
 * The same frame with its IPv4 header checksum made right, so that mutated
 * IP lengths reach the checks behind the checksum. Mutations rarely get a
 * 16-bit checksum right by themselves.
 */
static void check_frame_fixed(const uint8_t *data, size_t size)
{
    static uint8_t fixed[4096];
    size_t ip = EBF_ETH_HLEN;

    if (size < ip + 4 || size > sizeof(fixed))
        return;
    if (rd16(data + 12) == 0x8100)
        ip += 4;
    if (size < ip + EBF_IPV4_HLEN || rd16(data + ip - 2) != EBF_ETHERTYPE_IPV4)
        return;
    size_t ihl = (size_t)(data[ip] & 0x0f) * 4;
    if (ihl < EBF_IPV4_HLEN || size < ip + ihl)
        return;
    memcpy(fixed, data, size);
    uint16_t c = ebf_ipv4_cksum(fixed + ip, ihl);
    fixed[ip + 10] = (uint8_t)(c >> 8);
    fixed[ip + 11] = (uint8_t)c;
    check_frame(fixed, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ebf_frag_hdr h;
    size_t used;

    NEED(strcmp(ebf_reason_name(EBF_R_MAX), "unknown") == 0);
    check_checksums(data, size);
    check_throttle(data, size);
    check_release(data, size);
    check_frame(data, size);
    check_frame_fixed(data, size);
    check_frag(data, size, &h, &used);
    check_event(data, size);
    check_credit(data, size);
    return 0;
}
