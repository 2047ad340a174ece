/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_rng.h - the simulator's own seeded PRNG (xoshiro256**) and the distributions it draws. */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>

/*
 * One generator per run, seeded from one 64-bit seed through splitmix64:
 * the same seed gives the same sequence on every machine (no libc rand, no
 * time). The distributions use only +, *, log, sqrt, cos of doubles, which
 * IEEE 754 makes the same everywhere glibc's libm is.
 */
struct sim_rng {
    uint64_t s[4];
};

void sim_rng_seed(struct sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(struct sim_rng *r);

/* Uniform in [0, 1). */
double sim_rng_uniform(struct sim_rng *r);

/* Exponential with this mean. */
double sim_rng_exp(struct sim_rng *r, double mean);

/* Lognormal with this mean and sigma of the underlying normal. */
double sim_rng_lognormal(struct sim_rng *r, double mean, double sigma);

#endif /* SIM_RNG_H */
