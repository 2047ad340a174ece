/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_parse.c - figures out of the runs' outputs: dpdk-testpmd's periodic stats, the readout's stats file. */
#include "bench_parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "ebf_kv.h"
#include "jsonout.h"

double bench_testpmd_tx_pps(FILE *out)
{
    double v[BENCH_MAX_PAIRS];
    size_t n = 0;
    char line[512];
    while (fgets(line, sizeof(line), out)) {
        const char *p = strstr(line, "Tx-pps:");
        if (!p)
            continue;
        char *end;
        double x = strtod(p + strlen("Tx-pps:"), &end);
        if (end == p + strlen("Tx-pps:"))
            continue;
        if (n == BENCH_MAX_PAIRS) { /* keep the latest samples */
            memmove(v, v + 1, (n - 1) * sizeof(*v));
            n--;
        }
        v[n++] = x;
    }
    if (n == 0)
        return -1;
    struct bench_spread s;
    size_t skip = n >= 2 ? 1 : 0;
    bench_spread_of(v + skip, n - skip, &s);
    return s.median;
}

/* The number after label in line, or -1 when line has no such label. */
static double number_after(const char *line, const char *label)
{
    const char *p = strstr(line, label);
    if (!p)
        return -1;
    char *end;
    double x = strtod(p + strlen(label), &end);
    return end == p + strlen(label) ? -1 : x;
}

int bench_testpmd_io_cycles(FILE *out, double *cycles, double *packets)
{
    char line[512];
    int accumulated = 0;
    *cycles = -1;
    *packets = -1;
    while (fgets(line, sizeof(line), out)) {
        if (strstr(line, "Accumulated forward statistics"))
            accumulated = 1;
        else if (accumulated && *packets < 0 && strstr(line, "TX-packets:"))
            *packets = number_after(line, "TX-packets:");
        if (strstr(line, "total cycles="))
            *cycles = number_after(line, "total cycles=");
    }
    return *cycles >= 0 && *packets >= 0 ? 0 : -1;
}

/* A port's "RX-bursts : T [P% of 0 pkts ..." after its rx packets: the
 * packets per non-empty burst, from P rounded down to a whole percent; -1
 * when over 90% were empty (too coarse) or the line is not that. */
static double rounded_rx_per_burst(const char *b, double rx)
{
    unsigned long long total;
    int zero_pct = 0, k = 0, n = 0;

    if (sscanf(b, "RX-bursts : %llu [%d%% of %d pkts%n", &total, &zero_pct, &n, &k) != 3 ||
        k == 0)
        return -1;
    double busy = (double)total * (n == 0 ? (100.0 - zero_pct) / 100.0 : 1.0);
    if (n != 0 || zero_pct <= 90)          /* else the rounding to 1% is too coarse */
        return busy > 0 ? rx / busy : -1;
    return -1;
}

int bench_testpmd_rx_per_burst(FILE *out, double *per_burst)
{
    char line[512];
    double rx = -1, tx = -1, rounded = -1, exact = -1;
    int accumulated = 0;

    *per_burst = -1;
    while (fgets(line, sizeof(line), out)) {
        const char *b = strstr(line, "RX-bursts : "), *t = strstr(line, "TX-bursts : ");
        unsigned long long total;
        if (strstr(line, "Accumulated"))
            accumulated = 1;
        if (strstr(line, "Forward statistics for port"))
            accumulated = 0;
        if (!accumulated && strstr(line, "RX-packets:"))
            rx = number_after(line, "RX-packets:");
        if (!accumulated && strstr(line, "TX-packets:"))
            tx = number_after(line, "TX-packets:");
        if (b && rx > 0 && rounded_rx_per_burst(b, rx) > 0)
            rounded = rounded_rx_per_burst(b, rx);
        /* the io forward transmits each non-empty receive burst in one
         * transmit burst (no retry; net_null takes all): exact */
        if (t && tx > 0 && sscanf(t, "TX-bursts : %llu", &total) == 1 && total > 0)
            exact = tx / (double)total;
        if (b)
            rx = -1;
        if (t)
            tx = -1;
    }
    *per_burst = exact > 0 ? exact : rounded;
    return *per_burst > 0 ? 0 : -1;
}

/* The JSON object in text: from its first line that starts with '{' (the
 * file holds the command's standard error too), to its end. */
static json_t *json_in(const char *text)
{
    const char *p = text[0] == '{' ? text : strstr(text, "\n{");

    if (!p)
        return NULL;
    p += p[0] == '\n';
    return json_loads(p, JSON_DISABLE_EOF_CHECK, NULL);
}

int bench_json_number(const char *text, const char *const *keys, unsigned n, double *out)
{
    json_t *root = json_in(text), *v = root;

    for (unsigned i = 0; v && i < n; i++)
        v = json_object_get(v, keys[i]);
    int rc = json_is_number(v) ? 0 : -1;
    if (!rc)
        *out = json_number_value(v);
    json_decref(root);
    return rc;
}

int bench_kv_number(const char *text, const char *key, double *out)
{
    size_t k = strlen(key);
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        if ((p != text && p[-1] != ' ' && p[-1] != '\n') || p[k] != '=')
            continue;
        const char *v0 = p + k + 1;
        char *end;
        double v = strtod(v0, &end);
        if (end == v0 || !(isdigit((unsigned char)*v0) || *v0 == '-' || *v0 == '.'))
            return -1;
        *out = v;
        return 0;
    }
    return -1;
}

int bench_ro_load(const char *path, struct bench_ro_run *r)
{
    struct ebf_kv kv;
    memset(r, 0, sizeof(*r));
    if (ebf_kv_load(&kv, path) != 0)
        return -1;
    int ok = ebf_kv_str(&kv, "frames") && ebf_kv_str(&kv, "start_ns") &&
             ebf_kv_str(&kv, "end_ns") && ebf_kv_str(&kv, "lcore.busy_cycles.0");
    r->frames = ebf_kv_u64(&kv, "frames", 0);
    r->bytes = ebf_kv_u64(&kv, "bytes", 0);
    r->start_ns = ebf_kv_u64(&kv, "start_ns", 0);
    r->end_ns = ebf_kv_u64(&kv, "end_ns", 0);
    r->busy_cycles = ebf_kv_u64(&kv, "lcore.busy_cycles.0", 0);
    ebf_kv_free(&kv);
    if (!ok || r->frames == 0 || r->end_ns <= r->start_ns)
        return -1;
    return 0;
}

double bench_ro_fps(const struct bench_ro_run *r)
{
    if (r->end_ns <= r->start_ns)
        return 0;
    return (double)r->frames * 1e9 / (double)(r->end_ns - r->start_ns);
}
