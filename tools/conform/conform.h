/* SPDX-License-Identifier: BSD-3-Clause */
/* conform.h - a board's frames judged against docs/protocol.md: the SFC's receive rules per frame, source bindings, sequences and pacing per source, a verdict. */
#ifndef CONFORM_H
#define CONFORM_H

#include <stdint.h>
#include <stdio.h>

#include "ebf_proto.h"
#include "sfc_guard.h"

#define CONFORM_FIRST 5          /* frame numbers kept per rule */
#define CONFORM_COVER 32         /* byte ranges of a fragment kept to spot overlap */

/* The rules, in the SFC's order (docs/protocol.md, 4.3). */
enum conform_rule {
    CR_ENCAP,                    /* 2: encapsulation, version, type byte */
    CR_TYPE,                     /* 3: a fragment (1), not 2 or 3 */
    CR_HEADER,                   /* 4: the fragment header */
    CR_CRC,                      /* 5: CRC32C */
    CR_SIZE,                     /* 6: frame and piece within the MTU */
    CR_UNICAST,                  /* 7 */
    CR_DEST,                     /* 8: to the SFC's MAC (--sfc-mac) */
    CR_BINDING,                  /* 9: one MAC per source */
    CR_SEQ,                      /* 10: seq +1 per frame of a source */
    CR_FRAG_LEN,                 /* 17: one frag_len per fragment */
    CR_OVERLAP,                  /* 17: no byte of a fragment in two pieces */
    CR_COUNT
};

struct conform_rule_stats {
    uint64_t checked, deviations;
    uint64_t first[CONFORM_FIRST];   /* frame numbers (1: the capture's first) */
    uint64_t reasons[EBF_R_MAX + SFC_DROP_MAX];  /* by reason: rx.reject.*, then rx.drop.* */
};

struct conform_source {
    uint64_t frames, bytes, events, first_ns, last_ns, max_gap_ns, last_event;
    uint8_t mac[6], seen;
    uint32_t frag_len;
    uint32_t cover[CONFORM_COVER][2];   /* [off, end) of the last event's pieces */
    uint8_t n_cover;             /* ranges in cover; CONFORM_COVER + 1: too many, unchecked */
};

struct conform {
    struct sfc_judge_conf jc;
    int have_mac;                /* jc.mac given: else any unicast destination is ours */
    uint64_t frames, other, from_sfc;    /* read; not ebfarm; throttle frames (the SFC's) */
    struct conform_rule_stats rule[CR_COUNT];
    struct conform_source src[EBF_MAX_SOURCES];
    struct sfc_guard guard;      /* the SFC's sequence windows */
    struct sfc_seq_stats seq;
};

/* Ready to judge frames of a farm of n_sources (0: 128) at mtu, to mac
 * (NULL: any), udp_port. */
void conform_init(struct conform *c, uint16_t n_sources, uint16_t mtu, const uint8_t *mac,
                  uint16_t udp_port);
/* Frame number n (from 1) of len bytes at p, captured at ns. */
void conform_frame(struct conform *c, uint64_t n, const uint8_t *p, uint32_t len, uint64_t ns);
/* Passed: frames checked and no deviation. */
int conform_passed(const struct conform *c);
const char *conform_rule_name(enum conform_rule r);
/* The report: text, or one JSON object (json). */
void conform_report(const struct conform *c, FILE *out, int json);

#endif /* CONFORM_H */
