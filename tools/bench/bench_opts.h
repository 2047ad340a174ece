/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_opts.h - the options of `ebfarm bench`, parsed and checked. */
#ifndef BENCH_OPTS_H
#define BENCH_OPTS_H

#include <stddef.h>

enum bench_format {
    BENCH_OUT_TABLE = 0,
    BENCH_OUT_JSON,
    BENCH_OUT_CSV,
};

struct bench_opts {
    enum bench_format format;
    int quick;                   /* shorter runs: the whole bench within 2 minutes */
    unsigned pairs;              /* subject/reference pairs per result, 5..100 */
    unsigned frag_size;          /* fragment payload bytes, 64..1400 (one frame each) */
    unsigned only;               /* bit per BENCH_CASE_*, 0: all */
    int sweeps;                  /* 1: the capacity sweeps too (with sfc_capacity; --no-sweeps) */
    const char *svg_dir;         /* --svg DIR: one SVG figure per sweep in DIR, or NULL */
    const char *huge_dir;        /* --huge-dir DIR: the in-process rigs on the hugepages
                                    of the hugetlbfs at DIR; NULL: --no-huge (4 KiB pages) */
    int help;
};

#define BENCH_PAIRS_MIN 5
#define BENCH_PAIRS_MAX 100
#define BENCH_FRAG_MIN 64
#define BENCH_FRAG_MAX 1400

/* The cases, by the name --only takes. */
#define BENCH_FOREACH_CASE(X)                                                          \
    X(READOUT_TX, "readout_tx", "readout TX rate against dpdk-testpmd txonly")         \
    X(NODE_VERIFY, "node_verify", "node piece verification against a plain CRC32C pass") \
    X(SFC_CYCLES, "sfc_cycles", "SFC busy cycles per frame against dpdk-testpmd io-forward") \
    X(SFC_CAPACITY, "sfc_capacity", "SFC frames per busy second in-process (--verify full) against a CRC32C pass, and its sweeps") \
    X(SFC_SAMPLED, "sfc_sampled", "the same with --verify sampled against a header-parsing forward") \
    X(SFC_WORKERS, "sfc_workers", "SFC of 2 workers against 1: frames per wall second in-process") \
    X(LATENCY, "latency", "end-to-end p50/p99 at 10,000 events/s, spinning against backoff")

enum bench_case {
#define BENCH_CASE_ENUM(id, name, help) BENCH_CASE_##id,
    BENCH_FOREACH_CASE(BENCH_CASE_ENUM)
#undef BENCH_CASE_ENUM
    BENCH_CASE_MAX
};

/* Parse argv (argv[0] is "bench"). Returns 0, or -1 with a message naming
 * the option, the value and what is allowed in err. */
int bench_opts_parse(struct bench_opts *o, int argc, char **argv, char *err, size_t len);

/* The name of case c ("readout_tx" ...): its --only value and its result's name. */
const char *bench_case_name(enum bench_case c);

/* Whether case c is to run: every case without --only, but latency not
 * with --quick unless --only names it. */
int bench_opts_wants(const struct bench_opts *o, enum bench_case c);

/* The usage text. */
extern const char bench_usage[];

#endif /* BENCH_OPTS_H */
