/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_stats.c - median, min and max of a benchmark's runs; per-pair ratios. */
#include "bench_stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench_spread_of(const double *v, size_t n, struct bench_spread *out)
{
    double s[BENCH_MAX_PAIRS];
    memset(out, 0, sizeof(*out));
    if (n == 0)
        return 0;
    if (n > BENCH_MAX_PAIRS)
        return -1;
    memcpy(s, v, n * sizeof(*v));
    qsort(s, n, sizeof(*s), cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    return 0;
}

void bench_ratios(const double *subject, const double *reference, size_t n, double *ratio)
{
    for (size_t i = 0; i < n; i++)
        ratio[i] = reference[i] > 0 ? subject[i] / reference[i] : 0;
}
