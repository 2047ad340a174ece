/* SPDX-License-Identifier: BSD-3-Clause */
/* test-snapshot.h - metrics snapshots as a subscriber receives them, and FILE output captured, for the monitor tests. */
#ifndef TEST_SNAPSHOT_H
#define TEST_SNAPSHOT_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ebf_hist.h"
#include "ebf_metrics.h"
#include "ebf_pb.h"

/* The list as a daemon would publish it and top would receive it: packed
 * and unpacked again. The list is cleared for the next snapshot. */
static inline Ebfarm__Snapshot *received(struct ebf_metrics *ms, const char *component,
                                  const char *instance, uint32_t run, int state, uint64_t time_ns)
{
    Ebfarm__Snapshot *s = ebf_pb_snapshot(ms, component, instance, 1, run, state);
    ck_assert_ptr_nonnull(s);
    s->time_ns = time_ns;
    size_t n = ebfarm__snapshot__get_packed_size(s);
    uint8_t *buf = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(buf);
    ebfarm__snapshot__pack(s, buf);
    Ebfarm__Snapshot *r = ebfarm__snapshot__unpack(NULL, n, buf);
    ck_assert_ptr_nonnull(r);
    free(buf);
    ebf_pb_snapshot_free(s);
    ebf_metrics_clear(ms);
    return r;
}

static inline void drop(Ebfarm__Snapshot *s)
{
    if (s)
        ebfarm__snapshot__free_unpacked(s, NULL);
}

/* What a FILE-writing function wrote, as a malloc'd string. */
#define CAPTURE(text, call)                                                                        \
    do {                                                                                           \
        size_t len_;                                                                               \
        FILE *m_ = open_memstream(&(text), &len_);                                                 \
        ck_assert_ptr_nonnull(m_);                                                                 \
        call;                                                                                      \
        fclose(m_);                                                                                \
    } while (0)

static inline void hist_fill(struct ebf_hist *h, uint64_t v, unsigned times)
{
    for (unsigned i = 0; i < times; i++)
        ebf_hist_add(h, v);
}

#endif /* TEST_SNAPSHOT_H */
