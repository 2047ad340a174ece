/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_opts.c - the options of `ebfarm bench`, parsed and checked. */
#include "bench_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char bench_usage[] =
    "usage: ebfarm bench [options]\n"
    "Measures ebfarm against a reference run on the same virtual device and\n"
    "frame size, alternating the two run after run (docs/performance.md).\n"
    "  --quick          shorter runs: the whole bench within 2 minutes\n"
    "  --pairs N        subject/reference pairs per result (5..100, default 5)\n"
    "  --frag-size N    fragment payload bytes (64..1400, default 1024)\n"
    "  --only CASE      run one case (repeatable): readout_tx, node_verify,\n"
    "                   sfc_cycles, sfc_capacity, sfc_sampled, sfc_workers,\n"
    "                   latency (not in --quick unless named here)\n"
    "  --no-sweeps      leave out the sweeps of sfc_capacity (fragment sizes,\n"
    "                   sources, workers)\n"
    "  --svg DIR        write one SVG figure per sweep into DIR\n"
    "  --huge-dir DIR   run the in-process rigs (sfc_capacity, sfc_sampled,\n"
    "                   sfc_workers, sweeps) on the hugepages of the hugetlbfs\n"
    "                   mounted at DIR instead of 4 KiB pages\n"
    "  --json           one JSON object on stdout\n"
    "  --csv            CSV on stdout\n"
    "  --help           this text\n";

static const char *case_name[] = {
#define BENCH_CASE_NAME(id, name, help) name,
    BENCH_FOREACH_CASE(BENCH_CASE_NAME)
#undef BENCH_CASE_NAME
};

static int parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out,
                      char *err, size_t len)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!s[0] || *end || errno || s[0] == '-' || v < lo || v > hi) {
        snprintf(err, len, "bench: option '%s': '%s' is not an integer in %u..%u", opt, s, lo,
                 hi);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int parse_case(const char *s, unsigned *only, char *err, size_t len)
{
    for (unsigned c = 0; c < BENCH_CASE_MAX; c++)
        if (strcmp(s, case_name[c]) == 0) {
            *only |= 1u << c;
            return 0;
        }
    snprintf(err, len,
             "bench: option '--only': unknown case '%s' (readout_tx, node_verify, sfc_cycles, "
             "sfc_capacity, sfc_sampled, sfc_workers, latency)", s);
    return -1;
}

/* One option that takes a value: argv[*i] is the option, argv[*i + 1] its value. */
static int parse_valued(struct bench_opts *o, int argc, char **argv, int *i, char *err,
                        size_t len)
{
    const char *opt = argv[*i];
    if (*i + 1 >= argc) {
        snprintf(err, len, "bench: option '%s' needs a value", opt);
        return -1;
    }
    const char *v = argv[++*i];
    if (strcmp(opt, "--pairs") == 0)
        return parse_uint(opt, v, BENCH_PAIRS_MIN, BENCH_PAIRS_MAX, &o->pairs, err, len);
    if (strcmp(opt, "--svg") == 0) {
        o->svg_dir = v;
        return 0;
    }
    if (strcmp(opt, "--huge-dir") == 0) {
        o->huge_dir = v;
        return 0;
    }
    if (strcmp(opt, "--frag-size") == 0)
        return parse_uint(opt, v, BENCH_FRAG_MIN, BENCH_FRAG_MAX, &o->frag_size, err, len);
    return parse_case(v, &o->only, err, len);
}

int bench_opts_parse(struct bench_opts *o, int argc, char **argv, char *err, size_t len)
{
    memset(o, 0, sizeof(*o));
    o->pairs = BENCH_PAIRS_MIN;
    o->frag_size = 1024;
    o->sweeps = 1;
    int json = 0, csv = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0)
            o->quick = 1;
        else if (strcmp(a, "--json") == 0)
            json = 1;
        else if (strcmp(a, "--csv") == 0)
            csv = 1;
        else if (strcmp(a, "--no-sweeps") == 0)
            o->sweeps = 0;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            o->help = 1;
        else if (strcmp(a, "--pairs") == 0 || strcmp(a, "--frag-size") == 0 ||
                 strcmp(a, "--only") == 0 || strcmp(a, "--svg") == 0 ||
                 strcmp(a, "--huge-dir") == 0) {
            if (parse_valued(o, argc, argv, &i, err, len) != 0)
                return -1;
        } else {
            snprintf(err, len, "bench: unknown option '%s' (--help lists them)", a);
            return -1;
        }
    }
    if (json && csv) {
        snprintf(err, len, "bench: --json and --csv exclude each other; give one");
        return -1;
    }
    o->format = json ? BENCH_OUT_JSON : csv ? BENCH_OUT_CSV : BENCH_OUT_TABLE;
    return 0;
}

const char *bench_case_name(enum bench_case c)
{
    return c < BENCH_CASE_MAX ? case_name[c] : "?";
}

int bench_opts_wants(const struct bench_opts *o, enum bench_case c)
{
    if (o->only == 0)
        return !(c == BENCH_CASE_LATENCY && o->quick);
    return (o->only & (1u << c)) != 0;
}
