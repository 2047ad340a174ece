/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_evtab.c - Check unit tests of the node's event table: slots by event id, probe runs after a free, the window of decided ids. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_idset.h"
#include "ebf_mix.h"
#include "ebf_proto.h"
#include "node_evtab.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */

static struct node_evtab t;
static void *mem;

static void table_new(uint16_t credits)
{
    size_t n = node_evtab_mem(credits);

    mem = aligned_alloc(64, (n + 63) & ~(size_t)63);
    ck_assert_ptr_nonnull(mem);
    memset(mem, 0, n);
    node_evtab_init(&t, credits, mem);
}

static void table_free(void)
{
    free(mem);
    mem = NULL;
}

static struct ebf_event_hdr hdr(uint64_t id)
{
    return (struct ebf_event_hdr){
        .n_sources = 3, .flags = EBF_EVF_INCOMPLETE, .event_id = id, .frame_count = 2,
        .event_bytes = 300, .present = {0x5, 0},
    };
}

/* New events take slots 0, 1, 2, ... made from their header; the same id
 * finds its slot again; a full table gives NULL. */
START_TEST(test_evtab_find)
{
    table_new(4);
    for (uint64_t id = 100; id < 104; id++) {
        struct ebf_event_hdr h = hdr(id);
        struct node_ev *e = node_evtab_find(&t, &h);
        ck_assert_ptr_nonnull(e);
        ck_assert_uint_eq(node_evtab_slot(&t, e), id - 100);
        ck_assert_uint_eq(e->id, id);
        ck_assert_uint_eq(e->used, 1);
        ck_assert_uint_eq(e->n_sources, 3);
        ck_assert_uint_eq(e->flags, EBF_EVF_INCOMPLETE);
        ck_assert_uint_eq(e->frame_count, 2);
        ck_assert_uint_eq(e->bytes, 300);
        ck_assert_uint_eq(e->present[0], 0x5);
        ck_assert_uint_eq(e->first_tx_ns, UINT64_MAX);
        ck_assert_uint_eq(e->got_bytes, 0);
    }
    struct ebf_event_hdr h = hdr(102);
    struct node_ev *e = node_evtab_find(&t, &h);
    e->frames_got = 1;
    ck_assert_uint_eq(node_evtab_slot(&t, node_evtab_find(&t, &h)), 2);
    ck_assert_uint_eq(e->frames_got, 1);    /* found, not made anew */
    h = hdr(999);
    ck_assert_ptr_null(node_evtab_find(&t, &h));
    ck_assert_uint_eq(node_evtab_used(&t), 4);
    ck_assert_uint_eq(t.n_free, 0);
    table_free();
}
END_TEST

/* A freed slot is the next one handed out, cleared for its new event. */
START_TEST(test_evtab_free_reuse)
{
    table_new(4);
    struct node_ev *e[4];
    for (uint64_t id = 0; id < 4; id++) {
        struct ebf_event_hdr h = hdr(id);
        e[id] = node_evtab_find(&t, &h);
    }
    e[1]->got_bytes = 77;
    e[1]->status = EBF_ACKS_BAD_CRC;
    node_evtab_free(&t, e[1]);
    ck_assert_uint_eq(e[1]->used, 0);
    ck_assert_uint_eq(node_evtab_used(&t), 3);
    struct ebf_event_hdr h = hdr(50);
    struct node_ev *n = node_evtab_find(&t, &h);
    ck_assert_ptr_eq(n, e[1]);
    ck_assert_uint_eq(n->id, 50);
    ck_assert_uint_eq(n->got_bytes, 0);
    ck_assert_uint_eq(n->status, 0);
    h = hdr(1);                 /* the freed id is gone: no slot left */
    ck_assert_ptr_null(node_evtab_find(&t, &h));
    table_free();
}
END_TEST

/* Many ids sharing probe runs: after every other one is freed, each that
 * stays is found in its own slot (the run shifted back, nothing lost) and
 * each freed one is gone. */
START_TEST(test_evtab_probe_runs)
{
    const uint16_t n = 200;

    table_new(n);
    for (uint64_t id = 0; id < n; id++) {
        struct ebf_event_hdr h = hdr(id * 7919);
        ck_assert_uint_eq(node_evtab_slot(&t, node_evtab_find(&t, &h)), id);
    }
    for (uint64_t id = 0; id < n; id += 2) {
        struct ebf_event_hdr h = hdr(id * 7919);
        node_evtab_free(&t, node_evtab_find(&t, &h));
    }
    ck_assert_uint_eq(t.n_free, n / 2);
    for (uint64_t id = 1; id < n; id += 2) {
        struct ebf_event_hdr h = hdr(id * 7919);
        ck_assert_uint_eq(node_evtab_slot(&t, node_evtab_find(&t, &h)), id);
    }
    ck_assert_uint_eq(t.n_free, n / 2);    /* all found, none made */
    unsigned in_index = 0;
    for (uint32_t i = 0; i <= t.idx_mask; i++)
        in_index += t.idx[i].slot != NODE_EV_NONE;
    ck_assert_uint_eq(in_index, n / 2);
    ck_assert_uint_eq(t.idx_mask, 511);    /* the next power of two of 2 * credits, less 1 */
    table_free();
}
END_TEST

/* The window of decided ids: an id noted is found with its ack until an
 * id a window apart takes its place; reset keeps it. */
START_TEST(test_evtab_done)
{
    table_new(2);
    struct ebf_ack a = {.event_id = 7, .decision = EBF_DEC_ACCEPT, .status = EBF_ACKS_BAD_PATTERN};
    ck_assert_ptr_null(node_evtab_done(&t, 7));
    ck_assert_ptr_null(node_evtab_done(&t, 0));     /* 0 never decided: no false match */
    node_evtab_note_done(&t, &a);
    const struct ebf_ack *d = node_evtab_done(&t, 7);
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq(d->event_id, 7);
    ck_assert_uint_eq(d->decision, EBF_DEC_ACCEPT);
    ck_assert_uint_eq(d->status, EBF_ACKS_BAD_PATTERN);
    ck_assert_ptr_null(node_evtab_done(&t, 8));
    ck_assert_ptr_null(node_evtab_done(&t, 7 + NODE_DONE_WINDOW));
    node_evtab_reset(&t);
    ck_assert_ptr_nonnull(node_evtab_done(&t, 7));
    struct ebf_ack b = {.event_id = 7 + NODE_DONE_WINDOW, .decision = EBF_DEC_REJECT};
    node_evtab_note_done(&t, &b);
    ck_assert_ptr_null(node_evtab_done(&t, 7));
    ck_assert_uint_eq(node_evtab_done(&t, 7 + NODE_DONE_WINDOW)->decision, EBF_DEC_REJECT);
    table_free();
}
END_TEST

/* Reset frees every slot, slot 0 first again. */
START_TEST(test_evtab_reset)
{
    table_new(3);
    for (uint64_t id = 10; id < 13; id++) {
        struct ebf_event_hdr h = hdr(id);
        node_evtab_find(&t, &h);
    }
    node_evtab_reset(&t);
    ck_assert_uint_eq(node_evtab_used(&t), 0);
    ck_assert_uint_eq(t.n_free, 3);
    struct ebf_event_hdr h = hdr(11);
    struct node_ev *e = node_evtab_find(&t, &h);
    ck_assert_uint_eq(node_evtab_slot(&t, e), 0);
    ck_assert_uint_eq(t.n_free, 2);
    table_free();
}
END_TEST

/* The record of the ids decided at or above a watermark (docs/protocol.md
 * 13.6): ids 100..199 decided, every third accepted; mark 150 gives the 50
 * ids 150..199, 17 accepted, their digest; complete until an id 65536
 * above the mark evicts one. */
START_TEST(test_evtab_after_mark)
{
    struct ebf_idset ids, acc, want, want_acc;
    uint64_t digest = 0, want_digest = 0;
    int complete = 0;

    table_new(2);
    ebf_idset_init(&ids);
    ebf_idset_init(&acc);
    ebf_idset_init(&want);
    ebf_idset_init(&want_acc);
    for (uint64_t id = 100; id < 200; id++) {
        struct ebf_ack a = {.event_id = id,
                            .decision = id % 3 ? EBF_DEC_REJECT : EBF_DEC_ACCEPT};
        node_evtab_note_done(&t, &a);
        if (id < 150)
            continue;
        ebf_idset_add(&want, id);
        if (id % 3 == 0)
            ebf_idset_add(&want_acc, id);
        want_digest += ebf_mix64(id);
    }
    ck_assert_uint_eq(node_evtab_after(&t, 150, &ids, &acc, &digest, &complete), 50);
    ck_assert_int_eq(complete, 1);
    ck_assert_uint_eq(digest, want_digest);
    ebf_idset_merge(&ids, &want, -1);
    ebf_idset_merge(&acc, &want_acc, -1);
    ck_assert(ebf_idset_empty(&ids));
    ck_assert(ebf_idset_empty(&acc));
    uint64_t n_acc = 0;
    for (uint64_t id = 150; id < 200; id++)
        n_acc += id % 3 == 0;
    ck_assert_uint_eq(n_acc, 17);
    /* a mark above every id: an empty record; id 0 never decided is not in it */
    ebf_idset_init(&ids);
    digest = 0;
    ck_assert_uint_eq(node_evtab_after(&t, 200, &ids, &acc, &digest, &complete), 0);
    ck_assert(ebf_idset_empty(&ids));
    ck_assert_uint_eq(digest, 0);
    ck_assert_uint_eq(node_evtab_after(&t, 0, &ids, &acc, &digest, &complete), 100);
    /* id 150 + 65536 evicts 150: 50 ids still, the record says it may lack some */
    struct ebf_ack far = {.event_id = 150 + NODE_DONE_WINDOW, .decision = EBF_DEC_REJECT};
    node_evtab_note_done(&t, &far);
    ebf_idset_init(&ids);
    ck_assert_uint_eq(node_evtab_after(&t, 150, &ids, &acc, &digest, &complete), 50);
    ck_assert_int_eq(complete, 0);
    table_free();
}
END_TEST

Suite *node_evtab_suite(void);   /* called by check-main.c, which has no header */

Suite *node_evtab_suite(void)
{
    Suite *s = suite_create("node_evtab");
    TCase *tc = tcase_create("evtab");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_evtab_find);
    tcase_add_test(tc, test_evtab_free_reuse);
    tcase_add_test(tc, test_evtab_probe_runs);
    tcase_add_test(tc, test_evtab_done);
    tcase_add_test(tc, test_evtab_reset);
    tcase_add_test(tc, test_evtab_after_mark);
    suite_add_tcase(s, tc);
    return s;
}
