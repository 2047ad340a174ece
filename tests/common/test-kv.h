/* SPDX-License-Identifier: BSD-3-Clause */
/* test-kv.h - synthetic final counters for ledger and summary tests: one key, one id record. */
#ifndef TEST_KV_H
#define TEST_KV_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "ebf_idset.h"
#include "ebf_kv.h"

/* Append key = v to kv. */
static inline void put(struct ebf_kv *kv, const char *key, uint64_t v)
{
    kv->pair = realloc(kv->pair, (kv->n + 1) * sizeof(kv->pair[0]));
    ck_assert_ptr_nonnull(kv->pair);
    snprintf(kv->pair[kv->n].key, sizeof(kv->pair[0].key), "%s", key);
    snprintf(kv->pair[kv->n].val, sizeof(kv->pair[0].val), "%llu", (unsigned long long)v);
    kv->n++;
}

/* Append the id record r as "<prefix>.count.<cell>", ".id_sum.", ".hash_sum.". */
static inline void put_idset(struct ebf_kv *kv, const char *prefix, const struct ebf_idset *r)
{
    char key[96];

    for (unsigned c = 0; c < EBF_IDSET_CELLS; c++) {
        snprintf(key, sizeof(key), "%s.count.%u", prefix, c);
        put(kv, key, r->count[c]);
        snprintf(key, sizeof(key), "%s.id_sum.%u", prefix, c);
        put(kv, key, r->id_sum[c]);
        snprintf(key, sizeof(key), "%s.hash_sum.%u", prefix, c);
        put(kv, key, r->hash_sum[c]);
    }
}

#endif /* TEST_KV_H */
