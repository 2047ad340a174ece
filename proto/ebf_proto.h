/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_proto.h - the ebfarm data-plane wire frames v1: encode and bounds-checked parse, no DPDK. */
#ifndef EBF_PROTO_H
#define EBF_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_bytes.h"

/*
 * Every function here works on plain byte buffers and may be called from any
 * thread. Parsers never read past the length they are given and return one
 * enum ebf_reason per outcome. Multi-byte wire fields are big-endian.
 * docs/protocol.md is the byte-level specification. The fragment checksum
 * is in ebf_crc.h, the emulated payload in ebf_pattern.h, the mixer every
 * per-event choice draws from in ebf_mix.h.
 */

#define EBF_PROTO_VERSION 1

#define EBF_ETHERTYPE 0x88B5     /* IEEE 802 local experimental EtherType 1 */
#define EBF_ETHERTYPE_IPV4 0x0800
#define EBF_UDP_PORT_DEFAULT 50505

#define EBF_ETH_HLEN 14
#define EBF_VLAN_HLEN 4          /* one 802.1Q tag */
#define EBF_L2_MAX_HLEN (EBF_ETH_HLEN + EBF_VLAN_HLEN)  /* a frame is at most MTU + this */
#define EBF_IPV4_HLEN 20
#define EBF_UDP_HLEN 8

#define EBF_FRAG_HLEN 40         /* fragment header */
#define EBF_EVENT_HLEN 48        /* event frame header */
#define EBF_CREDIT_HLEN 16       /* credit/ack frame header */
#define EBF_ACK_LEN 12           /* one ack record */
#define EBF_THROTTLE_LEN 16      /* throttle frame */

#define EBF_MAX_SOURCES 128      /* sources per event: the event bitmap width */
#define EBF_MAX_ACKS 64          /* acks in one credit frame */

enum ebf_type {
    EBF_T_FRAGMENT = 1,
    EBF_T_EVENT = 2,
    EBF_T_CREDIT = 3,
    EBF_T_THROTTLE = 4,          /* SFC -> readout: hold or resume generation */
};

#define EBF_T_LAST EBF_T_THROTTLE   /* highest known frame type */

enum ebf_encap {
    EBF_ENCAP_ETH = 0,           /* Ethernet, EtherType EBF_ETHERTYPE */
    EBF_ENCAP_UDP = 1,           /* Ethernet, IPv4, UDP */
};

/* Fragment header flags. */
#define EBF_FRAGF_PREBUILT 0x0001    /* the payload is the prebuilt one of (source, offset),
                                      * the same in every event (ebf_pattern.h) */
#define EBF_FRAGF_REPLAY 0x0002      /* sent again after its SFC died (docs/protocol.md 13.4):
                                      * accepted always; only a failover farm sends it */
#define EBF_FRAGF_KNOWN (EBF_FRAGF_PREBUILT | EBF_FRAGF_REPLAY)  /* any other bit: bad_field */

/* Event frame flags. */
#define EBF_EVF_INCOMPLETE 0x0001    /* at least one source is missing */
#define EBF_EVF_REDISPATCHED 0x0002  /* sent before to a node since declared dead, which may
                                      * decide it too (docs/protocol.md section 5) */
#define EBF_EVF_KNOWN (EBF_EVF_INCOMPLETE | EBF_EVF_REDISPATCHED)  /* any other bit: bad_field */

/* Ack decisions. */
enum ebf_decision {
    EBF_DEC_REJECT = 0,
    EBF_DEC_ACCEPT = 1,
};

/* Ack status bits: what the node found wrong with the event. */
#define EBF_ACKS_BAD_CRC      0x01
#define EBF_ACKS_BAD_PATTERN  0x02
#define EBF_ACKS_BAD_SOURCES  0x04
#define EBF_ACKS_BAD_EVENT_ID 0x08

/*
 * Parse outcomes. X-macro: the enum and the names come from one list, so a
 * counter per reason can be indexed by the enum and printed by name.
 */
#define EBF_FOREACH_REASON(X)                                              \
    X(OK, "ok")                                                            \
    X(TRUNCATED, "truncated")             /* shorter than its headers */   \
    X(NOT_EBFARM, "not_ebfarm")           /* other EtherType/proto/port */ \
    X(BAD_IP_HEADER, "bad_ip_header")     /* version, IHL, length, frag */ \
    X(BAD_IP_CHECKSUM, "bad_ip_checksum")                                  \
    X(BAD_UDP_LENGTH, "bad_udp_length")                                    \
    X(BAD_VERSION, "bad_version")                                          \
    X(UNKNOWN_TYPE, "unknown_type")                                        \
    X(BAD_LENGTH, "bad_length")           /* length fields disagree */     \
    X(BAD_SOURCE, "bad_source")           /* source id out of range */     \
    X(BAD_CHECKSUM, "bad_checksum")       /* CRC32C mismatch */            \
    X(BAD_FIELD, "bad_field")             /* reserved bits or counts */

enum ebf_reason {
#define EBF_REASON_ENUM(n, s) EBF_R_##n,
    EBF_FOREACH_REASON(EBF_REASON_ENUM)
#undef EBF_REASON_ENUM
    EBF_R_MAX
};

/* Name of a reason ("truncated", ...), or "unknown" for a bad value. */
const char *ebf_reason_name(enum ebf_reason r);

/* Addressing of one frame: Ethernet and, for UDP, IPv4 and port. */
struct ebf_addr {
    uint8_t dst_mac[6];
    uint8_t src_mac[6];
    enum ebf_encap encap;
    uint32_t src_ip;             /* host order; UDP only */
    uint32_t dst_ip;
    uint16_t udp_port;           /* destination and source port */
};

/* Fragment header: one piece of one source's fragment of one event. */
struct ebf_frag_hdr {
    uint16_t source;
    uint32_t seq;                /* per-source frame sequence number */
    uint64_t event_id;
    uint32_t frag_len;           /* total fragment length */
    uint32_t offset;             /* offset of this piece in the fragment */
    uint16_t piece_len;          /* payload bytes in this frame */
    uint16_t flags;              /* EBF_FRAGF_*, the rest reserved 0 */
    uint32_t crc;                /* CRC32C: header (crc excluded) + piece */
    uint64_t tx_ns;              /* transmit timestamp, sender's ns clock */
};

/* Event frame header: one frame of an event sent by an SFC to a node. */
struct ebf_event_hdr {
    uint16_t n_sources;          /* sources the event should have */
    uint16_t sfc_id;
    uint16_t flags;              /* EBF_EVF_* */
    uint64_t event_id;
    uint16_t frame_index;        /* this frame's index in the event */
    uint16_t frame_count;        /* frames that make up the event */
    uint16_t n_pieces;           /* fragment pieces in this frame */
    uint32_t event_bytes;        /* fragment payload bytes of the whole event */
    uint64_t present[2];         /* bit s: source s contributed */
};

/* One ack record: an event a node has finished, with its decision. */
struct ebf_ack {
    uint64_t event_id;
    uint8_t decision;            /* enum ebf_decision */
    uint8_t status;              /* EBF_ACKS_* */
};

/* Credit/ack frame header: a node grants credits and acks events. */
struct ebf_credit_hdr {
    uint16_t node_id;
    uint16_t credits;            /* credits granted by this frame */
    uint16_t n_acks;
    uint32_t epoch;              /* node incarnation */
    uint32_t seq;                /* per-node credit frame sequence */
};

/* Throttle frame: an SFC asks the readouts that send to it to hold (on) or
 * resume (off) generating events. */
struct ebf_throttle_hdr {
    uint16_t sfc_id;
    uint8_t on;                  /* 1: hold generation, 0: resume */
    uint16_t fill;               /* the SFC's fill level, per mille (information) */
    uint32_t seq;                /* per-SFC throttle frame sequence */
};

/* The result of parsing the encapsulation of one frame. */
struct ebf_l2l3 {
    enum ebf_encap encap;
    uint16_t hlen;               /* bytes before the ebfarm header */
    uint16_t len;                /* ebfarm bytes (UDP payload or rest) */
    uint8_t type;                /* ebfarm frame type byte */
    const uint8_t *dst_mac;
    const uint8_t *src_mac;
};

/* --- Encapsulation ---------------------------------------------------- */

/* Internet checksum of an IPv4 header of hlen bytes, computed with the
 * checksum field taken as zero. The value is a plain number: store it
 * big-endian (most significant byte first) at offset 10. */
uint16_t ebf_ipv4_cksum(const void *hdr, size_t hlen);

/* Bytes of headers before the ebfarm header for this encapsulation. */
size_t ebf_encap_hlen(enum ebf_encap encap);

/*
 * Write the Ethernet (and IPv4/UDP) headers for an ebfarm payload of
 * payload_len bytes. buf must hold ebf_encap_hlen() bytes. Returns the
 * header length written.
 */
size_t ebf_encap_write(uint8_t *buf, const struct ebf_addr *a, size_t payload_len);

/*
 * Parse the encapsulation of a received frame of len bytes. With UDP,
 * frames to other ports than udp_port are EBF_R_NOT_EBFARM. On EBF_R_OK,
 * out tells where the ebfarm header starts, its length and its type byte
 * (the version byte is checked here too).
 */
enum ebf_reason ebf_parse_l2l3(const uint8_t *buf, size_t len, uint16_t udp_port,
                               struct ebf_l2l3 *out);

/* --- Fragment frames -------------------------------------------------- */

/*
 * Write a fragment header and compute its CRC over the header and the piece
 * payload (which must already be at buf + EBF_FRAG_HLEN, h->piece_len bytes).
 * h->crc is ignored on input and set on return.
 */
void ebf_frag_write(uint8_t *buf, struct ebf_frag_hdr *h);

/* The same, with the payload written too: the pattern of (h->source,
 * h->event_id) from h->offset (ebf_pattern.h), filled and checksummed in
 * one pass. */
void ebf_frag_write_pattern(uint8_t *buf, struct ebf_frag_hdr *h);

/*
 * ebf_frag_write for a payload whose own CRC32C is known: payload_crc is
 * ebf_crc32c(0, payload, h->piece_len) and s is
 * ebf_crc32c_shift_make(h->piece_len) (ebf_crc.h). Only the header is
 * read and checksummed; the CRC of the piece is the two combined. A
 * sender of prebuilt payloads (EBF_FRAGF_PREBUILT) knows both per piece.
 */
struct ebf_crc32c_shift;
void ebf_frag_write_crc(uint8_t *buf, struct ebf_frag_hdr *h, uint32_t payload_crc,
                        const struct ebf_crc32c_shift *s);

/*
 * Parse a fragment header and its piece at buf (len bytes available, at
 * least the header and the piece). Checks version, type, lengths
 * (offset + piece_len <= frag_len, piece_len > 0), no flag outside
 * EBF_FRAGF_KNOWN, source < n_sources
 * (0 means any) and, if check_crc, the CRC. *consumed is set to the bytes
 * the piece takes (header + piece) on EBF_R_OK.
 */
enum ebf_reason ebf_frag_parse(const uint8_t *buf, size_t len, uint16_t n_sources,
                               int check_crc, struct ebf_frag_hdr *h, size_t *consumed);

/*
 * The fields of a fragment header at buf whose version and type the caller
 * has checked already (ebf_parse_l2l3 with out->type EBF_T_FRAGMENT): every
 * other check of ebf_frag_parse but the CRC, with the same reasons in the
 * same order (EBF_R_TRUNCATED first when len < EBF_FRAG_HLEN). Inline for a
 * receive path that parses every frame: no call, no second version check.
 */
static inline enum ebf_reason ebf_frag_fields(const uint8_t *buf, size_t len,
                                              uint16_t n_sources, struct ebf_frag_hdr *h)
{
    if (len < EBF_FRAG_HLEN)
        return EBF_R_TRUNCATED;
    h->source = ebf_get_be16(buf + 2);
    h->seq = ebf_get_be32(buf + 4);
    h->event_id = ebf_get_be64(buf + 8);
    h->frag_len = ebf_get_be32(buf + 16);
    h->offset = ebf_get_be32(buf + 20);
    h->piece_len = ebf_get_be16(buf + 24);
    h->flags = ebf_get_be16(buf + 26);
    h->crc = ebf_get_be32(buf + 28);
    h->tx_ns = ebf_get_be64(buf + 32);
    if (h->piece_len == 0 || (uint64_t)h->offset + h->piece_len > h->frag_len)
        return EBF_R_BAD_LENGTH;
    if (len - EBF_FRAG_HLEN < h->piece_len)
        return EBF_R_TRUNCATED;
    if (h->flags & ~EBF_FRAGF_KNOWN)
        return EBF_R_BAD_FIELD;
    if (n_sources && h->source >= n_sources)
        return EBF_R_BAD_SOURCE;
    return EBF_R_OK;
}

/* Whether the CRC of a fragment piece parsed into h (without its CRC
 * check) at buf is right: for a receiver that checks only some frames. */
int ebf_frag_crc_ok(const uint8_t *buf, const struct ebf_frag_hdr *h);

/* The CRC and the payload pattern (ebf_pattern.h: the per-event one, or
 * the prebuilt one when h->flags has EBF_FRAGF_PREBUILT) of a piece parsed
 * into h without its CRC check, in one pass over the payload (each word
 * checksummed and compared: ebf_pattern_check_crc). Returns
 * EBF_R_BAD_CHECKSUM (*pattern_bad then 0: untrusted bytes are not judged)
 * or EBF_R_OK with *pattern_bad 1 when a byte differs from the pattern. */
enum ebf_reason ebf_frag_verify(const uint8_t *buf, const struct ebf_frag_hdr *h,
                                int *pattern_bad);

/* --- Event frames ----------------------------------------------------- */

void ebf_event_write(uint8_t *buf, const struct ebf_event_hdr *h);

/* Parse an event frame header (len bytes available). Checks version, type,
 * n_sources <= EBF_MAX_SOURCES, frame_index < frame_count, no present bit at
 * or above n_sources, and no unknown flags. */
enum ebf_reason ebf_event_parse(const uint8_t *buf, size_t len, struct ebf_event_hdr *h);

static inline int ebf_present_test(const uint64_t p[2], unsigned s)
{
    return (int)((p[s >> 6] >> (s & 63)) & 1u);
}

static inline void ebf_present_set(uint64_t p[2], unsigned s)
{
    p[s >> 6] |= (uint64_t)1 << (s & 63);
}

static inline unsigned ebf_present_count(const uint64_t p[2])
{
    return (unsigned)(__builtin_popcountll(p[0]) + __builtin_popcountll(p[1]));
}

/* --- Credit/ack frames ------------------------------------------------ */

/* Bytes of a credit frame (without encapsulation) with n_acks acks. */
static inline size_t ebf_credit_len(unsigned n_acks)
{
    return EBF_CREDIT_HLEN + (size_t)n_acks * EBF_ACK_LEN;
}

/* Write a credit frame: header and h->n_acks acks from acks. */
void ebf_credit_write(uint8_t *buf, const struct ebf_credit_hdr *h,
                      const struct ebf_ack *acks);

/* Parse a credit frame; up to EBF_MAX_ACKS acks are copied to acks, which
 * must hold EBF_MAX_ACKS. Checks n_acks against len and the limit, and that
 * each decision is known. */
enum ebf_reason ebf_credit_parse(const uint8_t *buf, size_t len,
                                 struct ebf_credit_hdr *h, struct ebf_ack *acks);

/* --- Throttle frames ------------------------------------------------- */

/* The timing both ends keep: while it holds a throttle, an SFC repeats "on"
 * this often; a readout lets an "on" go this long after it arrived unless
 * it was refreshed (readout/ro_throttle.h). */
#define EBF_THROTTLE_REFRESH_NS 50000000ull     /* 50 ms */
#define EBF_THROTTLE_HOLD_NS 500000000ull       /* 500 ms */

/* Write a throttle frame (EBF_THROTTLE_LEN bytes, without encapsulation). */
void ebf_throttle_write(uint8_t *buf, const struct ebf_throttle_hdr *h);

/* Parse a throttle frame: version, type, length, on is 0 or 1, reserved
 * bytes 0 (bad_field). */
enum ebf_reason ebf_throttle_parse(const uint8_t *buf, size_t len, struct ebf_throttle_hdr *h);

#endif /* EBF_PROTO_H */
