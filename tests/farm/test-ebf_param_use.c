/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_param_use.c - every shared parameter where it is taken: the daemons' options, configure, the farm file; the same range everywhere. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ebf_param.h"
#include "farmfile.h"
#include "node_ctl.h"
#include "ro_ctl.h"
#include "sfc_ctl.h"

/*
 * For each entry of ebf_params and each place its `use` names, the value
 * just outside the range is refused with that place's message and the
 * range of the table, and the largest value is taken. A place that `use`
 * does not name must not know the key at all: a place with a range of its
 * own would be one the table does not govern.
 */

#define OUT_MAX 8192

/* --- Values ------------------------------------------------------------------ */

/* The largest value, one above it (NULL: none), one below the smallest
 * (NULL: none, an integer of minimum 0), as text. */
struct probe {
    char max[32], above[32], below[32];
    int has_above, has_below;
};

static void probe_of(const struct ebf_param_def *d, struct probe *p)
{
    memset(p, 0, sizeof(*p));
    if (d->type == EBF_PT_DOUBLE) {
        snprintf(p->max, sizeof(p->max), "%.17g", d->dmax);
        snprintf(p->above, sizeof(p->above), "%.17g", d->dmax * 2);
        snprintf(p->below, sizeof(p->below), "%.17g", d->dmin > 0 ? d->dmin / 2 : d->dmin - 1);
        p->has_above = p->has_below = 1;
        return;
    }
    snprintf(p->max, sizeof(p->max), "%" PRIu64, d->max);
    p->has_above = d->max < UINT64_MAX;
    snprintf(p->above, sizeof(p->above), "%" PRIu64, d->max + 1);
    p->has_below = d->min > 0;
    snprintf(p->below, sizeof(p->below), "%" PRIu64, d->min - 1);
}

/* "an integer in 1..128" / "a number in 0..1e+09": the daemons' words. */
static const char *what_in(const struct ebf_param_def *d, char *buf, size_t len)
{
    if (d->type == EBF_PT_DOUBLE)
        snprintf(buf, len, "a number in %g..%g", d->dmin, d->dmax);
    else
        snprintf(buf, len, "an integer in %" PRIu64 "..%" PRIu64, d->min, d->max);
    return buf;
}

/* --- The daemons' options ------------------------------------------------- */

static const struct {
    unsigned use;
    const char *exe, *component, *required;
} daemons[] = {
    {EBF_PU_RO_OPT, "readout/ebfarm-readout", "readout", "--sfc-mac=02:eb:00:00:00:01"},
    {EBF_PU_SFC_OPT, "sfc/ebfarm-sfc", "sfc", "--node=net_null1,02:eb:00:00:02:00"},
    {EBF_PU_NODE_OPT, "node/ebfarm-node", "node", "--sfc-mac=02:eb:00:00:00:01"},
};

static char err_text[OUT_MAX];

/* Daemon k with "EAL -- --port=x REQUIRED args... [--bogus]": its exit
 * status and stderr. Options are parsed before EAL and --bogus is refused
 * when all before it were taken; without it, EAL gets eal, an option it
 * refuses before it makes anything. Nothing starts either way. */
static int run_argv(unsigned k, const char *eal, const char *const *args, int bogus)
{
    char exe[512], path[64];
    const char *argv[64];
    int n = 0;

    snprintf(exe, sizeof(exe), "%s/%s", getenv("EBFARM_BUILD_DIR"), daemons[k].exe);
    argv[n++] = exe;
    if (eal)
        argv[n++] = eal;
    argv[n++] = "--";
    argv[n++] = "--port=x";
    argv[n++] = daemons[k].required;
    for (; *args && n < 62; args++)
        argv[n++] = *args;
    if (bogus)
        argv[n++] = "--bogus";
    argv[n] = NULL;
    snprintf(path, sizeof(path), "/tmp/ebftest-param-%d.err", (int)getpid());
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 2) < 0 || dup2(nul, 1) < 0)
            _exit(127);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(err_text, 1, sizeof(err_text) - 1, f);
    err_text[got] = '\0';
    fclose(f);
    unlink(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run_opts(unsigned k, const char *const *args)
{
    return run_argv(k, NULL, args, 1);
}

/* "--opt=value" of d, into buf. */
static const char *opt_arg(const struct ebf_param_def *d, const char *value, char *buf,
                           size_t len)
{
    snprintf(buf, len, "--%s=%s", d->opt, value);
    return buf;
}

/* Daemon k refuses value for d, in the table's words, exit 2. */
static void opt_refused(unsigned k, const struct ebf_param_def *d, const char *value)
{
    char arg[96], want[512], what[96];
    const char *args[] = {opt_arg(d, value, arg, sizeof(arg)), NULL};

    ck_assert_int_eq(run_opts(k, args), 2);
    snprintf(want, sizeof(want), "%s: option '--%s': \"%s\" is not %s\n", daemons[k].component,
             d->opt, value, what_in(d, what, sizeof(what)));
    ck_assert_str_eq(err_text, want);
}

/* Daemon k takes value for d: the next option, --bogus, is the refusal. */
static void opt_taken(unsigned k, const struct ebf_param_def *d, const char *value)
{
    char arg[96], want[128];
    const char *args[] = {opt_arg(d, value, arg, sizeof(arg)), NULL};

    ck_assert_int_eq(run_opts(k, args), 2);
    snprintf(want, sizeof(want), "%s: unknown option '--bogus' (see --help)\n",
             daemons[k].component);
    ck_assert_msg(strcmp(err_text, want) == 0, "%s %s: %s", daemons[k].component, arg, err_text);
}

START_TEST(test_options)
{
    struct probe p;

    for (unsigned i = 0; i < EBF_P_COUNT; i++) {
        const struct ebf_param_def *d = &ebf_params[i];
        if (i == EBF_P_PORTS)
            continue;            /* a count of --node ports: test_ports */
        probe_of(d, &p);
        for (unsigned k = 0; k < sizeof(daemons) / sizeof(daemons[0]); k++) {
            if (!(d->use & daemons[k].use)) {
                char arg[96], want[128];
                const char *args[] = {opt_arg(d, p.max, arg, sizeof(arg)), NULL};
                ck_assert_int_eq(run_opts(k, args), 2);
                snprintf(want, sizeof(want), "%s: unknown option '--%s' (see --help)\n",
                         daemons[k].component, d->opt);
                ck_assert_msg(strcmp(err_text, want) == 0, "%s takes --%s outside the table: "
                              "%s", daemons[k].component, d->opt, err_text);
                continue;
            }
            opt_taken(k, d, p.max);
            if (p.has_above)
                opt_refused(k, d, p.above);
            if (p.has_below)
                opt_refused(k, d, p.below);
        }
    }
}
END_TEST

/* The SFC opens --port and each distinct --node port: 32 at most. With 31
 * node ports the options pass (EAL then refuses --no-such-option); with 32
 * the SFC refuses, naming the limit; nodes sharing a port count once. */
START_TEST(test_ports)
{
    const unsigned max = (unsigned)EBF_PARAM(PORTS)->max;
    char node[48][48];
    const char *args[48];

    for (unsigned i = 0; i < 40; i++) {
        snprintf(node[i], sizeof(node[i]), "--node=net_null%u,02:eb:00:00:02:%02x", i + 1, i);
        args[i] = node[i];
    }
    args[max - 1] = NULL;
    ck_assert_int_eq(run_argv(1, "--no-such-option", args, 0), 1);
    ck_assert_msg(strstr(err_text, " sfc: error: EAL: ") != NULL, "%s", err_text);
    args[max - 1] = node[max - 1];
    args[max] = NULL;
    ck_assert_int_eq(run_argv(1, "--no-such-option", args, 0), 2);
    ck_assert_str_eq(err_text, "sfc: option '--node': 33 ports (--port and 32 node ports), more "
                               "than the 32 one process can open (RTE_MAX_ETHPORTS)\n");
    args[40 - 1] = NULL;
    for (unsigned i = max; i < 39; i++)
        args[i] = node[i];
    ck_assert_int_eq(run_argv(1, "--no-such-option", args, 0), 2);
    ck_assert_str_eq(err_text, "sfc: option '--node': 40 ports (--port and 39 node ports), more "
                               "than the 32 one process can open (RTE_MAX_ETHPORTS)\n");
    /* 40 nodes behind 31 node ports (the last ten share one): 32 in all. */
    for (unsigned i = max - 2; i < 40; i++)
        snprintf(node[i], sizeof(node[i]), "--node=net_null99,02:eb:00:00:02:%02x", i);
    args[39] = node[39];
    args[40] = NULL;
    ck_assert_int_eq(run_argv(1, "--no-such-option", args, 0), 1);
    ck_assert_msg(strstr(err_text, " sfc: error: EAL: ") != NULL, "%s", err_text);
}
END_TEST

/* --- Fragment sizes against the frames of an event ------------------------- */

/* The fragments of an event, cut into frames at the MTU, must fit what an
 * SFC sends of one event (1023 frames): 8 sources at MTU 1500 carry at most
 * 127 pieces of 1408 B each. The readout's options and configure refuse
 * one byte more with the same words as the farm file (test-farmfile). */
START_TEST(test_event_frames)
{
    static const char why[] =
        "events of 8 fragments of up to 178817 B take 1024 frames at MTU 1500 (pieces of "
        "1408 B), more than the 1023 an SFC sends of one event (fragments of at most 178816 B "
        "fit)";
    static struct ro_conf ro;
    const char *fits[] = {"--frag-size=178816", NULL};
    const char *over[] = {"--frag-size=178817", NULL};
    char want[512], err[512];

    ck_assert_int_eq(run_argv(0, "--no-such-option", fits, 0), 1);
    ck_assert_msg(strstr(err_text, " readout: error: EAL: ") != NULL, "%s", err_text);
    ck_assert_int_eq(run_argv(0, "--no-such-option", over, 0), 2);
    snprintf(want, sizeof(want), "readout: --frag-size: %s\n", why);
    ck_assert_str_eq(err_text, want);

    memset(&ro, 0, sizeof(ro));
    ro.n_sources = 8;
    ro.mtu = 1500;
    ro.encap = EBF_ENCAP_ETH;
    ro.faults.silence_source = RO_FAULT_NO_SILENCE;
    ck_assert_int_eq(ro_param(&ro, "frag_size", "178816", err, sizeof(err)), 0);
    ck_assert_msg(ro_conf_check(&ro, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(ro_param(&ro, "frag_max", "178817", err, sizeof(err)), 0);
    ck_assert_int_eq(ro_conf_check(&ro, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "parameter 'frag_max': %s", why);
    ck_assert_str_eq(err, want);
}
END_TEST

/* --- configure ------------------------------------------------------------- */

typedef int (*param_fn)(void *conf, const char *key, const char *value, char *err, size_t len);

START_TEST(test_configure)
{
    static struct ro_conf ro;
    static struct sfc_conf sfc;
    static struct node_conf node;
    const struct {
        unsigned use;
        param_fn fn;
        void *conf;
    } places[] = {
        {EBF_PU_RO_CONF, ro_param, &ro},
        {EBF_PU_SFC_CONF, sfc_param, &sfc},
        {EBF_PU_NODE_CONF, node_param, &node},
    };
    char err[512], want[512], what[96];
    struct probe p;

    for (unsigned i = 0; i < EBF_P_COUNT; i++) {
        const struct ebf_param_def *d = &ebf_params[i];
        probe_of(d, &p);
        for (unsigned k = 0; k < 3; k++) {
            param_fn fn = places[k].fn;
            void *c = places[k].conf;
            if (!(d->use & places[k].use)) {
                ck_assert_int_eq(fn(c, d->key, p.max, err, sizeof(err)), -EINVAL);
                snprintf(want, sizeof(want), "unknown parameter '%s' (allowed: ", d->key);
                ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
                continue;
            }
            ck_assert_msg(fn(c, d->key, p.max, err, sizeof(err)) == 0, "%s", err);
            const char *bad[] = {p.has_above ? p.above : NULL, p.has_below ? p.below : NULL};
            for (unsigned b = 0; b < 2; b++) {
                if (!bad[b])
                    continue;
                ck_assert_int_eq(fn(c, d->key, bad[b], err, sizeof(err)), -EINVAL);
                snprintf(want, sizeof(want), "parameter '%s': \"%s\" is not %s", d->key, bad[b],
                         what_in(d, what, sizeof(what)));
                ck_assert_str_eq(err, want);
            }
        }
    }
    /* What the adversary sent: 16 MiB fragments, refused with the farm file's limit. */
    ck_assert_int_eq(ro_param(&ro, "frag_size", "16777216", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'frag_size': \"16777216\" is not an integer in 1..1048576");
}
END_TEST

/* --- The farm file ----------------------------------------------------------- */

#define FARM_HEAD                                                                  \
    "farm: t\n"                                                                    \
    "readouts:\n"                                                                  \
    "  - {name: ro0, port: memif:a, mac: 02:00:00:00:00:01, sfcs: [sfc0]}\n"
#define FARM_SFC "  - {name: sfc0, port: memif:a, mac: 02:00:00:00:00:02%s}\n"
#define FARM_NODE "  - {name: n0, sfc: sfc0, port: memif:b, mac: 02:00:00:00:00:03%s}\n"

/* The keys some keys need beside them in "run". The largest fragments fit
 * an event of one source (745 frames at MTU 1500): the frames of an event
 * are checked apart (test-farmfile). */
static const char *run_company(const struct ebf_param_def *d)
{
    if (d == EBF_PARAM(FRAG_SIZE))
        return "  sources: 1\n";
    if (d == EBF_PARAM(FRAG_MIN))
        return "  sources: 1\n  frag_max: 1048576\n";
    if (d == EBF_PARAM(FRAG_MAX))
        return "  sources: 1\n  frag_min: 1\n";
    if (d == EBF_PARAM(FRAG_MEAN))
        return "  sources: 1\n  frag_dist: lognormal\n  frag_sigma: 1\n";
    if (d == EBF_PARAM(FRAG_SIGMA))
        return "  sources: 1\n  frag_dist: lognormal\n  frag_mean: 1000\n";
    if (d == EBF_PARAM(BURST_GAP_US))
        return "  burst_events: 1\n";
    return "";
}

/* A farm with "key: value" in d's section (run when it has none). */
static int farm_with(const struct ebf_param_def *d, const char *value, char *err, size_t len)
{
    static struct farm_spec spec;
    const char *sec = d->farm ? d->farm : "run";
    char yaml[2048], item[128], sfc[256], node[256], section[256] = "";

    snprintf(item, sizeof(item), ", %s: %s", d->key, value);
    /* A node's credits are at most its SFC's max_credits. */
    snprintf(sfc, sizeof(sfc), FARM_SFC,
             !strcmp(sec, "sfcs[]") ? item : d == EBF_PARAM(CREDITS) ? ", max_credits: 65535" : "");
    snprintf(node, sizeof(node), FARM_NODE, strcmp(sec, "nodes[]") ? "" : item);
    if (!strcmp(sec, "run") || !strcmp(sec, "defaults"))
        snprintf(section, sizeof(section), "%s:\n  %s: %s\n%s", sec, d->key, value,
                 run_company(d));
    snprintf(yaml, sizeof(yaml), "%s%ssfcs:\n%snodes:\n%s", FARM_HEAD, section, sfc, node);
    return farm_spec_parse(yaml, strlen(yaml), "p.yaml", &spec, err, len);
}

/* "run.sources", "sfcs[0].capacity": the key as a message names it. */
static const char *farm_key(const struct ebf_param_def *d, char *buf, size_t len)
{
    const char *sec = d->farm ? d->farm : "run";

    if (!strcmp(sec, "sfcs[]") || !strcmp(sec, "nodes[]"))
        snprintf(buf, len, "%.*s[0].%s", (int)strlen(sec) - 2, sec, d->key);
    else
        snprintf(buf, len, "%s.%s", sec, d->key);
    return buf;
}

START_TEST(test_farm_file)
{
    char err[1024], want[1024], key[64], range[96];
    struct probe p;

    for (unsigned i = 0; i < EBF_P_COUNT; i++) {
        const struct ebf_param_def *d = &ebf_params[i];
        if (i == EBF_P_PORTS)
            continue;            /* a count of ports, not a key: test-farmfile's ports test */
        probe_of(d, &p);
        farm_key(d, key, sizeof(key));
        if (!(d->use & EBF_PU_FARM)) {
            ck_assert_int_eq(farm_with(d, p.max, err, sizeof(err)), -EINVAL);
            snprintf(want, sizeof(want), "farm file 'p.yaml': key '%s' is not allowed", key);
            ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
            continue;
        }
        ck_assert_msg(farm_with(d, p.max, err, sizeof(err)) == 0, "%s: %s", key, err);
        if (d->type == EBF_PT_DOUBLE)
            snprintf(range, sizeof(range), "%.15g to %.15g", d->dmin, d->dmax);
        else
            snprintf(range, sizeof(range), "%" PRIu64 " to %" PRIu64, d->min, d->max);
        const char *bad[] = {p.has_above ? p.above : NULL, p.has_below ? p.below : NULL};
        for (unsigned b = 0; b < 2; b++) {
            if (!bad[b])
                continue;
            ck_assert_int_eq(farm_with(d, bad[b], err, sizeof(err)), -EINVAL);
            snprintf(want, sizeof(want), "farm file 'p.yaml': key '%s': %s is out of range (%s)",
                     key, bad[b], range);
            ck_assert_str_eq(err, want);
        }
    }
}
END_TEST

Suite *ebf_param_use_suite(void);

Suite *ebf_param_use_suite(void)
{
    Suite *s = suite_create("ebf_param_use");
    TCase *tc = tcase_create("places");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_options);
    tcase_add_test(tc, test_ports);
    tcase_add_test(tc, test_event_frames);
    tcase_add_test(tc, test_configure);
    tcase_add_test(tc, test_farm_file);
    suite_add_tcase(s, tc);
    return s;
}
