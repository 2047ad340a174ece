/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_args.h - the daemons' command line: one option table, the shared options, usage. */
#ifndef EBF_ARGS_H
#define EBF_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ebf_idle.h"
#include "ebf_param.h"

/*
 * A daemon's command line is "[EAL options] -- [options]". Its options are
 * two tables: the shared ones (the same spelling on every daemon, values in
 * struct ebf_common_opts) and the daemon's own (struct ebf_arg entries that
 * point at where each value goes). Both are parsed, checked and listed in
 * the usage by the code here, which needs no EAL: main() parses before EAL
 * starts, so bad options, --help and --version leave no runtime directory.
 *
 * Threads: main only (getopt's state is global).
 */

enum ebf_arg_kind {
    EBF_ARG_STR,                 /* const char *: the value itself */
    EBF_ARG_FLAG,                /* int: set to 1; takes no value */
    EBF_ARG_U16,                 /* uint16_t in [min, max] */
    EBF_ARG_U32,                 /* uint32_t in [min, max] */
    EBF_ARG_U64,                 /* uint64_t in [min, max] */
    EBF_ARG_DOUBLE,              /* double in [dmin, dmax] */
    EBF_ARG_MAC,                 /* uint8_t[6] */
    EBF_ARG_IPV4,                /* uint32_t, host order */
    EBF_ARG_IDLE,                /* enum ebf_idle_mode: spin or backoff */
    EBF_ARG_FN,                  /* fn(dst, value, err, len) */
    EBF_ARG_PARAM,               /* a shared parameter (ebf_param.h): its option name,
                                  * type and range come from param */
};

/* One option. */
struct ebf_arg {
    const char *name;            /* without the leading "--" */
    enum ebf_arg_kind kind;
    void *dst;                   /* where the value goes */
    uint64_t min, max;           /* integer kinds */
    double dmin, dmax;           /* EBF_ARG_DOUBLE */
    /* EBF_ARG_FN: parse value into dst; 0, or -EINVAL with err saying what
     * is wrong with the value (the option's name is added in front). */
    int (*fn)(void *dst, const char *value, char *err, size_t len);
    const struct ebf_param_def *param;  /* EBF_ARG_PARAM */
    int *seen;                   /* set to 1 when given; may be NULL */
    int required;                /* refused when not given */
    const char *meta;            /* the value in the usage: "N", "MAC" */
    const char *help;            /* the usage text; '\n' starts a new line */
};

/* Table entries. */
#define EBF_ARG_INT(k, n, d, lo, hi, m, h) \
    {.name = (n), .kind = (k), .dst = (d), .min = (lo), .max = (hi), .meta = (m), .help = (h)}
#define EBF_ARG_NUM(n, d, lo, hi, m, h) \
    {.name = (n), .kind = EBF_ARG_DOUBLE, .dst = (d), .dmin = (lo), .dmax = (hi), .meta = (m), \
     .help = (h)}
#define EBF_ARG_VAL(k, n, d, m, h) {.name = (n), .kind = (k), .dst = (d), .meta = (m), .help = (h)}
#define EBF_ARG_CALL(n, f, d, m, h) \
    {.name = (n), .kind = EBF_ARG_FN, .fn = (f), .dst = (d), .meta = (m), .help = (h)}
/* The shared parameter EBF_P_<id>: dst must have its type (uint16_t for
 * EBF_PT_U16, ..., double). */
#define EBF_ARG_PARAM(id, d, m, h) \
    {.kind = EBF_ARG_PARAM, .param = EBF_PARAM(id), .dst = (d), .meta = (m), .help = (h)}

/* The options every daemon takes. Set the daemon's defaults, then parse
 * (ebf_args_parse sets every shared parameter to the table's default
 * first: a daemon does not write those). */
struct ebf_common_opts {
    const char *port;            /* --port NAME: the data port (required) */
    uint8_t mac[6];              /* --mac MAC: ours on that port */
    int have_mac;                /* else: the port's own */
    uint64_t link_timeout_ms;    /* --link-timeout MS; 0: do not wait for the link */
    uint16_t mtu;                /* --mtu N: of every port (EBF_MTU_MIN..EBF_MTU_MAX) */
    enum ebf_idle_mode idle;     /* --idle spin|backoff */
    const char *control;         /* --control EP: run control; NULL: standalone */
    const char *metrics;         /* --metrics EP: snapshots; NULL: none */
    double period_ms;            /* --metrics-period-ms T */
    const char *curve_keys;      /* --curve-keys DIR: CURVE on tcp:// endpoints */
    int insecure;                /* --insecure: tcp:// without keys allowed */
    const char *stats;           /* --stats FILE: final counters at exit */
    const char *name;            /* --name NAME: instance name; NULL: the component */
};

/* A daemon's command line. */
struct ebf_cmdline {
    const char *component;       /* "sfc": the program is ebfarm-sfc */
    const char *synopsis;        /* the options after "--" in the usage line */
    const char *port_help;       /* what --port is on this daemon */
    const struct ebf_arg *own;   /* the daemon's own options */
    size_t n_own;
    /* Optional: the checks across options, once all are in; 0, or -EINVAL
     * with err saying what is wrong and what to give instead. */
    int (*check)(char *err, size_t len);
    struct ebf_common_opts common;
};

/* The defaults of the shared options: link timeout 10000 ms, idle spin,
 * MTU and metrics period from the parameter table, nothing else set. */
void ebf_common_defaults(struct ebf_common_opts *o);

enum {
    EBF_ARGS_HELP = 1,           /* --help was given */
    EBF_ARGS_VERSION = 2,        /* --version was given */
};

/*
 * Parse the daemon's options: argv[0] is the program, argv[1..argc) the
 * options after "--". Returns 0, EBF_ARGS_HELP or EBF_ARGS_VERSION (as soon
 * as seen), or -EINVAL with err naming the option, the value and what is
 * allowed, e.g.
 *   option '--sources': "0" is not an integer in 1..64
 *   unknown option '--rx-port' (see --help)
 * then cl->check's. Values parsed before a refusal are kept. Every shared
 * parameter (EBF_ARG_PARAM) with a default starts from it.
 */
int ebf_args_parse(struct ebf_cmdline *cl, int argc, char **argv, char *err, size_t len);

/* EBF_ARGS_HELP or EBF_ARGS_VERSION when argv holds "--help" or
 * "--version" anywhere (or "-h" before "--"), else 0: for main(), before
 * EAL would act on (or refuse) them. */
int ebf_args_early(int argc, char **argv);

/* The usage; defaults: a shared parameter's from the table (" (32)" after
 * its help), the other shared options' from cl->common. */
void ebf_args_usage(const struct ebf_cmdline *cl, FILE *f);

/* "ebfarm-sfc 0.1.0" (the project's version). */
void ebf_args_version(const struct ebf_cmdline *cl, FILE *f);

#endif /* EBF_ARGS_H */
