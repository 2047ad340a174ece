/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_args.c - the daemons' option tables: parse with exact refusals, list in the usage. */
#include "ebf_args.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "ebf_util.h"

#ifndef EBF_VERSION
#define EBF_VERSION "unknown"
#endif

#define ARGS_MAX 96              /* shared and own options together */
#define ARG_VAL0 256             /* getopt values: ARG_VAL0 + index in the table */
#define USAGE_COL 24             /* where the help text starts */
#define COMMON_MAX 14            /* entries of common_table */

void ebf_common_defaults(struct ebf_common_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->link_timeout_ms = 10000;
    o->idle = EBF_IDLE_SPIN;
    ebf_param_default(EBF_PARAM(METRICS_PERIOD_MS), &o->period_ms);
    ebf_param_default(EBF_PARAM(MTU), &o->mtu);
}

/*
 * The shared options, pointing into cl->common, then --help and --version
 * (flags without dst). Returns the count written to t (at most COMMON_MAX).
 */
static size_t common_table(struct ebf_cmdline *cl, struct ebf_arg *t)
{
    struct ebf_common_opts *o = &cl->common;
    const struct ebf_arg c[] = {
        {.name = "port", .kind = EBF_ARG_STR, .dst = &o->port, .required = 1, .meta = "NAME",
         .help = cl->port_help ? cl->port_help : "the data port: a DPDK device name"},
        {.name = "mac", .kind = EBF_ARG_MAC, .dst = o->mac, .seen = &o->have_mac, .meta = "MAC",
         .help = "our MAC on --port (default: the port's)"},
        EBF_ARG_INT(EBF_ARG_U64, "link-timeout", &o->link_timeout_ms, 0, 3600000, "MS",
                    "wait for link up at most MS; 0: do not wait"),
        EBF_ARG_PARAM(MTU, &o->mtu, "N", "the MTU of every port: frames of at most N + 18 bytes"),
        EBF_ARG_VAL(EBF_ARG_IDLE, "idle", &o->idle, "spin|backoff",
                    "idle policy: spin (production) or back off"),
        EBF_ARG_VAL(EBF_ARG_STR, "control", &o->control, "EP",
                    "run control: ZeroMQ REP endpoint (tcp:// or ipc://);\n"
                    "the daemon then waits for configure and start. Without\n"
                    "it, run 1 starts at once and SIGINT stops it"),
        EBF_ARG_VAL(EBF_ARG_STR, "metrics", &o->metrics, "EP",
                    "publish metrics snapshots on this ZeroMQ PUB endpoint"),
        EBF_ARG_VAL(EBF_ARG_STR, "curve-keys", &o->curve_keys, "DIR",
                    "CURVE keys of tcp:// endpoints (ebfarm keygen DIR): the\n"
                    "server keypair and the authorised clients/*.pub"),
        EBF_ARG_VAL(EBF_ARG_FLAG, "insecure", &o->insecure, NULL,
                    "bind tcp:// endpoints without keys: anyone who reaches\n"
                    "them controls the daemon and reads its metrics"),
        EBF_ARG_PARAM(METRICS_PERIOD_MS, &o->period_ms, "T", "snapshot period"),
        EBF_ARG_VAL(EBF_ARG_STR, "stats", &o->stats, "FILE", "write final counters to FILE at exit"),
        EBF_ARG_VAL(EBF_ARG_STR, "name", &o->name, "NAME",
                    "instance name in status, metrics and logs"),
        EBF_ARG_VAL(EBF_ARG_FLAG, "help", NULL, NULL, "this text, then exit"),
        EBF_ARG_VAL(EBF_ARG_FLAG, "version", NULL, NULL, "the version, then exit"),
    };

    memcpy(t, c, sizeof(c));
    return sizeof(c) / sizeof(c[0]);
}

/* An EBF_ARG_PARAM entry as the plain entry it stands for: the option's
 * name, kind and range from the shared definition. */
static struct ebf_arg resolve(const struct ebf_arg *a)
{
    static const enum ebf_arg_kind kinds[] = {
        [EBF_PT_U16] = EBF_ARG_U16, [EBF_PT_U32] = EBF_ARG_U32,
        [EBF_PT_U64] = EBF_ARG_U64, [EBF_PT_DOUBLE] = EBF_ARG_DOUBLE,
    };
    struct ebf_arg r = *a;
    const struct ebf_param_def *p = a->param;

    if (a->kind != EBF_ARG_PARAM)
        return r;
    r.name = p->opt;
    r.kind = kinds[p->type];
    r.min = p->min;
    r.max = p->max;
    r.dmin = p->dmin;
    r.dmax = p->dmax;
    return r;
}

/* The daemon's own options, then the shared ones; the count, or 0 when
 * there are too many. */
static size_t full_table(struct ebf_cmdline *cl, struct ebf_arg *t)
{
    if (cl->n_own > ARGS_MAX - COMMON_MAX)
        return 0;
    for (size_t i = 0; i < cl->n_own; i++)
        t[i] = resolve(&cl->own[i]);
    size_t n = cl->n_own + common_table(cl, t + cl->n_own);
    for (size_t i = cl->n_own; i < n; i++)
        t[i] = resolve(&t[i]);
    return n;
}

/* Store an integer of a's width; its range was checked. */
static void store_int(const struct ebf_arg *a, uint64_t v)
{
    if (a->kind == EBF_ARG_U16)
        *(uint16_t *)a->dst = (uint16_t)v;
    else if (a->kind == EBF_ARG_U32)
        *(uint32_t *)a->dst = (uint32_t)v;
    else
        *(uint64_t *)a->dst = v;
}

/* Parse val into a's destination; 0, or -EINVAL with what (without the
 * option's name) written to why. */
static int set_value(const struct ebf_arg *a, const char *val, char *why, size_t len)
{
    uint64_t v;

    switch (a->kind) {
    case EBF_ARG_STR:
        *(const char **)a->dst = val;
        return 0;
    case EBF_ARG_FLAG:
        *(int *)a->dst = 1;
        return 0;
    case EBF_ARG_U16:
    case EBF_ARG_U32:
    case EBF_ARG_U64:
        if (ebf_parse_u64(val, a->min, a->max, &v) == 0)
            return store_int(a, v), 0;
        snprintf(why, len, "\"%s\" %s in %" PRIu64 "..%" PRIu64, val, ebf_parse_why(val, 0),
                 a->min, a->max);
        return -EINVAL;
    case EBF_ARG_DOUBLE:
        if (ebf_parse_double(val, a->dmin, a->dmax, a->dst) == 0)
            return 0;
        snprintf(why, len, "\"%s\" %s in %g..%g", val, ebf_parse_why(val, 1), a->dmin, a->dmax);
        return -EINVAL;
    case EBF_ARG_MAC:
        if (ebf_parse_mac(val, a->dst) == 0)
            return 0;
        snprintf(why, len, "\"%s\" is not a MAC address (aa:bb:cc:dd:ee:ff)", val);
        return -EINVAL;
    case EBF_ARG_IPV4:
        if (ebf_parse_ipv4(val, a->dst) == 0)
            return 0;
        snprintf(why, len, "\"%s\" is not an IPv4 address", val);
        return -EINVAL;
    case EBF_ARG_IDLE:
        if (ebf_idle_parse(val, a->dst) == 0)
            return 0;
        snprintf(why, len, "\"%s\" is not spin or backoff", val);
        return -EINVAL;
    case EBF_ARG_FN:
        why[0] = '\0';
        return a->fn(a->dst, val, why, len) ? -EINVAL : 0;
    case EBF_ARG_PARAM:          /* resolved by full_table */
        break;
    }
    return -EINVAL;
}

/* What getopt refused ('?' or ':'), as a message in err. */
static int refusal(int ch, const struct ebf_arg *t, char **argv, char *err, size_t len)
{
    if (ch == ':') {
        snprintf(err, len, "option '--%s' needs a value", t[optopt - ARG_VAL0].name);
    } else if (optopt >= ARG_VAL0) {
        snprintf(err, len, "option '--%s' takes no value", t[optopt - ARG_VAL0].name);
    } else {
        const char *tok = optopt ? NULL : argv[optind - 1];
        if (tok) {
            size_t n = strcspn(tok, "=");
            snprintf(err, len, "unknown option '%.*s' (see --help)", (int)n, tok);
        } else {
            snprintf(err, len, "unknown option '-%c' (see --help)", optopt);
        }
    }
    return -EINVAL;
}

/* After the last option: stray arguments and required options. */
static int check_done(const struct ebf_arg *t, size_t n, const uint8_t *given, int argc,
                      char **argv, char *err, size_t len)
{
    if (optind < argc) {
        snprintf(err, len, "unexpected argument '%s'", argv[optind]);
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++)
        if (t[i].required && !given[i]) {
            snprintf(err, len, "option '--%s' is required", t[i].name);
            return -EINVAL;
        }
    return 0;
}

int ebf_args_parse(struct ebf_cmdline *cl, int argc, char **argv, char *err, size_t len)
{
    struct ebf_arg t[ARGS_MAX];
    struct option lo[ARGS_MAX + 1];
    uint8_t given[ARGS_MAX] = {0};
    char why[384];
    size_t n = full_table(cl, t);
    int ch;

    if (n == 0) {
        snprintf(err, len, "more than %d options in the table", ARGS_MAX - COMMON_MAX);
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++)
        lo[i] = (struct option){t[i].name, t[i].kind == EBF_ARG_FLAG ? no_argument
                                                                     : required_argument,
                                NULL, ARG_VAL0 + (int)i};
    lo[n] = (struct option){0, 0, 0, 0};
    for (size_t i = 0; i < n; i++)
        if (t[i].param)
            ebf_param_default(t[i].param, t[i].dst);
    optind = 0;                  /* a full restart of getopt */
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
        if (ch == '?' || ch == ':')
            return refusal(ch, t, argv, err, len);
        const struct ebf_arg *a = &t[ch - ARG_VAL0];
        if (a->kind == EBF_ARG_FLAG && !a->dst)
            return strcmp(a->name, "help") == 0 ? EBF_ARGS_HELP : EBF_ARGS_VERSION;
        if (set_value(a, optarg, why, sizeof(why))) {
            snprintf(err, len, "option '--%s': %s", a->name, why);
            return -EINVAL;
        }
        given[ch - ARG_VAL0] = 1;
        if (a->seen)
            *a->seen = 1;
    }
    int rc = check_done(t, n, given, argc, argv, err, len);
    if (rc == 0 && cl->check && cl->check(err, len))
        return -EINVAL;
    return rc;
}

int ebf_args_early(int argc, char **argv)
{
    int eal = 1;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            eal = 0;
        else if (strcmp(argv[i], "--help") == 0 || (eal && strcmp(argv[i], "-h") == 0))
            return EBF_ARGS_HELP;
        else if (strcmp(argv[i], "--version") == 0)
            return EBF_ARGS_VERSION;
    }
    return 0;
}

/* " (32)": a shared parameter's default from the table, else the current
 * value of a shared option; "" for none. */
static void default_of(const struct ebf_arg *a, const char *component, char *buf, size_t len)
{
    buf[0] = '\0';
    if (a->param) {
        if (a->param->def[0])
            snprintf(buf, len, " (%s)", a->param->def);
    } else if (a->kind == EBF_ARG_U64)
        snprintf(buf, len, " (%" PRIu64 ")", *(const uint64_t *)a->dst);
    else if (a->kind == EBF_ARG_U16)
        snprintf(buf, len, " (%u)", *(const uint16_t *)a->dst);
    else if (a->kind == EBF_ARG_DOUBLE)
        snprintf(buf, len, " (%g)", *(const double *)a->dst);
    else if (a->kind == EBF_ARG_IDLE)
        snprintf(buf, len, " (%s)",
                 *(const enum ebf_idle_mode *)a->dst == EBF_IDLE_SPIN ? "spin" : "backoff");
    else if (a->kind == EBF_ARG_STR && strcmp(a->name, "name") == 0)
        snprintf(buf, len, " (%s)", component);
}

/* "  --name META" padded to USAGE_COL, then help with its lines indented. */
static void usage_line(FILE *f, const struct ebf_arg *a, const char *dflt)
{
    int n = fprintf(f, "  --%s%s%s", a->name, a->meta ? " " : "", a->meta ? a->meta : "");

    if (n >= USAGE_COL)
        fprintf(f, "\n%*s", USAGE_COL, "");
    else
        fprintf(f, "%*s", USAGE_COL - n, "");
    for (const char *p = a->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", USAGE_COL, "");
    }
    fprintf(f, "%s\n", dflt);
}

void ebf_args_usage(const struct ebf_cmdline *cl, FILE *f)
{
    struct ebf_cmdline copy = *cl;
    struct ebf_arg t[COMMON_MAX], own;
    char dflt[64];
    size_t n = common_table(&copy, t);

    /* --port and --mac, the daemon's own options, then the other shared ones. */
    fprintf(f, "usage: ebfarm-%s [EAL options] -- %s [options]\n", cl->component, cl->synopsis);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; i == 2 && j < cl->n_own; j++) {
            own = resolve(&cl->own[j]);
            dflt[0] = '\0';
            if (own.param)       /* the daemon's other options say theirs in their help */
                default_of(&own, cl->component, dflt, sizeof(dflt));
            usage_line(f, &own, dflt);
        }
        t[i] = resolve(&t[i]);
        if (t[i].dst)
            default_of(&t[i], cl->component, dflt, sizeof(dflt));
        else
            dflt[0] = '\0';
        usage_line(f, &t[i], dflt);
    }
}

void ebf_args_version(const struct ebf_cmdline *cl, FILE *f)
{
    fprintf(f, "ebfarm-%s %s\n", cl->component, EBF_VERSION);
}
