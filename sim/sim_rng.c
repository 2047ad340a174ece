/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_rng.c - xoshiro256** seeded by splitmix64, and exponential and lognormal draws. */
#include "sim_rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sim_rng_seed(struct sim_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(struct sim_rng *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double sim_rng_uniform(struct sim_rng *r)
{
    return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

double sim_rng_exp(struct sim_rng *r, double mean)
{
    return -mean * log(1.0 - sim_rng_uniform(r));
}

/* Box-Muller, one normal per call (the second is dropped: simpler state). */
double sim_rng_lognormal(struct sim_rng *r, double mean, double sigma)
{
    double u1 = 1.0 - sim_rng_uniform(r), u2 = sim_rng_uniform(r);
    double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
    double mu = log(mean) - sigma * sigma / 2.0;   /* so that the mean is `mean` */

    return exp(mu + sigma * z);
}
