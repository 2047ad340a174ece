/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_release.h - the release frame (type 5, SFC -> readout): the SFC's heartbeat and what the readouts may free (docs/protocol.md 13.2). */
#ifndef EBF_RELEASE_H
#define EBF_RELEASE_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_proto.h"

#define EBF_T_RELEASE 5                /* not yet in EBF_T_LAST: failover is an extension */
#define EBF_RELEASE_HLEN 32            /* header bytes before the records */
#define EBF_RELEASE_REC_LEN 8          /* per source: source, reserved, next_seq */
#define EBF_RELEASE_MAX_SRC 32
#define EBF_RELEASE_LEN_MAX (EBF_RELEASE_HLEN + EBF_RELEASE_MAX_SRC * EBF_RELEASE_REC_LEN)
#define EBF_RELEASE_PERIOD_NS 10000000ull    /* 10 ms between frames to a readout */
#define EBF_RELEASE_DEAD_NS 100000000ull     /* default detection bound: 10 periods */
/* The bound's range, --sfc-dead-ms of readouts and SFCs (13.4): above two
 * periods (the SFC fences at the bound less two), at most 200 ms. */
#define EBF_RELEASE_DEAD_MIN_MS 30
#define EBF_RELEASE_DEAD_MAX_MS 200

#define EBF_RELF_JOIN 0x01             /* at: from this event id on, the place is live */
#define EBF_RELF_LEAVE 0x02            /* at: from this event id on, the place is out (drain) */
#define EBF_RELF_DEAD 0x04             /* readout -> SFC notice: the readout holds the place
                                        * dead at this epoch; low: its release.low of it;
                                        * no records, at 0 (docs/protocol.md 13.4) */
#define EBF_RELF_END 0x08              /* readout -> survivor SFC, replay end: the readout's
                                        * replay of dead place `place` to this SFC is over;
                                        * low: its first event routed around the place (every
                                        * unreleased one below was replayed before); at: 1 +
                                        * the highest id it replayed to this SFC, 0 none;
                                        * records: its sources, next_seq on this link
                                        * (docs/protocol.md 13.4.1) */

struct ebf_release_src {
    uint16_t source;
    uint32_t next_seq;                 /* next fragment frame expected from source */
};

struct ebf_release_hdr {
    uint16_t place;
    uint8_t flags;                     /* EBF_RELF_* */
    uint8_t n_src;                     /* records, 0 .. EBF_RELEASE_MAX_SRC */
    uint16_t epoch;                    /* the SFC's incarnation */
    uint32_t seq;                      /* per incarnation, wrapping */
    uint64_t low;                      /* every event held undecided has an id >= low */
    uint64_t at;                       /* join or leave id; 0 without a flag */
    struct ebf_release_src src[EBF_RELEASE_MAX_SRC];
};

/* Writes h as a release frame (ebfarm bytes, no encapsulation) into buf,
 * which must hold ebf_release_len(h->n_src) bytes. Returns the bytes
 * written, or 0 when n_src is above EBF_RELEASE_MAX_SRC. */
size_t ebf_release_write(uint8_t *buf, const struct ebf_release_hdr *h);

/* The frame length of n_src records. */
static inline size_t ebf_release_len(unsigned n_src)
{
    return EBF_RELEASE_HLEN + (size_t)n_src * EBF_RELEASE_REC_LEN;
}

/* Parses a release frame of len ebfarm bytes into h, with the checks of
 * docs/protocol.md 13.2 in their order. EBF_R_OK or the reason. */
enum ebf_reason ebf_release_parse(const uint8_t *buf, size_t len, struct ebf_release_hdr *h);

/* 1 when (epoch, seq) is newer than (last_epoch, last_seq): epoch first,
 * then seq as wrapping 32-bit numbers. */
static inline int ebf_release_newer(uint16_t epoch, uint32_t seq, uint16_t last_epoch,
                                    uint32_t last_seq)
{
    if (epoch != last_epoch)
        return (int16_t)(epoch - last_epoch) > 0;
    return (int32_t)(seq - last_seq) > 0;
}

#endif
