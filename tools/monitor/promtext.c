/* SPDX-License-Identifier: BSD-3-Clause */
/* promtext.c - metrics snapshots rendered as Prometheus text: names, labels, HELP/TYPE, histograms. */
#include "promtext.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_counters.h"
#include "ebf_fsm.h"
#include "ebf_pb.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"

enum fam_kind { FAM_COUNTER, FAM_GAUGE, FAM_HIST };

static const char *const kind_type[] = {"counter", "gauge", "histogram"};

/* At most this many components with their own help for one family. */
#define FAM_MAX_HELP 4

/* One metric family: its exposition name, the dotted name it came from,
 * and the help of each component whose table describes it. */
struct family {
    char name[128];
    enum fam_kind kind;
    const char *src;
    unsigned n_help;
    const char *help_component[FAM_MAX_HELP];
    const char *help[FAM_MAX_HELP];
};

struct families {
    struct family *f;
    unsigned n, cap;
};

/* The daemons' counter tables (lib/ebf_counters.h), by component. */
static const struct {
    const char *component;
    const struct ebf_counter_table *const *tables;
} components[] = {
    {"readout", ro_counter_tables},
    {"sfc", sfc_counter_tables},
    {"node", node_counter_tables},
};

/* The table entry describing metric src of a component, or NULL. */
static const struct ebf_counter *describe(const char *component, const char *src)
{
    for (unsigned i = 0; i < sizeof(components) / sizeof(components[0]); i++)
        if (strcmp(components[i].component, component) == 0)
            return ebf_counters_find_in(components[i].tables, src);
    return NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Counters that identify or time a run rather than count anything: those
 * the component's table flags EBF_CF_RUN; for a metric no table describes,
 * names ending in "_digest" or "_ns", and first_event, last_event. */
static int skipped(enum fam_kind k, const char *component, const char *src)
{
    const struct ebf_counter *c = describe(component, src);

    if (k != FAM_COUNTER)
        return 0;
    if (c)
        return (c->flags & EBF_CF_RUN) != 0;
    return ends_with(src, "_digest") || ends_with(src, "_ns") || strcmp(src, "first_event") == 0 ||
           strcmp(src, "last_event") == 0;
}

static int hist_in_ns(const Ebfarm__Histogram *h)
{
    return strcmp(h->unit, "ns") == 0 || (h->unit[0] == '\0' && ends_with(h->name, "_ns"));
}

/* "ebfarm_" + src with every character outside [a-zA-Z0-9_] as '_'. */
static void sanitize(char *out, size_t len, const char *prefix, const char *src, size_t n)
{
    size_t o = (size_t)snprintf(out, len, "%s", prefix);

    for (size_t i = 0; i < n && src[i] && o + 1 < len; i++) {
        char c = src[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        out[o++] = ok ? c : '_';
    }
    out[o] = '\0';
}

/* The family name of a metric (whether or not it is left out). */
static void family_name(enum fam_kind k, const char *src, int ns, char *out, size_t len)
{
    size_t n = strlen(src);

    if (k == FAM_HIST && ns && ends_with(src, "_ns"))
        n -= 3;
    sanitize(out, len, "ebfarm_", src, n);
    if (k == FAM_COUNTER)
        strncat(out, "_total", len - strlen(out) - 1);
    else if (k == FAM_HIST && ns)
        strncat(out, "_seconds", len - strlen(out) - 1);
}

/* 1 when a component's metric src is a sample of fam (the table lookup
 * only for a name that matches). */
static int in_family(const struct family *fam, enum fam_kind k, const char *component,
                     const char *src, int ns)
{
    char name[128];

    family_name(k, src, ns, name, sizeof(name));
    return strcmp(name, fam->name) == 0 && !skipped(k, component, src);
}

/* Note the help component's table gives fam, unless a like one is noted. */
static void fam_help(struct family *fam, const char *component)
{
    const struct ebf_counter *c = describe(component, fam->src);

    if (!c || fam->n_help == FAM_MAX_HELP)
        return;
    for (unsigned i = 0; i < fam->n_help; i++)
        if (strcmp(fam->help_component[i], component) == 0 || strcmp(fam->help[i], c->help) == 0)
            return;
    fam->help_component[fam->n_help] = component;
    fam->help[fam->n_help++] = c->help;
}

static int fam_add(struct families *fs, enum fam_kind k, const char *component, const char *src,
                   int ns)
{
    char name[128];

    if (skipped(k, component, src))
        return 0;
    family_name(k, src, ns, name, sizeof(name));
    for (unsigned i = 0; i < fs->n; i++)
        if (strcmp(fs->f[i].name, name) == 0) {
            fam_help(&fs->f[i], component);     /* a clash of kinds keeps the first */
            return 0;
        }
    if (fs->n == fs->cap) {
        unsigned cap = fs->cap ? 2 * fs->cap : 64;
        struct family *f = realloc(fs->f, cap * sizeof(*f));
        if (!f)
            return -ENOMEM;
        fs->f = f;
        fs->cap = cap;
    }
    struct family *f = &fs->f[fs->n++];
    memset(f, 0, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->kind = k;
    f->src = src;
    fam_help(f, component);
    return 0;
}

/* Every family of every snapshot, in order of first appearance. */
static int collect(const struct prom_proc *p, unsigned n, struct families *fs)
{
    int rc = 0;

    for (unsigned i = 0; i < n && rc == 0; i++) {
        const Ebfarm__Snapshot *s = p[i].snap;
        if (!s)
            continue;
        const char *cp = p[i].component;
        for (size_t k = 0; k < s->n_counters && rc == 0; k++)
            rc = fam_add(fs, FAM_COUNTER, cp, s->counters[k]->name, 0);
        for (size_t k = 0; k < s->n_gauges && rc == 0; k++)
            rc = fam_add(fs, FAM_GAUGE, cp, s->gauges[k]->name, 0);
        for (size_t k = 0; k < s->n_histograms && rc == 0; k++)
            rc = fam_add(fs, FAM_HIST, cp, s->histograms[k]->name, hist_in_ns(s->histograms[k]));
    }
    return rc;
}

/* s with backslash, double quote (when quoted) and newline escaped. */
static void put_escaped(FILE *f, const char *s, int quoted)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '"' && quoted)
            fputs("\\\"", f);
        else
            fputc(*s, f);
    }
}

static void put_header(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s ", name);
    put_escaped(f, help, 0);
    fprintf(f, "\n# TYPE %s %s\n", name, type);
}

/* # HELP from the tables: one component's help, or each component's
 * ("sfc: ... node: ...") when they differ; a generic line when none. */
static void put_family_header(FILE *f, const struct family *fam)
{
    char help[1024];
    size_t o = 0;

    if (fam->n_help == 0)
        snprintf(help, sizeof(help), "ebfarm %s '%s' (docs/daemons.md).", kind_type[fam->kind],
                 fam->src);
    else if (fam->n_help == 1)
        snprintf(help, sizeof(help), "%s", fam->help[0]);
    for (unsigned i = 0; fam->n_help > 1 && i < fam->n_help && o < sizeof(help); i++) {
        int n = snprintf(help + o, sizeof(help) - o, "%s%s: %s", i ? " " : "",
                         fam->help_component[i], fam->help[i]);
        o += n > 0 ? (size_t)n : 0;
    }
    put_header(f, fam->name, kind_type[fam->kind], help);
}

/* Labels reserved for the process's identity, and those Prometheus sets
 * on a target: a snapshot label of one of these names gets "ebfarm_". */
static int reserved_label(const char *ln)
{
    static const char *const names[] = {"farm", "run", "component", "process",
                                        "instance", "job", "le"};

    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(ln, names[i]) == 0)
            return 1;
    return strncmp(ln, "__", 2) == 0;
}

static void put_label(FILE *f, const char *sep, const char *name, const char *value)
{
    fprintf(f, "%s%s=\"", sep, name);
    put_escaped(f, value, 1);
    fputc('"', f);
}

/* {farm="..",run="..",component="..",process=".."[,label=".."][,extra=".."]};
 * run only when the process has a snapshot. */
static void put_labels(FILE *f, const struct prom_proc *p, size_t nl, Ebfarm__Label **l,
                       const char *extra, const char *extra_value)
{
    const char *farm = p->snap && p->snap->farm[0] ? p->snap->farm : p->farm;
    char name[64];

    put_label(f, "{", "farm", farm ? farm : "");
    if (p->snap) {
        snprintf(name, sizeof(name), "%u", p->snap->run_number);
        put_label(f, ",", "run", name);
    }
    put_label(f, ",", "component", p->component);
    put_label(f, ",", "process", p->process);
    if (nl > 0 && l[0]->name[0]) {
        const char *ln = l[0]->name;
        sanitize(name, sizeof(name), reserved_label(ln) ? "ebfarm_" : "", ln, strlen(ln));
        if (name[0] >= '0' && name[0] <= '9')
            sanitize(name, sizeof(name), "_", ln, strlen(ln));
        put_label(f, ",", name, l[0]->value);
    }
    if (extra)
        put_label(f, ",", extra, extra_value);
    fputc('}', f);
}

static void put_double(FILE *f, double v)
{
    if (isnan(v))
        fputs("NaN", f);
    else if (isinf(v))
        fputs(v > 0 ? "+Inf" : "-Inf", f);
    else if (v == 0)
        fputc('0', f);
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.17g", v);
}

void prom_decimal(char *buf, size_t len, uint64_t v, uint64_t div)
{
    if (div <= 1) {
        snprintf(buf, len, "%" PRIu64, v);
        return;
    }
    uint64_t frac = v % div;
    int n = snprintf(buf, len, "%" PRIu64, v / div);
    if (frac == 0 || n < 0 || (size_t)n >= len)
        return;
    int digits = 0;
    for (uint64_t d = div; d > 1; d /= 10)
        digits++;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    snprintf(buf + n, len - (size_t)n, ".%0*" PRIu64, digits, frac);
}

/* The last bucket of b's group at a coarsening level (0: b itself). */
static unsigned group_end(unsigned b, unsigned level)
{
    if (level == 0)
        return b;
    if (b < 16)
        return 15;
    unsigned pow = (b - 16) / EBF_HIST_SUB, g = 1u << (level - 1);
    unsigned end = 16 + (pow / g + 1) * g * EBF_HIST_SUB - 1;
    return end < EBF_HIST_BUCKETS ? end : EBF_HIST_BUCKETS - 1;
}

unsigned prom_hist_buckets(const struct ebf_hist *h, unsigned max, uint64_t *le_ns,
                           uint64_t *cum)
{
    unsigned level = 0, n;

    for (;; level++) {
        unsigned last = UINT32_MAX;
        n = 0;
        for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
            unsigned e = group_end(b, level);
            if (h->bucket[b] && e != last && e + 1 < EBF_HIST_BUCKETS) {
                n++;
                last = e;
            }
        }
        if (n <= max || level > 64)
            break;
    }
    uint64_t seen = 0;
    n = 0;
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
        unsigned e = group_end(b, level);
        seen += h->bucket[b];
        if (e + 1 >= EBF_HIST_BUCKETS)
            continue;
        /* Emit at a group's last bucket when the group held anything. */
        if (b == e && n < max && seen > (n ? cum[n - 1] : 0)) {
            le_ns[n] = ebf_hist_bucket_lo(e + 1);
            cum[n++] = seen;
        }
    }
    return n;
}

static int put_hist(FILE *f, const struct family *fam, const struct prom_proc *p,
                    const Ebfarm__Histogram *pb)
{
    struct ebf_hist *h = malloc(sizeof(*h));
    uint64_t le[PROM_MAX_LE], cum[PROM_MAX_LE];
    uint64_t div = hist_in_ns(pb) ? 1000000000ull : 1;
    char v[48];

    if (!h)
        return -ENOMEM;
    if (ebf_pb_hist(pb, h) != 0) {
        free(h);
        return -EINVAL;
    }
    unsigned n = prom_hist_buckets(h, PROM_MAX_LE, le, cum);
    uint64_t below = n ? cum[n - 1] : 0;
    uint64_t total = h->count > below ? h->count : below;
    for (unsigned i = 0; i < n; i++) {
        prom_decimal(v, sizeof(v), le[i], div);
        fprintf(f, "%s_bucket", fam->name);
        put_labels(f, p, pb->n_labels, pb->labels, "le", v);
        fprintf(f, " %" PRIu64 "\n", cum[i]);
    }
    fprintf(f, "%s_bucket", fam->name);
    put_labels(f, p, pb->n_labels, pb->labels, "le", "+Inf");
    fprintf(f, " %" PRIu64 "\n", total);
    prom_decimal(v, sizeof(v), h->sum, div);
    fprintf(f, "%s_sum", fam->name);
    put_labels(f, p, pb->n_labels, pb->labels, NULL, NULL);
    fprintf(f, " %s\n%s_count", v, fam->name);
    put_labels(f, p, pb->n_labels, pb->labels, NULL, NULL);
    fprintf(f, " %" PRIu64 "\n", total);
    free(h);
    return 0;
}

/* The samples of one family from one snapshot. */
static int put_samples(FILE *f, const struct family *fam, const struct prom_proc *p)
{
    const Ebfarm__Snapshot *s = p->snap;
    int rc = 0;

    if (fam->kind == FAM_COUNTER) {
        for (size_t k = 0; k < s->n_counters; k++) {
            const Ebfarm__Counter *c = s->counters[k];
            if (!in_family(fam, FAM_COUNTER, p->component, c->name, 0))
                continue;
            fputs(fam->name, f);
            put_labels(f, p, c->n_labels, c->labels, NULL, NULL);
            fprintf(f, " %" PRIu64 "\n", c->value);
        }
    } else if (fam->kind == FAM_GAUGE) {
        for (size_t k = 0; k < s->n_gauges; k++) {
            const Ebfarm__Gauge *g = s->gauges[k];
            if (!in_family(fam, FAM_GAUGE, p->component, g->name, 0))
                continue;
            fputs(fam->name, f);
            put_labels(f, p, g->n_labels, g->labels, NULL, NULL);
            fputc(' ', f);
            put_double(f, g->value);
            fputc('\n', f);
        }
    } else {
        for (size_t k = 0; k < s->n_histograms; k++) {
            const Ebfarm__Histogram *h = s->histograms[k];
            if (!in_family(fam, FAM_HIST, p->component, h->name, hist_in_ns(h)))
                continue;
            int e = put_hist(f, fam, p, h);
            if (e && !rc)
                rc = e;
        }
    }
    return rc;
}

/* ebfarm_up, ebfarm_state and ebfarm_run_number of every process. */
static void put_process_families(FILE *f, const struct prom_proc *p, unsigned n)
{
    unsigned with_snap = 0;

    put_header(f, "ebfarm_up", "gauge",
               "1 when the process's metrics snapshot arrived within 3 periods, else 0.");
    for (unsigned i = 0; i < n; i++) {
        fputs("ebfarm_up", f);
        put_labels(f, &p[i], 0, NULL, NULL, NULL);
        fprintf(f, " %d\n", p[i].up ? 1 : 0);
        with_snap += p[i].snap != NULL;
    }
    if (!with_snap)
        return;
    put_header(f, "ebfarm_state", "gauge",
               "1 for the run-control state of the process's latest snapshot.");
    for (unsigned i = 0; i < n; i++) {
        if (!p[i].snap)
            continue;
        unsigned st = (unsigned)p[i].snap->state;
        const char *name = st >= EBF_S_INITIAL && st < EBF_S_END ? ebf_state_name((enum ebf_state)st) : "UNKNOWN";
        fputs("ebfarm_state", f);
        put_labels(f, &p[i], 0, NULL, "state", name);
        fputs(" 1\n", f);
    }
    put_header(f, "ebfarm_run_number", "gauge", "The run number of the process's latest snapshot.");
    for (unsigned i = 0; i < n; i++) {
        if (!p[i].snap)
            continue;
        fputs("ebfarm_run_number", f);
        put_labels(f, &p[i], 0, NULL, NULL, NULL);
        fprintf(f, " %u\n", p[i].snap->run_number);
    }
}

int prom_render(FILE *f, const struct prom_proc *p, unsigned n)
{
    struct families fs = {0};
    int rc = collect(p, n, &fs);

    if (rc)
        goto out;
    put_process_families(f, p, n);
    for (unsigned k = 0; k < fs.n; k++) {
        put_family_header(f, &fs.f[k]);
        for (unsigned i = 0; i < n; i++) {
            if (!p[i].snap)
                continue;
            int e = put_samples(f, &fs.f[k], &p[i]);
            if (e && !rc)
                rc = e;
        }
    }
out:
    free(fs.f);
    return rc;
}
