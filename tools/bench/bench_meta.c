/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_meta.c - what a benchmark ran on: CPU model and frequency, DPDK version, date. */
#include "bench_meta.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef EBF_DPDK_VERSION
#define EBF_DPDK_VERSION "unknown"
#endif

/* The value after "key<spaces>: " of a cpuinfo line, or NULL. */
static const char *cpuinfo_value(const char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0)
        return NULL;
    line += k;
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != ':')
        return NULL;
    line++;
    while (*line == ' ')
        line++;
    return line;
}

void bench_meta_cpu(struct bench_meta *m, FILE *cpuinfo)
{
    char line[512];
    int have_model = 0, have_mhz = 0;
    snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
    m->cpu_mhz = 0;
    while (cpuinfo && fgets(line, sizeof(line), cpuinfo) && !(have_model && have_mhz)) {
        line[strcspn(line, "\n")] = '\0';
        const char *v;
        if (!have_model && (v = cpuinfo_value(line, "model name")) != NULL) {
            snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", v);
            have_model = 1;
        } else if (!have_mhz && (v = cpuinfo_value(line, "cpu MHz")) != NULL) {
            m->cpu_mhz = strtod(v, NULL);
            have_mhz = 1;
        }
    }
}

void bench_meta_collect(struct bench_meta *m)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    bench_meta_cpu(m, f);
    if (f)
        fclose(f);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->cpus = n > 0 ? (unsigned)n : 0;
    snprintf(m->dpdk_version, sizeof(m->dpdk_version), "%s", EBF_DPDK_VERSION);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
}
