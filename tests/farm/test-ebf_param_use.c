/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_param_use.c - every shared parameter where it is taken: the daemons' options, configure, the farm file; the same range and default everywhere. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_mbuf.h>

#include "ebf_mtu.h"
#include "ebf_param.h"
#include "ebf_proto.h"
#include "farmfile.h"
#include "farmfile_memory.h"
#include "farmfile_types.h"
#include "node_ctl.h"
#include "ro_ctl.h"
#include "sfc_ctl.h"

/*
 * For each entry of ebf_params and each place its `use` names, the value
 * just outside the range is refused with that place's message and the
 * range of the table, and the largest value is taken. A place that `use`
 * does not name must not know the key at all: a place with a range of its
 * own would be one the table does not govern. The defaults: the daemons'
 * --help, the demo's and the farm file's are the table's.
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
    snprintf(want, sizeof(want), "%s: option '--%s': \"%s\" is out of range: %s\n", daemons[k].component,
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

/* The sizes the farm file's DPDK-free memory check assumes are DPDK's and
 * the daemons'. */
START_TEST(test_memory_sizes)
{
    ck_assert_uint_eq(FF_MBUF_STRUCT, sizeof(struct rte_mbuf));
    ck_assert_uint_eq(FF_MBUF_HEADROOM, RTE_PKTMBUF_HEADROOM);
    ck_assert_uint_eq(FF_ROOM_MIN, EBF_ROOM_DEFAULT);
    ck_assert_uint_eq(FF_L2_MAX_HLEN, EBF_L2_MAX_HLEN);
}
END_TEST

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

/* The fragments of an event, cut into frames at the MTU, must fit the
 * 65,535 frames of an event (its frame_count): 8 sources at MTU 1500 carry
 * at most 8,191 pieces of 1408 B each. The readout's options and configure
 * refuse one byte more with the same words as the farm file
 * (test-farmfile, which also holds events to run.max_event). */
START_TEST(test_event_frames)
{
    static const char why[] =
        "events of 8 fragments of up to 11532929 B take 65536 frames at MTU 1500 (pieces of "
        "1408 B), more than the 65535 of an event (fragments of at most 11532928 B fit)";
    static struct ro_conf ro;
    const char *fits[] = {"--frag-size=11532928", NULL};
    const char *over[] = {"--frag-size=11532929", NULL};
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
    ck_assert_int_eq(ro_param(&ro, "frag_size", "11532928", err, sizeof(err)), 0);
    ck_assert_msg(ro_conf_check(&ro, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(ro_param(&ro, "frag_max", "11532929", err, sizeof(err)), 0);
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
                snprintf(want, sizeof(want), "parameter '%s': \"%s\" is out of range: %s", d->key, bad[b],
                         what_in(d, what, sizeof(what)));
                ck_assert_str_eq(err, want);
            }
        }
    }
    /* What the adversary sent: fragments past 16 MiB, refused with the farm file's limit. */
    ck_assert_int_eq(ro_param(&ro, "frag_size", "16777217", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'frag_size': \"16777217\" is out of range: an integer in "
                     "1..16777216");
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
 * an event of one source (11,916 frames at MTU 1500, 16 MiB): the size and
 * frames of an event are checked apart (test-farmfile); the largest
 * max_event takes MTU 9600 and an SFC of 262143 mbufs (farm_with). */
static const char *run_company(const struct ebf_param_def *d)
{
    if (d == EBF_PARAM(FRAG_SIZE))
        return "  sources: 1\n";
    if (d == EBF_PARAM(FRAG_MIN))
        return "  sources: 1\n  frag_max: 16777216\n";
    if (d == EBF_PARAM(FRAG_MAX))
        return "  sources: 1\n  frag_min: 1\n";
    if (d == EBF_PARAM(FRAG_MEAN))
        return "  sources: 1\n  frag_dist: lognormal\n  frag_sigma: 1\n  frag_min: 1\n"
               "  frag_max: 16777216\n";
    if (d == EBF_PARAM(FRAG_SIGMA))
        return "  sources: 1\n  frag_dist: lognormal\n  frag_mean: 1000\n";
    if (d == EBF_PARAM(MAX_EVENT))
        return "  mtu: 9600\n";
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
             !strcmp(sec, "sfcs[]") ? item : d == EBF_PARAM(CREDITS) ? ", max_credits: 65535"
             : d == EBF_PARAM(MAX_EVENT) ? ", mbufs: 262143" : "");
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

/* --- Defaults ----------------------------------------------------------------- */

/* Every default the table holds is a value of its own range; the UDP port
 * is the protocol's, one fragment size the smallest and largest. */
START_TEST(test_default_values)
{
    uint8_t v[8], w[8];

    for (unsigned i = 0; i < EBF_P_COUNT; i++) {
        const struct ebf_param_def *d = &ebf_params[i];
        int rc = ebf_param_default(d, v);
        ck_assert_msg(rc == 0 || (rc == -ENOENT && !d->def[0]), "%s: default \"%s\" is not %s",
                      d->key, d->def, what_in(d, (char[96]){0}, 96));
    }
    uint16_t udp = 0;
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(UDP_PORT), &udp), 0);
    ck_assert_uint_eq(udp, EBF_UDP_PORT_DEFAULT);
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(FRAG_SIZE), v), 0);
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(FRAG_MIN), w), 0);
    ck_assert_mem_eq(v, w, sizeof(uint32_t));
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(FRAG_MAX), w), 0);
    ck_assert_mem_eq(v, w, sizeof(uint32_t));
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(FRAG_MEAN), v), -ENOENT);
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(PORTS), v), -ENOENT);
}
END_TEST

static char help_text[OUT_MAX * 2];

/* The standard output of cmd, into help_text; its exit status. */
static int help_of(const char *cmd)
{
    FILE *p = popen(cmd, "r");

    ck_assert_msg(p != NULL, "cannot run %s", cmd);
    size_t n = fread(help_text, 1, sizeof(help_text) - 1, p);
    help_text[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The entry of --opt in help_text, its continuation lines included (up to
 * the next line that starts an option) without its newline, into buf; 0
 * when there is none. */
static int help_entry(const char *opt, char *buf, size_t len)
{
    char head[64];
    const char *p, *end;

    snprintf(head, sizeof(head), "\n  --%s ", opt);
    if (!(p = strstr(help_text, head)))
        return 0;
    p++;
    end = strstr(p + 1, "\n  --");
    if (!end)
        end = p + strlen(p);
    while (end > p && end[-1] == '\n')
        end--;
    snprintf(buf, len, "%.*s", (int)(end - p), p);
    return 1;
}

/* Each daemon's --help ends the entry of every shared option it takes with
 * the table's default, " (32)", where the table has one. */
START_TEST(test_default_help)
{
    char cmd[600], entry[1024], want[64];

    for (unsigned k = 0; k < sizeof(daemons) / sizeof(daemons[0]); k++) {
        snprintf(cmd, sizeof(cmd), "%s/%s --help 2>/dev/null", getenv("EBFARM_BUILD_DIR"),
                 daemons[k].exe);
        ck_assert_int_eq(help_of(cmd), 0);
        for (unsigned i = 0; i < EBF_P_COUNT; i++) {
            const struct ebf_param_def *d = &ebf_params[i];
            if (!(d->use & daemons[k].use) || i == EBF_P_PORTS)
                continue;
            ck_assert_msg(help_entry(d->opt, entry, sizeof(entry)), "%s --help: no --%s",
                          daemons[k].component, d->opt);
            size_t n = strlen(entry);
            snprintf(want, sizeof(want), " (%s)", d->def);
            if (d->def[0])
                ck_assert_msg(n > strlen(want) && !strcmp(entry + n - strlen(want), want),
                              "%s --help: --%s does not end with%s: %s", daemons[k].component,
                              d->opt, want, entry);
        }
    }
}
END_TEST

/* `ebfarm demo --help` names the farm file's defaults of the shared
 * parameters it takes: the table's, a run's events and trigger_us its
 * own (farmfile.h). */
START_TEST(test_default_demo_help)
{
    char cmd[600], entry[1024], want[64];
    unsigned seen = 0;

    snprintf(cmd, sizeof(cmd), "%s/tools/ebfarm demo --help 2>/dev/null",
             getenv("EBFARM_BUILD_DIR"));
    ck_assert_int_eq(help_of(cmd), 0);
    for (unsigned i = 0; i < EBF_P_COUNT; i++) {
        const struct ebf_param_def *d = &ebf_params[i];
        /* Entries that give no default: "--frag-min B --frag-max B  uniform
         * fragment sizes", bursts and the write limit (off unless given). */
        if (!(d->use & EBF_PU_FARM) || !d->def[0] || i == EBF_P_FRAG_MIN ||
            i == EBF_P_BURST_EVENTS || i == EBF_P_STORE_MAX_MBS ||
            !help_entry(d->opt, entry, sizeof(entry)))
            continue;
        if (i == EBF_P_EVENTS)
            snprintf(want, sizeof(want), "(%u)", FF_RUN_EVENTS);
        else if (i == EBF_P_TRIGGER_US)
            snprintf(want, sizeof(want), "(%u)", FF_RUN_TRIGGER_US);
        else
            snprintf(want, sizeof(want), "(%s)", d->def);
        ck_assert_msg(strstr(entry, want), "demo --help: --%s does not say %s: %s", d->opt,
                      want, entry);
        seen++;
    }
    ck_assert_uint_ge(seen, 12);
}
END_TEST

/* Where the farm file keeps d's value (run, sfcs[0], nodes[0]); NULL for
 * none. */
static void *farm_field(struct farm_spec *s, unsigned id)
{
    struct ff_run *r = &s->run;

    switch (id) {
    case EBF_P_SOURCES: return &r->sources;
    case EBF_P_EVENTS: return &r->events;
    case EBF_P_RATE: return &r->rate;
    case EBF_P_DURATION: return &r->duration_s;
    case EBF_P_FRAG_SIZE: case EBF_P_FRAG_MIN: return &r->frag_min;
    case EBF_P_FRAG_MAX: return &r->frag_max;
    case EBF_P_FRAG_MEAN: return &r->frag_mean;
    case EBF_P_FRAG_SIGMA: return &r->frag_sigma;
    case EBF_P_SEED: return &r->seed;
    case EBF_P_FAULT_SEED: return &r->fault_seed;
    case EBF_P_BURST_EVENTS: return &r->burst_events;
    case EBF_P_BURST_GAP_US: return &r->burst_gap_us;
    case EBF_P_MTU: return &r->mtu;
    case EBF_P_UDP_PORT: return &r->udp_port;
    case EBF_P_TIMEOUT_MS: return &r->timeout_ms;
    case EBF_P_MAX_EVENT: return &r->max_event;
    case EBF_P_SFC_ID: return &s->sfc[0].id;
    case EBF_P_CAPACITY: return &s->sfc[0].capacity;
    case EBF_P_MBUFS: return &s->sfc[0].mbufs;
    case EBF_P_MAX_CREDITS: return &s->sfc[0].max_credits;
    case EBF_P_CREDITS: return &s->node[0].credits;
    case EBF_P_WORKERS: return &s->node[0].workers;
    case EBF_P_TRIGGER_US: return &r->trigger_us;
    case EBF_P_ACCEPT: return &r->accept;
    case EBF_P_ACCEPT_SEED: return &r->accept_seed;
    case EBF_P_METRICS_PERIOD_MS: return &r->metrics_period_ms;
    case EBF_P_STORE_MAX_FILE_MB: return &r->store.max_file_mb;
    case EBF_P_STORE_MAX_FILE_S: return &r->store.max_file_s;
    case EBF_P_STORE_BUFFER_MB: return &r->store.buffer_mb;
    case EBF_P_STORE_MAX_MBS: return &r->store.max_mbs;
    }
    return NULL;
}

/* A farm file that gives none of the shared keys holds the table's
 * defaults (a run's events and trigger_us its own: farmfile.h); the SFC's
 * workers are the node's parameter with the same default. */
START_TEST(test_default_farm)
{
    static struct farm_spec spec;
    static const char yaml[] = FARM_HEAD "sfcs:\n" "  - {name: sfc0, port: memif:a, mac: "
                               "02:00:00:00:00:02}\n" "nodes:\n" "  - {name: n0, sfc: sfc0, "
                               "port: memif:b, mac: 02:00:00:00:00:03}\n";
    const uint64_t events = FF_RUN_EVENTS;
    const double trigger_us = FF_RUN_TRIGGER_US;
    char err[1024];
    uint8_t v[8];

    ck_assert_msg(farm_spec_parse(yaml, strlen(yaml), "d.yaml", &spec, err, sizeof(err)) == 0,
                  "%s", err);
    for (unsigned i = 0; i < EBF_P_COUNT; i++) {
        const struct ebf_param_def *d = &ebf_params[i];
        void *f = farm_field(&spec, i);
        if (!(d->use & EBF_PU_FARM) || i == EBF_P_PORTS || !d->def[0])
            continue;
        ck_assert_msg(f != NULL, "farm key %s has no field in the test", d->key);
        ck_assert_int_eq(ebf_param_default(d, v), 0);
        const void *want = i == EBF_P_EVENTS ? (const void *)&events
                           : i == EBF_P_TRIGGER_US ? (const void *)&trigger_us : (const void *)v;
        ck_assert_msg(memcmp(f, want, ebf_param_size(d->type)) == 0,
                      "farm file default of %s is not the table's %s", d->key, d->def);
    }
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(WORKERS), v), 0);
    ck_assert_mem_eq(&spec.sfc[0].workers, v, sizeof(uint16_t));
}
END_TEST

Suite *ebf_param_use_suite(void);

Suite *ebf_param_use_suite(void)
{
    Suite *s = suite_create("ebf_param_use");
    TCase *tc = tcase_create("places");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_memory_sizes);
    tcase_add_test(tc, test_options);
    tcase_add_test(tc, test_ports);
    tcase_add_test(tc, test_event_frames);
    tcase_add_test(tc, test_configure);
    tcase_add_test(tc, test_farm_file);
    tcase_add_test(tc, test_default_values);
    tcase_add_test(tc, test_default_help);
    tcase_add_test(tc, test_default_demo_help);
    tcase_add_test(tc, test_default_farm);
    suite_add_tcase(s, tc);
    return s;
}
