/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_counters.h - counter tables (name, offset, kind, help) and the walker that lists them. */
#ifndef EBF_COUNTERS_H
#define EBF_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_hist.h"
#include "ebf_idset.h"
#include "ebf_metrics.h"

/*
 * A stats struct is described once, by a table of descriptors: the metric's
 * dotted name, where its value lies (offsetof), its kind, its label and its
 * help text, in the manner of DPDK's eth_dev_stats_strings[]. The metric
 * list (snapshots, stats files), the Prometheus names and help, and the run
 * summary are all made from these tables; no counter name is written twice.
 *
 * A daemon writes its table as an X-macro of entries
 *     X(ID, SHAPE, "name", field, (args), flags, "help")
 * and expands it with EBF_COUNTER_DESC(struct type) into an array indexed by
 * an enum of the IDs (so code can name an entry without its string):
 *   SHAPE  args                     what it describes
 *   C      ()                       a counter
 *   G      ()                       a gauge
 *   CL     (label, value)           a counter with a fixed label
 *   GL     (label, value)           a gauge with a fixed label
 *   CA     (label, first, label_of) a counter per array entry from first on,
 *                                   labelled label_of(i), or i when NULL
 *   CN     (label, label_of, count) a counter per array entry below the
 *                                   uint16_t field count (capped at the size)
 *   GN     (label, label_of, count) the same for gauges
 *   GMAX   ()                       a gauge: index of the largest entry of
 *                                   a uint64_t array, -1 when all are 0
 *   H      ()                       a histogram (struct ebf_hist)
 *   I      ()                       a ledger id record (struct ebf_idset)
 * The field's C type (uint64_t, uint32_t, uint16_t, uint8_t, int, double,
 * struct ebf_hist, struct ebf_idset) is found by the compiler; another type
 * does not compile. DPDK-free; tables are constant, any thread may walk them.
 */

enum ebf_counter_type {
    EBF_CT_U64,
    EBF_CT_U32,
    EBF_CT_U16,
    EBF_CT_U8,
    EBF_CT_INT,
    EBF_CT_DOUBLE,
    EBF_CT_HIST,
    EBF_CT_IDSET,
};

enum ebf_counter_shape {
    EBF_CS_SCALAR,               /* one value, label fixed or none */
    EBF_CS_ARRAY,                /* entries [first, n) */
    EBF_CS_COUNTED,              /* entries [0, min(count, n)) */
    EBF_CS_ARGMAX,               /* index of the largest entry, or -1 */
};

/* Flags of an entry. */
#define EBF_CF_SKIP0 0x1u        /* array entries that are 0 are left out */
#define EBF_CF_SUM 0x2u          /* shown in the run summary (text and JSON) */
#define EBF_CF_RUN 0x4u          /* identifies or times the run (digests, id
                                  * range, clock bounds, ns totals): in the
                                  * stats file, not exported to Prometheus */

struct ebf_counter {
    const char *name;            /* dotted metric name: "rx.reject" */
    const char *help;            /* one sentence, for Prometheus # HELP */
    const char *label;           /* label name, NULL when none */
    const char *label_value;     /* a scalar's fixed label value */
    const char *(*label_of)(unsigned i);    /* arrays: value of entry i; NULL: i */
    size_t off;                  /* the value, or an array's first entry */
    size_t count_off;            /* EBF_CS_COUNTED: the uint16_t count */
    uint16_t n;                  /* array entries (1 for a scalar) */
    uint16_t first;              /* EBF_CS_ARRAY: the first entry listed */
    uint8_t kind;                /* enum ebf_metric_kind */
    uint8_t type;                /* enum ebf_counter_type */
    uint8_t shape;               /* enum ebf_counter_shape */
    uint8_t flags;               /* EBF_CF_* */
};

/* A described struct: its entries, in the order they are listed. */
struct ebf_counter_table {
    const char *what;            /* "sfc", "port", ... */
    const struct ebf_counter *c;
    unsigned n;
};

#define EBF_COUNTER_TABLE(what_, array_)                                                           \
    {.what = (what_), .c = (array_), .n = sizeof(array_) / sizeof((array_)[0])}

/*
 * Append to ms one metric per value that t describes in the struct at base
 * (histograms point into it: base must outlive ms). A full list sets
 * ms->overflow, as ebf_metrics does.
 */
void ebf_counters_metrics(const struct ebf_counter_table *t, const void *base,
                          struct ebf_metrics *ms);

/* The same with every entry labelled label=value: for tables of unlabelled
 * entries that describe one of several like structs (a port of several). */
void ebf_counters_metrics_l(const struct ebf_counter_table *t, const void *base,
                            const char *label, const char *value, struct ebf_metrics *ms);

/* The entry of t that makes metric name (an id record "ledger.acked"
 * makes "ledger.acked.count", ".id_sum" and ".hash_sum"), or NULL. */
const struct ebf_counter *ebf_counters_find(const struct ebf_counter_table *t, const char *name);

/* The entry called name in the first table of the NULL-terminated list that
 * has one, or NULL. */
const struct ebf_counter *ebf_counters_find_in(const struct ebf_counter_table *const *tables,
                                               const char *name);

/* name with every character outside [a-zA-Z0-9_] as '_' ("rx.reject" ->
 * "rx_reject"): the key of the summary's JSON and the Prometheus base name. */
void ebf_counter_key(char *out, size_t len, const char *name);

/* --- building descriptors (used by EBF_COUNTER_DESC) ------------------------- */

#define EBF_CTR_FIELD_(T, f) (((T *)0)->f)
#define EBF_CTR_TYPE_(x)                                                                           \
    _Generic((x),                                                                                  \
        uint64_t: EBF_CT_U64,                                                                      \
        uint32_t: EBF_CT_U32,                                                                      \
        uint16_t: EBF_CT_U16,                                                                      \
        uint8_t: EBF_CT_U8,                                                                        \
        int: EBF_CT_INT,                                                                           \
        double: EBF_CT_DOUBLE,                                                                     \
        struct ebf_hist: EBF_CT_HIST,                                                              \
        struct ebf_idset: EBF_CT_IDSET)
#define EBF_CTR_NELEM_(T, f)                                                                       \
    ((uint16_t)(sizeof(EBF_CTR_FIELD_(T, f)) / sizeof(EBF_CTR_FIELD_(T, f)[0])))
/* offsetof a uint16_t count field; another type does not compile. */
#define EBF_CTR_COUNT_OFF_(T, f)                                                                   \
    (offsetof(T, f) + 0 * sizeof(char[_Generic(EBF_CTR_FIELD_(T, f), uint16_t: 1)]))

#define EBF_CTR_BASE_(T, name_, field, kind_, flags_, help_)                                       \
    .name = (name_), .help = (help_), .off = offsetof(T, field), .kind = (kind_),                  \
    .flags = (flags_)

#define EBF_CTR_SCALAR_(T, name_, field, kind_, flags_, help_)                                     \
    {EBF_CTR_BASE_(T, name_, field, kind_, flags_, help_), .n = 1,                                 \
     .type = EBF_CTR_TYPE_(EBF_CTR_FIELD_(T, field)), .shape = EBF_CS_SCALAR}
#define EBF_CTR_FIXED_L_(l, v) .label = (l), .label_value = (v)
#define EBF_CTR_ARRAY_L_(l, f, fn) .label = (l), .first = (f), .label_of = (fn)
#define EBF_CTR_COUNTED_L_(l, fn, cnt) .label = (l), .label_of = (fn)
#define EBF_CTR_COUNT_(l, fn, cnt) cnt
#define EBF_CTR_LISTED_(T, name_, field, kind_, shape_, flags_, help_)                             \
    EBF_CTR_BASE_(T, name_, field, kind_, flags_, help_), .n = EBF_CTR_NELEM_(T, field),           \
    .type = EBF_CTR_TYPE_(EBF_CTR_FIELD_(T, field)[0]), .shape = (shape_)

#define EBF_CTR_C(T, name_, field, args, flags_, help_)                                            \
    EBF_CTR_SCALAR_(T, name_, field, EBF_M_COUNTER, flags_, help_)
#define EBF_CTR_G(T, name_, field, args, flags_, help_)                                            \
    EBF_CTR_SCALAR_(T, name_, field, EBF_M_GAUGE, flags_, help_)
#define EBF_CTR_H(T, name_, field, args, flags_, help_)                                            \
    EBF_CTR_SCALAR_(T, name_, field, EBF_M_HIST, flags_, help_)
#define EBF_CTR_I(T, name_, field, args, flags_, help_)                                            \
    EBF_CTR_SCALAR_(T, name_, field, EBF_M_COUNTER, flags_, help_)
#define EBF_CTR_CL(T, name_, field, args, flags_, help_)                                           \
    {EBF_CTR_BASE_(T, name_, field, EBF_M_COUNTER, flags_, help_), .n = 1,                         \
     .type = EBF_CTR_TYPE_(EBF_CTR_FIELD_(T, field)), .shape = EBF_CS_SCALAR,                      \
     EBF_CTR_FIXED_L_ args}
#define EBF_CTR_GL(T, name_, field, args, flags_, help_)                                           \
    {EBF_CTR_BASE_(T, name_, field, EBF_M_GAUGE, flags_, help_), .n = 1,                           \
     .type = EBF_CTR_TYPE_(EBF_CTR_FIELD_(T, field)), .shape = EBF_CS_SCALAR,                      \
     EBF_CTR_FIXED_L_ args}
#define EBF_CTR_CA(T, name_, field, args, flags_, help_)                                           \
    {EBF_CTR_LISTED_(T, name_, field, EBF_M_COUNTER, EBF_CS_ARRAY, flags_, help_),                 \
     EBF_CTR_ARRAY_L_ args}
#define EBF_CTR_CN(T, name_, field, args, flags_, help_)                                           \
    {EBF_CTR_LISTED_(T, name_, field, EBF_M_COUNTER, EBF_CS_COUNTED, flags_, help_),               \
     EBF_CTR_COUNTED_L_ args,                                                                      \
     .count_off = EBF_CTR_COUNT_OFF_(T, EBF_CTR_COUNT_ args)}
#define EBF_CTR_GN(T, name_, field, args, flags_, help_)                                           \
    {EBF_CTR_LISTED_(T, name_, field, EBF_M_GAUGE, EBF_CS_COUNTED, flags_, help_),                 \
     EBF_CTR_COUNTED_L_ args,                                                                      \
     .count_off = EBF_CTR_COUNT_OFF_(T, EBF_CTR_COUNT_ args)}
#define EBF_CTR_GMAX(T, name_, field, args, flags_, help_)                                         \
    {EBF_CTR_LISTED_(T, name_, field, EBF_M_GAUGE, EBF_CS_ARGMAX, flags_, help_)}

/* X-macro expander: [PREFIX_ID] = descriptor, for an array indexed by the IDs. */
#define EBF_COUNTER_ENTRY(T, id, shape, name_, field, args, flags_, help_)                         \
    [id] = EBF_CTR_##shape(T, name_, field, args, flags_, help_),

#endif /* EBF_COUNTERS_H */
