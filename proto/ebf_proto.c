/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_proto.c - encoders and bounds-checked parsers of the ebfarm wire frames v1. */
#include "ebf_proto.h"

#include <string.h>

#include "ebf_bytes.h"
#include "ebf_crc.h"
#include "ebf_pattern.h"

static const char *const reason_names[] = {
#define EBF_REASON_NAME(n, s) s,
    EBF_FOREACH_REASON(EBF_REASON_NAME)
#undef EBF_REASON_NAME
};

const char *ebf_reason_name(enum ebf_reason r)
{
    if ((unsigned)r >= EBF_R_MAX)
        return "unknown";
    return reason_names[r];
}

/* --- IPv4 ------------------------------------------------------------------ */

uint16_t ebf_ipv4_cksum(const void *hdr, size_t hlen)
{
    const uint8_t *p = hdr;
    uint32_t sum = 0;

    for (size_t i = 0; i + 1 < hlen; i += 2) {
        if (i == 10)
            continue;           /* the checksum field counts as zero */
        sum += ebf_get_be16(p + i);
    }
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* --- Encapsulation --------------------------------------------------------- */

size_t ebf_encap_hlen(enum ebf_encap encap)
{
    return encap == EBF_ENCAP_UDP ? EBF_ETH_HLEN + EBF_IPV4_HLEN + EBF_UDP_HLEN
                                  : EBF_ETH_HLEN;
}

size_t ebf_encap_write(uint8_t *buf, const struct ebf_addr *a, size_t payload_len)
{
    memcpy(buf, a->dst_mac, 6);
    memcpy(buf + 6, a->src_mac, 6);
    if (a->encap != EBF_ENCAP_UDP) {
        ebf_put_be16(buf + 12, EBF_ETHERTYPE);
        return EBF_ETH_HLEN;
    }
    ebf_put_be16(buf + 12, EBF_ETHERTYPE_IPV4);

    uint8_t *ip = buf + EBF_ETH_HLEN;
    ip[0] = 0x45;               /* IPv4, 20-byte header */
    ip[1] = 0;
    ebf_put_be16(ip + 2, (uint16_t)(EBF_IPV4_HLEN + EBF_UDP_HLEN + payload_len));
    ebf_put_be16(ip + 4, 0);           /* identification */
    ebf_put_be16(ip + 6, 0x4000);      /* don't fragment */
    ip[8] = 64;                 /* TTL */
    ip[9] = 17;                 /* UDP */
    ebf_put_be32(ip + 12, a->src_ip);
    ebf_put_be32(ip + 16, a->dst_ip);
    ebf_put_be16(ip + 10, ebf_ipv4_cksum(ip, EBF_IPV4_HLEN));

    uint8_t *udp = ip + EBF_IPV4_HLEN;
    ebf_put_be16(udp, a->udp_port);
    ebf_put_be16(udp + 2, a->udp_port);
    ebf_put_be16(udp + 4, (uint16_t)(EBF_UDP_HLEN + payload_len));
    ebf_put_be16(udp + 6, 0);          /* no UDP checksum: the CRC32C covers it */
    return EBF_ETH_HLEN + EBF_IPV4_HLEN + EBF_UDP_HLEN;
}

/* Out of line: the Ethernet path of ebf_parse_l2l3 then needs no saved
 * registers (a receiver of raw Ethernet frames parses every one). */
__attribute__((noinline)) static enum ebf_reason parse_ipv4_udp(const uint8_t *buf, size_t len, size_t off,
                                      uint16_t udp_port, struct ebf_l2l3 *out)
{
    const uint8_t *ip = buf + off;

    if (len < off + EBF_IPV4_HLEN)
        return EBF_R_TRUNCATED;
    size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
    if ((ip[0] >> 4) != 4 || ihl < EBF_IPV4_HLEN)
        return EBF_R_BAD_IP_HEADER;
    size_t tot = ebf_get_be16(ip + 2);
    if (len < off + ihl || tot > len - off)
        return EBF_R_TRUNCATED;
    if (tot < ihl || (ebf_get_be16(ip + 6) & 0x3fff) != 0)
        return EBF_R_BAD_IP_HEADER;     /* bad length, or IP fragment */
    if (ip[9] != 17)
        return EBF_R_NOT_EBFARM;
    if (ebf_ipv4_cksum(ip, ihl) != ebf_get_be16(ip + 10))
        return EBF_R_BAD_IP_CHECKSUM;
    if (tot < ihl + EBF_UDP_HLEN)
        return EBF_R_TRUNCATED;
    const uint8_t *udp = ip + ihl;
    if (ebf_get_be16(udp + 2) != udp_port)
        return EBF_R_NOT_EBFARM;
    size_t ulen = ebf_get_be16(udp + 4);
    if (ulen != tot - ihl)
        return EBF_R_BAD_UDP_LENGTH;
    out->encap = EBF_ENCAP_UDP;
    out->hlen = (uint16_t)(off + ihl + EBF_UDP_HLEN);
    out->len = (uint16_t)(ulen - EBF_UDP_HLEN);
    return EBF_R_OK;
}

enum ebf_reason ebf_parse_l2l3(const uint8_t *buf, size_t len, uint16_t udp_port,
                               struct ebf_l2l3 *out)
{
    size_t off = 12;
    enum ebf_reason r;

    if (len < EBF_ETH_HLEN)
        return EBF_R_TRUNCATED;
    out->dst_mac = buf;
    out->src_mac = buf + 6;
    uint16_t et = ebf_get_be16(buf + off);
    if (et == 0x8100) {         /* one 802.1Q tag */
        off += 4;
        if (len < off + 2)
            return EBF_R_TRUNCATED;
        et = ebf_get_be16(buf + off);
    }
    off += 2;
    if (et == EBF_ETHERTYPE) {
        /* No Ethernet frame is this long, and out->len has 16 bits: refuse
         * rather than report a wrapped length. */
        if (len - off > UINT16_MAX)
            return EBF_R_BAD_LENGTH;
        out->encap = EBF_ENCAP_ETH;
        out->hlen = (uint16_t)off;
        out->len = (uint16_t)(len - off);
    } else if (et == EBF_ETHERTYPE_IPV4) {
        r = parse_ipv4_udp(buf, len, off, udp_port, out);
        if (r != EBF_R_OK)
            return r;
    } else {
        return EBF_R_NOT_EBFARM;
    }
    if (out->len < 2)
        return EBF_R_TRUNCATED;
    const uint8_t *h = buf + out->hlen;
    if (h[0] != EBF_PROTO_VERSION)
        return EBF_R_BAD_VERSION;
    if (h[1] < EBF_T_FRAGMENT || h[1] > EBF_T_LAST)
        return EBF_R_UNKNOWN_TYPE;
    out->type = h[1];
    return EBF_R_OK;
}

/* Version and type bytes shared by every ebfarm header. */
static enum ebf_reason check_vt(const uint8_t *buf, size_t len, size_t hlen,
                                uint8_t type)
{
    if (len < 2)
        return EBF_R_TRUNCATED;
    if (buf[0] != EBF_PROTO_VERSION)
        return EBF_R_BAD_VERSION;
    if (buf[1] != type)
        return buf[1] >= EBF_T_FRAGMENT && buf[1] <= EBF_T_LAST ? EBF_R_BAD_FIELD
                                                                  : EBF_R_UNKNOWN_TYPE;
    if (len < hlen)
        return EBF_R_TRUNCATED;
    return EBF_R_OK;
}

/* --- Fragment frames ------------------------------------------------------- */

#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static int frag_clmul;          /* the CPU has CRC32 (SSE4.2) and PCLMULQDQ */

__attribute__((constructor)) static void frag_clmul_init(void)
{
    frag_clmul = ebf_crc32c_has_clmul();
}

/* frag_hdr_crc by five CRC instructions on words loaded once, no call: the
 * header's chain runs beside whatever follows (a payload's chains start
 * from 0 and take this state only at their join). */
__attribute__((target("sse4.2")))
static inline uint32_t frag_hdr_crc_x86(const uint8_t *buf)
{
    uint64_t w0, w1, w2, w4;
    uint32_t w3;

    memcpy(&w0, buf, 8);
    memcpy(&w1, buf + 8, 8);
    memcpy(&w2, buf + 16, 8);
    memcpy(&w3, buf + 24, 4);
    memcpy(&w4, buf + 32, 8);
    uint64_t c = __builtin_ia32_crc32di(0xffffffffu, w0);
    c = __builtin_ia32_crc32di(c, w1);
    c = __builtin_ia32_crc32di(c, w2);
    c = __builtin_ia32_crc32si((uint32_t)c, w3);
    return ~(uint32_t)__builtin_ia32_crc32di(c, w4);
}
#endif

/* The CRC over the header's covered fields (all but the CRC itself). */
static inline uint32_t frag_hdr_crc(const uint8_t *buf)
{
#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (frag_clmul)
        return frag_hdr_crc_x86(buf);
#endif
    return ebf_crc32c(ebf_crc32c(0, buf, 28), buf + 32, 8);
}

/* Every header field but the CRC, in stores of 8 bytes (4 at 24) that
 * the CRC's loads of the same words take straight from the store buffer
 * (byte stores under a word load stall it, some 15 cycles a word). */
static void frag_put_hdr(uint8_t *buf, const struct ebf_frag_hdr *h)
{
    ebf_put_be64(buf, (uint64_t)EBF_PROTO_VERSION << 56 | (uint64_t)EBF_T_FRAGMENT << 48 |
                        (uint64_t)h->source << 32 | h->seq);
    ebf_put_be64(buf + 8, h->event_id);
    ebf_put_be64(buf + 16, (uint64_t)h->frag_len << 32 | h->offset);
    ebf_put_be32(buf + 24, (uint32_t)h->piece_len << 16 | h->flags);
    ebf_put_be64(buf + 32, h->tx_ns);
}

static uint32_t frag_crc(const uint8_t *buf, size_t piece_len)
{
    return ebf_crc32c(frag_hdr_crc(buf), buf + EBF_FRAG_HLEN, piece_len);
}

void ebf_frag_write(uint8_t *buf, struct ebf_frag_hdr *h)
{
    frag_put_hdr(buf, h);
    h->crc = frag_crc(buf, h->piece_len);
    ebf_put_be32(buf + 28, h->crc);
}

void ebf_frag_write_pattern(uint8_t *buf, struct ebf_frag_hdr *h)
{
    uint32_t c;

    frag_put_hdr(buf, h);
    c = frag_hdr_crc(buf);
    ebf_pattern_fill_crc(buf + EBF_FRAG_HLEN, h->piece_len, h->source, h->event_id, h->offset,
                         &c);
    h->crc = c;
    ebf_put_be32(buf + 28, h->crc);
}

#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* ebf_frag_write_crc with the CRC and carry-less multiply instructions:
 * each header word is stored and fed to the CRC from the same register
 * (no load of what was just stored), the combine with the piece's CRC
 * inlined; the bytes and the CRC are frag_put_hdr's and
 * ebf_crc32c_hdr_combine's. */
__attribute__((target("pclmul,sse4.2")))
static void frag_write_crc_x86(uint8_t *buf, struct ebf_frag_hdr *h, uint32_t payload_crc,
                               uint32_t k_clmul)
{
    uint64_t w0 = __builtin_bswap64((uint64_t)EBF_PROTO_VERSION << 56 |
                                    (uint64_t)EBF_T_FRAGMENT << 48 |
                                    (uint64_t)h->source << 32 | h->seq);
    uint64_t w1 = __builtin_bswap64(h->event_id);
    uint64_t w2 = __builtin_bswap64((uint64_t)h->frag_len << 32 | h->offset);
    uint32_t w3 = __builtin_bswap32((uint32_t)h->piece_len << 16 | h->flags);
    uint64_t w4 = __builtin_bswap64(h->tx_ns);
    uint64_t c = __builtin_ia32_crc32di(0xffffffffu, w0);

    c = __builtin_ia32_crc32di(c, w1);
    c = __builtin_ia32_crc32di(c, w2);
    c = __builtin_ia32_crc32si((uint32_t)c, w3);
    c = __builtin_ia32_crc32di(c, w4);
    h->crc = ebf_crc32c_shift_clmul_x86(~(uint32_t)c, k_clmul) ^ payload_crc;
    uint32_t w5 = __builtin_bswap32(h->crc);
    memcpy(buf, &w0, 8);
    memcpy(buf + 8, &w1, 8);
    memcpy(buf + 16, &w2, 8);
    memcpy(buf + 24, &w3, 4);
    memcpy(buf + 28, &w5, 4);
    memcpy(buf + 32, &w4, 8);
}
#endif

void ebf_frag_write_crc(uint8_t *buf, struct ebf_frag_hdr *h, uint32_t payload_crc,
                        const struct ebf_crc32c_shift *s)
{
#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (frag_clmul) {
        frag_write_crc_x86(buf, h, payload_crc, s->k_clmul);
        return;
    }
#endif
    frag_put_hdr(buf, h);
    h->crc = ebf_crc32c_hdr_combine(buf, 28, EBF_FRAG_HLEN, payload_crc, s);
    ebf_put_be32(buf + 28, h->crc);
}

int ebf_frag_crc_ok(const uint8_t *buf, const struct ebf_frag_hdr *h)
{
    return frag_crc(buf, h->piece_len) == h->crc;
}

enum ebf_reason ebf_frag_verify(const uint8_t *buf, const struct ebf_frag_hdr *h,
                                int *pattern_bad)
{
    uint32_t c = frag_hdr_crc(buf);
    int ok = ebf_pattern_check_crc(buf + EBF_FRAG_HLEN, h->piece_len, h->source,
                                   ebf_pattern_id(h->event_id, h->flags), h->offset, &c);
    *pattern_bad = c == h->crc ? !ok : 0;
    return c == h->crc ? EBF_R_OK : EBF_R_BAD_CHECKSUM;
}

enum ebf_reason ebf_frag_parse(const uint8_t *buf, size_t len, uint16_t n_sources,
                               int check_crc, struct ebf_frag_hdr *h, size_t *consumed)
{
    enum ebf_reason r = check_vt(buf, len, EBF_FRAG_HLEN, EBF_T_FRAGMENT);

    if (r == EBF_R_OK)
        r = ebf_frag_fields(buf, len, n_sources, h);
    if (r != EBF_R_OK)
        return r;
    if (check_crc && frag_crc(buf, h->piece_len) != h->crc)
        return EBF_R_BAD_CHECKSUM;
    *consumed = EBF_FRAG_HLEN + (size_t)h->piece_len;
    return EBF_R_OK;
}

/* --- Event frames ---------------------------------------------------------- */

void ebf_event_write(uint8_t *buf, const struct ebf_event_hdr *h)
{
    buf[0] = EBF_PROTO_VERSION;
    buf[1] = EBF_T_EVENT;
    ebf_put_be16(buf + 2, h->n_sources);
    ebf_put_be16(buf + 4, h->sfc_id);
    ebf_put_be16(buf + 6, h->flags);
    ebf_put_be64(buf + 8, h->event_id);
    ebf_put_be16(buf + 16, h->frame_index);
    ebf_put_be16(buf + 18, h->frame_count);
    ebf_put_be16(buf + 20, h->n_pieces);
    ebf_put_be16(buf + 22, 0);
    ebf_put_be32(buf + 24, h->event_bytes);
    ebf_put_be32(buf + 28, 0);
    ebf_put_be64(buf + 32, h->present[0]);
    ebf_put_be64(buf + 40, h->present[1]);
}

enum ebf_reason ebf_event_parse(const uint8_t *buf, size_t len, struct ebf_event_hdr *h)
{
    enum ebf_reason r = check_vt(buf, len, EBF_EVENT_HLEN, EBF_T_EVENT);

    if (r != EBF_R_OK)
        return r;
    h->n_sources = ebf_get_be16(buf + 2);
    h->sfc_id = ebf_get_be16(buf + 4);
    h->flags = ebf_get_be16(buf + 6);
    h->event_id = ebf_get_be64(buf + 8);
    h->frame_index = ebf_get_be16(buf + 16);
    h->frame_count = ebf_get_be16(buf + 18);
    h->n_pieces = ebf_get_be16(buf + 20);
    h->event_bytes = ebf_get_be32(buf + 24);
    h->present[0] = ebf_get_be64(buf + 32);
    h->present[1] = ebf_get_be64(buf + 40);
    if (h->n_sources == 0 || h->n_sources > EBF_MAX_SOURCES)
        return EBF_R_BAD_FIELD;
    if (h->frame_count == 0 || h->frame_index >= h->frame_count)
        return EBF_R_BAD_FIELD;
    if ((h->flags & ~EBF_EVF_KNOWN) || ebf_get_be16(buf + 22) || ebf_get_be32(buf + 28))
        return EBF_R_BAD_FIELD;
    for (unsigned s = h->n_sources; s < EBF_MAX_SOURCES; s++)
        if (ebf_present_test(h->present, s))
            return EBF_R_BAD_SOURCE;
    if (!(h->flags & EBF_EVF_INCOMPLETE) && ebf_present_count(h->present) != h->n_sources)
        return EBF_R_BAD_FIELD;
    return EBF_R_OK;
}

/* --- Credit/ack frames ----------------------------------------------------- */

void ebf_credit_write(uint8_t *buf, const struct ebf_credit_hdr *h,
                      const struct ebf_ack *acks)
{
    buf[0] = EBF_PROTO_VERSION;
    buf[1] = EBF_T_CREDIT;
    ebf_put_be16(buf + 2, h->node_id);
    ebf_put_be16(buf + 4, h->credits);
    ebf_put_be16(buf + 6, h->n_acks);
    ebf_put_be32(buf + 8, h->epoch);
    ebf_put_be32(buf + 12, h->seq);
    uint8_t *p = buf + EBF_CREDIT_HLEN;
    for (unsigned i = 0; i < h->n_acks; i++, p += EBF_ACK_LEN) {
        ebf_put_be64(p, acks[i].event_id);
        p[8] = acks[i].decision;
        p[9] = acks[i].status;
        ebf_put_be16(p + 10, 0);
    }
}

enum ebf_reason ebf_credit_parse(const uint8_t *buf, size_t len,
                                 struct ebf_credit_hdr *h, struct ebf_ack *acks)
{
    enum ebf_reason r = check_vt(buf, len, EBF_CREDIT_HLEN, EBF_T_CREDIT);

    if (r != EBF_R_OK)
        return r;
    h->node_id = ebf_get_be16(buf + 2);
    h->credits = ebf_get_be16(buf + 4);
    h->n_acks = ebf_get_be16(buf + 6);
    h->epoch = ebf_get_be32(buf + 8);
    h->seq = ebf_get_be32(buf + 12);
    if (h->n_acks > EBF_MAX_ACKS)
        return EBF_R_BAD_LENGTH;
    if (len < ebf_credit_len(h->n_acks))
        return EBF_R_TRUNCATED;
    const uint8_t *p = buf + EBF_CREDIT_HLEN;
    for (unsigned i = 0; i < h->n_acks; i++, p += EBF_ACK_LEN) {
        acks[i].event_id = ebf_get_be64(p);
        acks[i].decision = p[8];
        acks[i].status = p[9];
        if (p[8] > EBF_DEC_ACCEPT || ebf_get_be16(p + 10) != 0)
            return EBF_R_BAD_FIELD;
    }
    return EBF_R_OK;
}

/* --- Throttle frames ------------------------------------------------------ */

void ebf_throttle_write(uint8_t *buf, const struct ebf_throttle_hdr *h)
{
    buf[0] = EBF_PROTO_VERSION;
    buf[1] = EBF_T_THROTTLE;
    ebf_put_be16(buf + 2, h->sfc_id);
    buf[4] = h->on ? 1 : 0;
    buf[5] = 0;
    ebf_put_be16(buf + 6, h->fill);
    ebf_put_be32(buf + 8, h->seq);
    ebf_put_be32(buf + 12, 0);
}

enum ebf_reason ebf_throttle_parse(const uint8_t *buf, size_t len, struct ebf_throttle_hdr *h)
{
    enum ebf_reason r = check_vt(buf, len, EBF_THROTTLE_LEN, EBF_T_THROTTLE);

    if (r != EBF_R_OK)
        return r;
    h->sfc_id = ebf_get_be16(buf + 2);
    h->on = buf[4];
    h->fill = ebf_get_be16(buf + 6);
    h->seq = ebf_get_be32(buf + 8);
    if (buf[4] > 1 || buf[5] != 0 || ebf_get_be32(buf + 12) != 0)
        return EBF_R_BAD_FIELD;
    return EBF_R_OK;
}
