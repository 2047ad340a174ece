/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_mix.h - the 64-bit mixer behind every per-event choice that processes must agree on. */
#ifndef EBF_MIX_H
#define EBF_MIX_H

#include <stdint.h>

/*
 * A 64-bit mixer (the splitmix64 finaliser): the basis of every reproducible
 * per-event choice (fragment sizes, trigger decisions, the payload pattern)
 * and of the id digests the ledger compares, so every process that draws
 * from it agrees with every other. Pure; any thread.
 */
static inline uint64_t ebf_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#endif /* EBF_MIX_H */
