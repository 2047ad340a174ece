/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_tel.c - the daemon's state, counters, gauges and histograms as DPDK telemetry commands (/ebfarm/...). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_telemetry.h>

#include "ebf_ctl_tel.h"
#include "ebf_ctl_log.h"
#include "ebf_util.h"

#ifndef EBF_VERSION
#define EBF_VERSION "unknown"
#endif

/*
 * DPDK's telemetry thread calls the commands, with no argument of ours, so
 * what they show is one process-wide copy: the control thread refreshes it
 * from every metric list it builds (each metrics period and each reply to a
 * command, ebf_ctl_tel_publish) under tel.lock, and the commands read it under
 * the same lock. They never reach the data plane or the control block. A
 * process with several control threads (tests) shows the last to publish.
 *
 * A reply must fit DPDK's 16 KB output buffer and a dict holds at most
 * RTE_TEL_MAX_DICT_ENTRIES (256) entries: a selection larger than a page
 * (TEL_PAGE_ENTRIES entries or TEL_PAGE_BYTES of JSON) is split into pages,
 * each reply then carrying "_page" and "_pages" besides its metrics.
 */

#define TEL_PAGE_ENTRIES 200
#define TEL_PAGE_BYTES 14000
#define TEL_KEY_MAX 96

struct tel_entry {
    enum ebf_metric_kind kind;
    char key[TEL_KEY_MAX];       /* the stats-file key, '/' for '.' (tel_key) */
    uint64_t count;              /* counter; histogram: its count */
    double value;                /* gauge */
    uint64_t p50, p99, max;      /* histogram */
};

static struct {
    pthread_mutex_t lock;
    struct tel_entry *e;
    unsigned n, cap;
    int have;                    /* a list was published */
    char component[16], instance[64], farm[33], error[256];
    enum ebf_state state;
    uint32_t run_number;
    double period_ms;
    uint64_t published_ns;
} tel = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* --- The copy (control thread) ------------------------------------------- */

/* DPDK's telemetry takes names of letters, digits, '_' and '/' only: the
 * stats file's '.' becomes '/' ("rx.reject.bad_checksum" ->
 * "rx/reject/bad_checksum"), anything else '_'. In place. */
static void tel_key(char *s)
{
    for (; *s; s++)
        if (*s == '.')
            *s = '/';
        else if (!isalnum((unsigned char)*s) && *s != '_' && *s != '/')
            *s = '_';
}

static void fill_entry(struct tel_entry *t, const struct ebf_metric *m)
{
    memset(t, 0, sizeof(*t));
    t->kind = m->kind;
    if (m->label[0])
        snprintf(t->key, sizeof(t->key), "%s.%s", m->name, m->label_value);
    else
        snprintf(t->key, sizeof(t->key), "%s", m->name);
    tel_key(t->key);
    if (m->kind == EBF_M_COUNTER) {
        t->count = m->count;
    } else if (m->kind == EBF_M_GAUGE) {
        t->value = m->value;
    } else if (m->hist) {
        t->count = m->hist->count;
        t->p50 = ebf_hist_quantile(m->hist, 0.5);
        t->p99 = ebf_hist_quantile(m->hist, 0.99);
        t->max = m->hist->count ? m->hist->max : 0;
    }
}

/* Room for n entries; 0, or -ENOMEM keeping the old copy. Under tel.lock. */
static int reserve(unsigned n)
{
    if (n <= tel.cap)
        return 0;
    struct tel_entry *e = realloc(tel.e, (size_t)n * sizeof(*e));
    if (!e)
        return -ENOMEM;
    tel.e = e;
    tel.cap = n;
    return 0;
}

void ebf_ctl_tel_publish(const struct ebf_metrics *ms, const struct ebf_ctl_status *st)
{
    pthread_mutex_lock(&tel.lock);
    if (reserve(ms->n) == 0) {
        for (unsigned i = 0; i < ms->n; i++)
            fill_entry(&tel.e[i], &ms->m[i]);
        tel.n = ms->n;
        tel.have = 1;
        snprintf(tel.component, sizeof(tel.component), "%s", st->component);
        snprintf(tel.instance, sizeof(tel.instance), "%s", st->instance);
        snprintf(tel.farm, sizeof(tel.farm), "%s", st->farm);
        snprintf(tel.error, sizeof(tel.error), "%s", st->error);
        tel.state = st->state;
        tel.run_number = st->run_number;
        tel.period_ms = st->period_ms;
        tel.published_ns = ebf_now_ns();
    }
    pthread_mutex_unlock(&tel.lock);
}

/* --- The commands (DPDK's telemetry thread) ------------------------------ */

/* "PREFIX[,PAGE]" into prefix and *page; 0, or -EINVAL. */
static int parse_params(const char *params, char *prefix, size_t len, unsigned *page)
{
    const char *comma = params ? strchr(params, ',') : NULL;
    size_t n = params ? (comma ? (size_t)(comma - params) : strlen(params)) : 0;
    char *end;

    *page = 0;
    if (n >= len)
        return -EINVAL;
    memcpy(prefix, params ? params : "", n);
    prefix[n] = '\0';
    tel_key(prefix);             /* "rx.reject" and "rx/reject" alike */
    if (!comma)
        return 0;
    errno = 0;
    unsigned long p = strtoul(comma + 1, &end, 10);
    if (errno || end == comma + 1 || *end || p > 1000000)
        return -EINVAL;
    *page = (unsigned)p;
    return 0;
}

/* JSON bytes an entry takes in a reply, at most (key, value, punctuation). */
static size_t entry_bytes(const struct tel_entry *t)
{
    return strlen(t->key) + (t->kind == EBF_M_HIST ? 90 : 30);
}

/* The gauge v into d under key: an integer when it is whole, else its
 * decimal text (DPDK 22.11's telemetry has no floating-point values). */
static void add_gauge(struct rte_tel_data *d, const char *key, double v)
{
    char txt[32];

    if (v == floor(v) && v >= 0 && v < 1.8e19)
        rte_tel_data_add_dict_u64(d, key, (uint64_t)v);
    else if (v == floor(v) && v >= -2147483648.0 && v < 0)
        rte_tel_data_add_dict_int(d, key, (int)v);
    else {
        snprintf(txt, sizeof(txt), "%.9g", v);
        rte_tel_data_add_dict_string(d, key, txt);
    }
}

static void add_hist(struct rte_tel_data *d, const struct tel_entry *t)
{
    struct rte_tel_data *h = rte_tel_data_alloc();

    if (!h)
        return;
    rte_tel_data_start_dict(h);
    rte_tel_data_add_dict_u64(h, "count", t->count);
    rte_tel_data_add_dict_u64(h, "p50", t->p50);
    rte_tel_data_add_dict_u64(h, "p99", t->p99);
    rte_tel_data_add_dict_u64(h, "max", t->max);
    if (rte_tel_data_add_dict_container(d, t->key, h, 0) != 0)
        rte_tel_data_free(h);
}

/*
 * The entries of kind whose key begins with params' prefix, page by page,
 * into d. Pages are cut where TEL_PAGE_ENTRIES or TEL_PAGE_BYTES would be
 * passed; with more than one, "_page" and "_pages" say where this one is.
 */
static int list(enum ebf_metric_kind kind, const char *params, struct rte_tel_data *d)
{
    char prefix[TEL_KEY_MAX];
    unsigned page, cur = 0, in_page = 0;
    size_t bytes = 0, plen;

    if (parse_params(params, prefix, sizeof(prefix), &page))
        return -EINVAL;
    plen = strlen(prefix);
    rte_tel_data_start_dict(d);
    pthread_mutex_lock(&tel.lock);
    for (unsigned i = 0; i < tel.n; i++) {
        const struct tel_entry *t = &tel.e[i];
        if (t->kind != kind || strncmp(t->key, prefix, plen) != 0)
            continue;
        if (in_page == TEL_PAGE_ENTRIES || bytes + entry_bytes(t) > TEL_PAGE_BYTES) {
            cur++;
            in_page = 0;
            bytes = 0;
        }
        in_page++;
        bytes += entry_bytes(t);
        if (cur != page)
            continue;
        if (kind == EBF_M_COUNTER)
            rte_tel_data_add_dict_u64(d, t->key, t->count);
        else if (kind == EBF_M_GAUGE)
            add_gauge(d, t->key, t->value);
        else
            add_hist(d, t);
    }
    pthread_mutex_unlock(&tel.lock);
    if (cur > 0 || page > 0) {
        rte_tel_data_add_dict_u64(d, "_page", page);
        rte_tel_data_add_dict_u64(d, "_pages", (uint64_t)cur + 1);
    }
    return 0;
}

static int cmd_counters(const char *cmd, const char *params, struct rte_tel_data *d)
{
    (void)cmd;
    return list(EBF_M_COUNTER, params, d);
}

static int cmd_gauges(const char *cmd, const char *params, struct rte_tel_data *d)
{
    (void)cmd;
    return list(EBF_M_GAUGE, params, d);
}

static int cmd_hist(const char *cmd, const char *params, struct rte_tel_data *d)
{
    (void)cmd;
    return list(EBF_M_HIST, params, d);
}

static int cmd_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
    (void)cmd;
    (void)params;
    rte_tel_data_start_dict(d);
    rte_tel_data_add_dict_string(d, "version", EBF_VERSION);
    rte_tel_data_add_dict_int(d, "pid", (int)getpid());
    pthread_mutex_lock(&tel.lock);
    if (tel.have) {
        uint64_t now = ebf_now_ns();
        rte_tel_data_add_dict_string(d, "component", tel.component);
        rte_tel_data_add_dict_string(d, "instance", tel.instance);
        rte_tel_data_add_dict_string(d, "state", ebf_state_name(tel.state));
        rte_tel_data_add_dict_u64(d, "run_number", tel.run_number);
        rte_tel_data_add_dict_string(d, "farm", tel.farm);
        rte_tel_data_add_dict_string(d, "error", tel.error);
        rte_tel_data_add_dict_u64(d, "period_ms", (uint64_t)tel.period_ms);
        rte_tel_data_add_dict_u64(d, "age_ms",
                                  now > tel.published_ns ? (now - tel.published_ns) / 1000000 : 0);
    }
    pthread_mutex_unlock(&tel.lock);
    return 0;
}

static void register_cmds(void)
{
    static const struct {
        const char *cmd;
        telemetry_cb fn;
        const char *help;
    } cmds[] = {
        {"/ebfarm/info", cmd_info,
         "Returns the daemon's component, instance, state, run, pid, version. No parameters"},
        {"/ebfarm/counters", cmd_counters,
         "Returns the counters, name: value. Parameters: [prefix][,page]"},
        {"/ebfarm/gauges", cmd_gauges,
         "Returns the gauges, name: value. Parameters: [prefix][,page]"},
        {"/ebfarm/hist", cmd_hist,
         "Returns the histograms, name: {count, p50, p99, max}. Parameters: [prefix][,page]"},
    };

    /* Help texts stay under RTE_TEL_MAX_STRING_LEN, or the command is refused. */
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn, cmds[i].help) != 0)
            CTL_LOG(WARNING, "cannot register telemetry command %s\n", cmds[i].cmd);
}

void ebf_ctl_tel_register(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, register_cmds);
}
