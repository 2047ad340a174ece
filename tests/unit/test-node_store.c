/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_store.c - Check unit tests of the node's storage: records read back, streams, rotation by size and age, a failing directory, losses by reason, no free block. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ebf_proto.h"
#include "ebf_store_read.h"
#include "node_store.h"

#define T_TIMEOUT 60

static char dir[64];
static uint8_t payload[3][20000];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/ebftest-store-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < 20000; i++)
            payload[s][i] = (uint8_t)(s * 7 + i);
}

static void teardown(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Event id of 3 sources, source 1 missing; source 0 in two pieces. */
static enum node_store_put put(struct node_store *s, uint16_t stream, uint64_t id, uint32_t len)
{
    static struct ebf_trigger_piece p0[2], p2[1];
    struct ebf_trigger_fragment f[3] = {
        {.len = len, .n_pieces = 2, .pieces = p0}, {0}, {.len = len, .n_pieces = 1, .pieces = p2},
    };
    struct ebf_store_rec h = {.event_id = id, .flags = 1, .n_sources = 3, .present = {5, 0}};

    p0[0] = (struct ebf_trigger_piece){payload[0], len / 2};
    p0[1] = (struct ebf_trigger_piece){payload[0] + len / 2, len - len / 2};
    p2[0] = (struct ebf_trigger_piece){payload[2], len};
    return node_store_put(s, stream, &h, f, NULL);
}

static struct node_store *make(const struct node_store_conf *c0, uint32_t run)
{
    struct node_store_conf c = *c0;
    struct node_store_id id = {.run = run, .sfc = 5, .node = 3, .farm = "tfarm"};
    char err[256];

    snprintf(c.dir, sizeof(c.dir), "%s", c0->dir[0] ? c0->dir : dir);
    struct node_store *s = node_store_create(&c, &id, err, sizeof(err));
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

/* The name make()'s store gives file (run, stream, seq): node 3 of SFC 5. */
static void file_name(char *buf, size_t len, uint32_t run, uint16_t stream, uint32_t seq)
{
    node_store_file_name(buf, len, &(struct node_store_id){.run = run, .sfc = 5, .node = 3},
                         stream, seq);
}

static void finish(struct node_store *s)
{
    node_store_finish(s);
    for (int i = 0; i < 5000 && !node_store_done(s); i++)
        usleep(1000);
    ck_assert(node_store_done(s));
}

/* The records of file (run, stream, seq): their ids appended to ids. */
static unsigned read_file(uint32_t run, uint16_t stream, uint32_t seq, uint64_t *ids, int whole)
{
    char name[64], path[160], err[256];
    struct ebf_store_file f;
    struct ebf_store_rec r;
    struct ebf_store_frag g;
    unsigned n = 0;

    file_name(name, sizeof(name), run, stream, seq);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_msg(ebf_store_open(&f, path, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(f.hdr.run, run);
    ck_assert_uint_eq(f.hdr.node, 3);
    ck_assert_uint_eq(f.hdr.stream, stream);
    ck_assert_uint_eq(f.hdr.seq, seq);
    ck_assert_str_eq(f.hdr.farm, "tfarm");
    ck_assert_int_eq(f.trl_err == EBF_STORE_E_OK, whole);
    while (ebf_store_next(&f, &r, err, sizeof(err)) == 1) {
        size_t pos = 0;
        ck_assert_uint_eq(r.flags, 1);
        ck_assert_uint_eq(r.n_frags, 2);
        for (unsigned k = 0; ebf_store_frag_next(&r, &pos, &g); k++) {
            ck_assert_uint_eq(g.source, k * 2);
            ck_assert_int_eq(memcmp(g.data, payload[g.source], g.len), 0);
        }
        ids[n++] = r.event_id;
    }
    ck_assert_int_eq(f.truncated, 0);
    if (whole)
        ck_assert_uint_eq(f.trl.n_records, n);
    ebf_store_close(&f);
    return n;
}

/* A file's name carries the run, the SFC and the node: nodes of different
 * SFCs share ids and may share a directory. */
START_TEST(test_file_name)
{
    char name[64];

    node_store_file_name(name, sizeof(name),
                         &(struct node_store_id){.run = 42, .sfc = 1, .node = 3}, 0, 1);
    ck_assert_str_eq(name, "run000042-sfc01-node03-s0-000001.ebfev");
    node_store_file_name(name, sizeof(name),
                         &(struct node_store_id){.run = 7, .sfc = 0, .node = 3}, 2, 0);
    ck_assert_str_eq(name, "run000007-sfc00-node03-s2-000000.ebfev");
    node_store_file_name(name, sizeof(name),
                         &(struct node_store_id){.run = 999999, .sfc = 65535, .node = 1023},
                         65535, 4294967295u);
    ck_assert_str_eq(name, "run999999-sfc65535-node1023-s65535-4294967295.ebfev");
}
END_TEST

START_TEST(test_streams)
{
    struct node_store_conf c = {.max_file_mb = 256, .max_file_s = 300};
    struct node_store *s = make(&c, 7);
    struct node_store_stats st;
    uint64_t ids[64];

    for (uint64_t id = 0; id < 20; id++)
        ck_assert_int_eq(put(s, (uint16_t)(id % 2 ? 2 : 0), id, 100 + (uint32_t)id), NODE_STORE_OK);
    ck_assert_int_eq(put(s, 9, 99, 10), NODE_STORE_LOST);
    finish(s);
    ck_assert_uint_eq(read_file(7, 0, 0, ids, 1), 10);
    for (unsigned i = 0; i < 10; i++)
        ck_assert_uint_eq(ids[i], 2 * i);
    ck_assert_uint_eq(read_file(7, 2, 0, ids, 1), 10);
    ck_assert_uint_eq(ids[9], 19);
    node_store_stats_read(s, &st);
    ck_assert_uint_eq(st.accepted[0], 10);
    ck_assert_uint_eq(st.events[2], 10);
    ck_assert_uint_eq(st.lost[NODE_SL_BAD_STREAM], 1);
    ck_assert_uint_eq(st.files, 2);
    ck_assert_uint_eq(st.files_closed, 2);
    node_store_destroy(s);
}
END_TEST

/* An event with a replayed piece (EBF_FRAGF_REPLAY on source 2) is stored
 * marked: record flags INCOMPLETE | REPLAYED, the fragment's flag kept;
 * one with none is not. */
START_TEST(test_replayed_marked)
{
    struct node_store_conf c = {.max_file_mb = 256, .max_file_s = 300};
    struct node_store *s = make(&c, 8);
    static struct ebf_trigger_piece p0[1], p2[1];
    struct ebf_trigger_fragment f[3] = {
        {.len = 64, .n_pieces = 1, .pieces = p0}, {0}, {.len = 64, .n_pieces = 1, .pieces = p2},
    };
    const uint16_t flags[3] = {0, 0, EBF_FRAGF_REPLAY};
    char name[64], path[160], err[256];
    struct ebf_store_file file;
    struct ebf_store_rec r;
    struct ebf_store_frag g;
    uint16_t want[2] = {EBF_STORE_REC_INCOMPLETE | EBF_STORE_REC_REPLAYED,
                        EBF_STORE_REC_INCOMPLETE};

    p0[0] = (struct ebf_trigger_piece){payload[0], 64};
    p2[0] = (struct ebf_trigger_piece){payload[2], 64};
    for (uint64_t id = 40; id < 42; id++) {
        struct ebf_store_rec h = {.event_id = id, .flags = EBF_STORE_REC_INCOMPLETE,
                                  .n_sources = 3, .present = {5, 0}};
        ck_assert_int_eq(node_store_put(s, 0, &h, f, id == 40 ? flags : NULL), NODE_STORE_OK);
    }
    finish(s);
    file_name(name, sizeof(name), 8, 0, 0);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_msg(ebf_store_open(&file, path, err, sizeof(err)) == 0, "%s", err);
    for (unsigned i = 0; i < 2; i++) {
        size_t pos = 0;
        ck_assert_int_eq(ebf_store_next(&file, &r, err, sizeof(err)), 1);
        ck_assert_uint_eq(r.event_id, 40 + i);
        ck_assert_uint_eq(r.flags, want[i]);
        ck_assert(ebf_store_frag_next(&r, &pos, &g));
        ck_assert_uint_eq(g.flags, 0);
        ck_assert(ebf_store_frag_next(&r, &pos, &g));
        ck_assert_uint_eq(g.source, 2);
        ck_assert_uint_eq(g.flags, i ? 0 : EBF_FRAGF_REPLAY);
    }
    ck_assert_int_eq(ebf_store_next(&file, &r, err, sizeof(err)), 0);
    ebf_store_close(&file);
    node_store_destroy(s);
}
END_TEST

/* A node restarted into the same run (same SFC, node id and run) goes on
 * with its series: its first file is number 1, file 0 of the first
 * process is left as it was, and storage does not fail. */
START_TEST(test_restart_continues)
{
    struct node_store_conf c = {.max_file_mb = 256, .max_file_s = 300};
    struct node_store_stats st;
    uint64_t ids[8];
    char name[64], path[160];

    for (unsigned round = 0; round < 2; round++) {
        struct node_store *s = make(&c, 4);
        for (uint64_t id = 0; id < 3; id++)
            ck_assert_int_eq(put(s, 0, 10 * round + id, 100), NODE_STORE_OK);
        finish(s);
        node_store_stats_read(s, &st);
        ck_assert_uint_eq(st.files, 1);
        ck_assert_uint_eq(st.lost[NODE_SL_FAILED], 0);
        node_store_destroy(s);
    }
    ck_assert_uint_eq(read_file(4, 0, 0, ids, 1), 3);
    ck_assert_uint_eq(ids[0], 0);
    ck_assert_uint_eq(read_file(4, 0, 1, ids, 1), 3);
    ck_assert_uint_eq(ids[0], 10);
    file_name(name, sizeof(name), 4, 0, 2);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/* 1 MiB files of 128 KiB writes: records of 20 KiB, 200 of them. */
START_TEST(test_rotate_size)
{
    struct node_store_conf c = {.max_file_mb = 1, .buffer_mb = 1};
    struct node_store *s = make(&c, 1);
    static uint64_t ids[400];
    unsigned n = 0, seq = 0;
    char name[64], path[160];

    for (uint64_t id = 0; id < 200; id++)
        while (put(s, 0, id, 10000) == NODE_STORE_AGAIN)
            usleep(100);
    finish(s);
    for (;; seq++) {
        file_name(name, sizeof(name), 1, 0, seq);
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (access(path, F_OK) != 0)
            break;
        n += read_file(1, 0, seq, ids + n, 1);
    }
    ck_assert_uint_eq(n, 200);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_eq(ids[i], i);
    ck_assert_uint_ge(seq, 4);   /* 4 MB of records in files below 1 MiB */
    node_store_destroy(s);
}
END_TEST

START_TEST(test_rotate_age)
{
    struct node_store_conf c = {.max_file_mb = 256, .max_file_s = 0.05};
    struct node_store *s = make(&c, 2);
    uint64_t ids[8];

    ck_assert_int_eq(put(s, 0, 1, 50), NODE_STORE_OK);
    node_store_tick(s, node_store_mono_ns(), 0);
    usleep(300000);
    ck_assert_int_eq(put(s, 0, 2, 50), NODE_STORE_OK);
    finish(s);
    ck_assert_uint_eq(read_file(2, 0, 0, ids, 1), 1);
    ck_assert_uint_eq(ids[0], 1);
    ck_assert_uint_eq(read_file(2, 0, 1, ids, 1), 1);
    ck_assert_uint_eq(ids[0], 2);
    node_store_destroy(s);
}
END_TEST

START_TEST(test_fail)
{
    struct node_store_conf c = {.max_file_mb = 256, .dir = "/nonexistent-ebf"};
    struct node_store *s = make(&c, 1);
    struct node_store_stats st;
    char why[512];

    ck_assert_int_eq(node_store_failed(s, why, sizeof(why)), 0);
    ck_assert_int_eq(put(s, 0, 1, 50), NODE_STORE_OK);
    node_store_tick(s, node_store_mono_ns(), 0);
    for (int i = 0; i < 2000 && !node_store_failed(s, why, sizeof(why)); i++)
        usleep(1000);
    ck_assert_str_eq(why, "storage: open /nonexistent-ebf/run000001-sfc05-node03-s0-000000.ebfev: "
                          "No such file or directory (errno 2)");
    ck_assert_int_eq(put(s, 0, 2, 50), NODE_STORE_LOST);
    ck_assert_int_eq(put(s, 0, 3, 50), NODE_STORE_LOST);
    finish(s);
    node_store_stats_read(s, &st);
    ck_assert_int_eq(st.failed, 1);
    ck_assert_uint_eq(st.accepted[0], 3);
    ck_assert_uint_eq(st.events[0], 0);
    ck_assert_uint_eq(st.lost[NODE_SL_FAILED], 3);
    ck_assert_uint_eq(st.lost_stream[0], 3);
    node_store_destroy(s);
}
END_TEST

/* A writer at 1 MB/s behind a 1 MiB buffer: the 9th block finds none free;
 * the event is taken once one is written, and too large a record is lost. */
START_TEST(test_no_free_block)
{
    struct node_store_conf c = {.max_file_mb = 256, .buffer_mb = 1, .max_mbs = 1};
    struct node_store *s = make(&c, 1);
    struct node_store_stats st;
    uint64_t id = 0;
    enum node_store_put r;

    while ((r = put(s, 0, id, 16000)) == NODE_STORE_OK)
        id++;
    ck_assert_int_eq(r, NODE_STORE_AGAIN);
    ck_assert_uint_ge(id, 7 * 4);   /* 4 records of 32 KiB a 128 KiB block */
    ck_assert_uint_le(id, 9 * 4);
    while ((r = put(s, 0, id, 16000)) == NODE_STORE_AGAIN)
        usleep(1000);
    ck_assert_int_eq(r, NODE_STORE_OK);
    ck_assert_int_eq(put(s, 0, ++id, 70000), NODE_STORE_LOST);
    finish(s);
    node_store_stats_read(s, &st);
    ck_assert_uint_eq(st.events[0], id);
    ck_assert_uint_eq(st.lost[NODE_SL_TOO_LARGE], 1);
    ck_assert_uint_eq(st.accepted[0], id + 1);
    node_store_destroy(s);
}
END_TEST

/* Out of descriptors (as under a flood of connections on the control
 * socket): the files are opened from the storage's reserve, every event
 * stored, none lost, the storage not failed. */
START_TEST(test_fd_reserve)
{
    struct node_store_conf c = {.max_file_mb = 1};
    struct node_store *s = make(&c, 1);
    struct node_store_stats st;
    struct rlimit rl0, rl;
    static int fill[4096];
    unsigned n = 0, done = 0;
    static uint64_t ids[128];
    char why[512];

    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl0), 0);
    rl = rl0;
    rl.rlim_cur = 256;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    while (n < 4096 && (fill[n] = dup(0)) >= 0)
        n++;
    ck_assert_int_eq(errno, EMFILE);
    for (uint64_t id = 0; id < 80; id++)      /* 40 KB each, in 2 MiB blocks: 2 files */
        ck_assert_int_eq(put(s, 0, id, 20000), NODE_STORE_OK);
    finish(s);
    ck_assert_int_eq(node_store_failed(s, why, sizeof(why)), 0);
    node_store_stats_read(s, &st);
    while (n)
        close(fill[--n]);
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl0), 0);
    ck_assert_uint_eq(st.events[0], 80);
    ck_assert_uint_eq(st.lost[NODE_SL_FAILED], 0);
    ck_assert_uint_eq(st.files, 2);          /* both opened with no descriptor free */
    for (uint32_t seq = 0; seq < st.files; seq++)
        done += read_file(1, 0, seq, ids, 1);
    ck_assert_uint_eq(done, 80);
    node_store_destroy(s);
}
END_TEST

Suite *node_store_suite(void);
Suite *node_store_suite(void)
{
    Suite *s = suite_create("node_store");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_file_name);
    tcase_add_test(tc, test_streams);
    tcase_add_test(tc, test_restart_continues);
    tcase_add_test(tc, test_rotate_size);
    tcase_add_test(tc, test_rotate_age);
    tcase_add_test(tc, test_fail);
    tcase_add_test(tc, test_no_free_block);
    tcase_add_test(tc, test_fd_reserve);
    tcase_add_test(tc, test_replayed_marked);
    suite_add_tcase(s, tc);
    return s;
}
