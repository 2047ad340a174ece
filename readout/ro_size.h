/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_size.h - fragment-size distributions, each size a pure function of (seed, source, event); no DPDK. */
#ifndef RO_SIZE_H
#define RO_SIZE_H

#include <stdint.h>

enum ro_size_dist {
    RO_SIZE_UNIFORM = 0,         /* uniform in [min, max]; fixed when min == max */
    RO_SIZE_LOGNORMAL = 1,       /* log-normal, clamped to [min, max] */
};

/*
 * The parameters (mu, sigma) of the normal distribution whose exponential
 * has the given mean and standard deviation (both in bytes, mean > 0, sd >= 0):
 * sigma^2 = ln(1 + (sd/mean)^2), mu = ln(mean) - sigma^2 / 2.
 */
void ro_size_lognormal_params(double mean, double sd, double *mu, double *sigma);

/*
 * A log-normal size for (seed, source, event_id): exp(mu + sigma * z) rounded
 * to the nearest integer and clamped to [min, max], z a standard normal drawn
 * by Box-Muller from two 53-bit uniforms that are hashes of (seed, source,
 * event_id). Deterministic, so any process can recompute it; some 100 ns of
 * libm per call, no other cost.
 */
uint32_t ro_size_lognormal(uint64_t seed, uint16_t source, uint64_t event_id, double mu,
                           double sigma, uint32_t min, uint32_t max);

#endif /* RO_SIZE_H */
