/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_size.c - log-normal fragment sizes computed from (seed, source, event). */
#include "ro_size.h"

#include <math.h>

#include "ebf_mix.h"

#define TWO_POW_M53 (1.0 / 9007199254740992.0)      /* 2^-53 */

void ro_size_lognormal_params(double mean, double sd, double *mu, double *sigma)
{
    double cv = sd / mean;
    double s2 = log1p(cv * cv);

    *sigma = sqrt(s2);
    *mu = log(mean) - s2 / 2;
}

uint32_t ro_size_lognormal(uint64_t seed, uint16_t source, uint64_t event_id, double mu,
                           double sigma, uint32_t min, uint32_t max)
{
    uint64_t r1 = ebf_mix64(seed ^ ebf_mix64(event_id) ^ ((uint64_t)source << 40));
    uint64_t r2 = ebf_mix64(r1);
    double u1 = (double)((r1 >> 11) + 1) * TWO_POW_M53;    /* (0, 1]: log(u1) finite */
    double u2 = (double)(r2 >> 11) * TWO_POW_M53;          /* [0, 1) */
    double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
    double x = round(exp(mu + sigma * z));

    if (!(x >= (double)min))     /* NaN too */
        return min;
    if (x >= (double)max)
        return max;
    return (uint32_t)x;
}
