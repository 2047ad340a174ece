/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fault.h - the readout's fault plan: spec parsing, seeded decisions, counts; no DPDK. */
#ifndef RO_FAULT_H
#define RO_FAULT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ebf_idset.h"
#include "ebf_proto.h"

/*
 * The frame faults, in the order their probabilities are stacked: one draw
 * per frame picks at most one of them. X-macro: the enum, the spec keys
 * and the counter names ("fault.<counter>", readout/ro_stats.h) come from
 * this one list.
 *   X(enum suffix, spec key, counter name)
 * RO_FOREACH_FAULT_P(X, P) passes P on as a fourth argument, for an X that
 * expands to another X-macro's entry.
 */
#define RO_FOREACH_FAULT_P(X, P)                                         \
    X(DROP, "drop", "dropped", P)          /* freed, never sent */       \
    X(DUP, "dup", "duplicated", P)         /* sent twice, back to back */ \
    X(REORDER, "reorder", "reordered", P)  /* sent 1..window frames later */ \
    X(DELAY, "delay", "delayed", P)        /* sent after delay_us or delay_frames */ \
    X(CORRUPT_PAYLOAD, "corrupt_payload", "corrupted_payload", P) /* bad_checksum */ \
    X(CORRUPT_HEADER, "corrupt_header", "corrupted_header", P)    /* bad_field */
#define RO_FAULT_CALL_(n, key, ctr, X) X(n, key, ctr)
#define RO_FOREACH_FAULT(X) RO_FOREACH_FAULT_P(RO_FAULT_CALL_, X)

enum ro_fault_kind {
#define RO_FAULT_ENUM(n, key, ctr) RO_FK_##n,
    RO_FOREACH_FAULT(RO_FAULT_ENUM)
#undef RO_FAULT_ENUM
    RO_FK_MAX,
    RO_FK_NONE = RO_FK_MAX,      /* the frame goes out untouched */
};

#define RO_FAULT_WINDOW_MAX 1024     /* reorder window and delay_frames bound */
#define RO_FAULT_NO_SILENCE UINT32_MAX

/* What to do to a run's frames. ro_fault_conf_init() sets the defaults. */
struct ro_fault_conf {
    double p[RO_FK_MAX];         /* per-frame probability of each fault; sum <= 1 */
    uint32_t window;             /* reorder: released 1..window frames later (8) */
    uint32_t delay_us;           /* delay: held at least this long (1000) ... */
    uint32_t delay_frames;       /* ... or, when not 0, exactly this many frames */
    uint32_t dup_frames;         /* dup: the copy leaves this many frames after
                                  * the original (0: right after it) */
    uint64_t seed;               /* the decisions' PRNG seed (1) */
    uint32_t silence_source;     /* RO_FAULT_NO_SILENCE, or a source that goes */
    uint64_t silence_event;      /*   silent from this event id on */
    uint32_t burst_events;       /* 0, or events sent back to back ... */
    uint32_t burst_gap_us;       /*   before a pause of this long */
};

/* Exact counts of what the fault stage did to a run's frames. */
struct ro_fault_stats {
    uint64_t frames_in;          /* frames that reached the stage */
    uint64_t n[RO_FK_MAX];       /* frames per fault kind */
    uint64_t silenced_frames;    /* frames of a silenced source, freed */
    uint64_t silenced_fragments; /* the fragments they were pieces of */
    uint64_t dup_failed;         /* duplicates not made: pool empty */
    uint64_t hold_full;          /* reorders/delays not done: hold full */
    uint64_t burst_gaps;         /* pauses taken between bursts */
    uint64_t dropped_source[EBF_MAX_SOURCES];
    /* Events none of whose frames left intact (every one dropped, corrupted
     * or silenced): no SFC can know of them, so the readout accounts for
     * them in the ledger as lost, reason "withheld". */
    uint64_t withheld_events;
    uint64_t withheld_digest;    /* sum of ebf_mix64(id) over them */
    struct ebf_idset withheld;   /* their id record */
};

/* The seeded decision stream: one per run, on the transmitting lcore. */
struct ro_fault_plan {
    uint64_t state;              /* splitmix64 state */
    uint64_t thr[RO_FK_MAX];     /* cumulative thresholds on a 53-bit draw */
    uint32_t window;
    uint32_t delay_frames;
};

/* Defaults: no fault, window 8, delay 1000 us, seed 1, no silence, no bursts. */
void ro_fault_conf_init(struct ro_fault_conf *fc);

/* 1 when fc asks for anything at all (a fault, a silence or bursts). */
int ro_fault_conf_active(const struct ro_fault_conf *fc);

/*
 * Parse a spec "key=value,key=value,..." over fc (keys not given keep their
 * value). Keys: the probabilities drop, dup, reorder, delay, corrupt (the
 * same as corrupt_payload), corrupt_payload, corrupt_header, each in 0..1,
 * adding up to at most 1; window (1..1024), delay_us (0..10000000),
 * delay_frames (0..1024), dup_frames (0..1024). An empty spec is valid and changes nothing.
 * Returns 0, or -EINVAL with a message in err naming the bad key or value
 * and what is allowed; fc may then be partly updated.
 */
int ro_fault_parse(const char *spec, struct ro_fault_conf *fc, char *err, size_t errlen);

/* Parse "SOURCE@EVENT" (source 0..127) into fc's silence fields. Returns 0
 * or -EINVAL with a message in err. */
int ro_fault_parse_silence(const char *val, struct ro_fault_conf *fc, char *err,
                           size_t errlen);

/* Seed a decision stream from fc (fc must have passed ro_fault_parse). */
void ro_fault_plan_init(struct ro_fault_plan *p, const struct ro_fault_conf *fc);

/*
 * The fault for the next frame: RO_FK_NONE or a kind. *arg is the reorder
 * distance (1..window) for REORDER, delay_frames for DELAY, a 32-bit draw
 * for CORRUPT_PAYLOAD (the stage takes it modulo the piece length), else 0.
 * Deterministic: the same conf gives the same sequence. Fast path.
 */
enum ro_fault_kind ro_fault_decide(struct ro_fault_plan *p, uint32_t *arg);

/* Spec key and counter name of a kind, or "unknown". */
const char *ro_fault_key(unsigned kind);
const char *ro_fault_counter(unsigned kind);

#endif /* RO_FAULT_H */
