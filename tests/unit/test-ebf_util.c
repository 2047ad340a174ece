/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_util.c - unit tests of the DPDK-free helpers: parsing, stats files, idle policy. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ebf_idle.h"
#include "ebf_kv.h"
#include "ebf_util.h"

START_TEST(test_parse_mac)
{
    uint8_t m[6];
    char buf[18];

    ck_assert_int_eq(ebf_parse_mac("02:eb:00:0a:FF:10", m), 0);
    ck_assert_uint_eq(m[0], 0x02);
    ck_assert_uint_eq(m[1], 0xeb);
    ck_assert_uint_eq(m[3], 0x0a);
    ck_assert_uint_eq(m[4], 0xff);
    ck_assert_uint_eq(m[5], 0x10);
    ck_assert_str_eq(ebf_format_mac(m, buf), "02:eb:00:0a:ff:10");
    ck_assert_int_eq(ebf_parse_mac("zz:00:00:00:00:00", m), -EINVAL);
    ck_assert_int_eq(ebf_parse_mac("02:eb:00:0a:ff", m), -EINVAL);
    ck_assert_int_eq(ebf_parse_mac("02:eb:00:0a:ff:10:11", m), -EINVAL);
    ck_assert_int_eq(ebf_parse_mac("", m), -EINVAL);
}
END_TEST

START_TEST(test_parse_u64)
{
    uint64_t v;

    ck_assert_int_eq(ebf_parse_u64("200000", 0, UINT64_MAX, &v), 0);
    ck_assert_uint_eq(v, 200000);
    ck_assert_int_eq(ebf_parse_u64("200k", 0, UINT64_MAX, &v), 0);
    ck_assert_uint_eq(v, 200000);
    ck_assert_int_eq(ebf_parse_u64("2M", 0, UINT64_MAX, &v), 0);
    ck_assert_uint_eq(v, 2000000);
    ck_assert_int_eq(ebf_parse_u64("0x10", 0, UINT64_MAX, &v), 0);
    ck_assert_uint_eq(v, 16);
    ck_assert_int_eq(ebf_parse_u64("0", 1, 10, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64("11", 1, 10, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64("-1", 0, UINT64_MAX, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64("12x", 0, UINT64_MAX, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64("", 0, UINT64_MAX, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64("99999999999999999999", 0, UINT64_MAX, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64("20000000000G", 0, UINT64_MAX, &v), -EINVAL);
    /* Strict: a digit first (strtoull alone takes " -1" as UINT64_MAX). */
    v = 7;
    ck_assert_int_eq(ebf_parse_u64(" -1", 0, UINT64_MAX, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64(" 5", 0, UINT64_MAX, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64("+5", 0, UINT64_MAX, &v), -EINVAL);
    ck_assert_int_eq(ebf_parse_u64("5 ", 0, UINT64_MAX, &v), -EINVAL);
    ck_assert_uint_eq(v, 7);
}
END_TEST

START_TEST(test_parse_double)
{
    double d;

    ck_assert_int_eq(ebf_parse_double("0.25", 0, 1, &d), 0);
    ck_assert(d == 0.25);
    ck_assert_int_eq(ebf_parse_double("1.5", 0, 1, &d), -EINVAL);
    ck_assert_int_eq(ebf_parse_double("nan", 0, 1, &d), -EINVAL);
    ck_assert_int_eq(ebf_parse_double("1e3x", 0, 1e9, &d), -EINVAL);
    /* Strict: no blanks, no infinity or hex floats, nothing after. */
    d = 7;
    ck_assert_int_eq(ebf_parse_double(" 1", 0, 1e9, &d), -EINVAL);
    ck_assert_int_eq(ebf_parse_double("1 ", 0, 1e9, &d), -EINVAL);
    ck_assert_int_eq(ebf_parse_double("inf", 0, INFINITY, &d), -EINVAL);
    ck_assert_int_eq(ebf_parse_double("0x10", 0, 1e9, &d), -EINVAL);
    ck_assert(d == 7);
    ck_assert_int_eq(ebf_parse_double("-0.5", -1, 1, &d), 0);
    ck_assert(d == -0.5);
    ck_assert_int_eq(ebf_parse_double(".5", 0, 1, &d), 0);
    ck_assert(d == 0.5);
}
END_TEST

/* Bytes shown in messages: NUL, quotes and control bytes escaped, cut with "...". */
START_TEST(test_quote)
{
    char buf[32];

    ck_assert_str_eq(ebf_quote("10\0garbage", 10, buf, sizeof(buf)), "10\\0garbage");
    ck_assert_str_eq(ebf_quote("a\"b\\c\n\x7f", 7, buf, sizeof(buf)), "a\\\"b\\\\c\\x0a\\x7f");
    ck_assert_str_eq(ebf_quote("", 0, buf, sizeof(buf)), "");
    ck_assert_str_eq(ebf_quote("0123456789", 10, buf, 11), "0123456789");
    ck_assert_str_eq(ebf_quote("0123456789", 10, buf, 10), "012345...");
    ck_assert_str_eq(ebf_quote("\0\0\0\0\0", 5, buf, 10), "\\0\\0\\0...");
    ck_assert_str_eq(ebf_quote("abc", 3, buf, 3), "");
}
END_TEST

START_TEST(test_kv_roundtrip)
{
    char path[] = "/tmp/ebf-test-kv-XXXXXX";
    int fd = mkstemp(path);
    struct ebf_kv kv;

    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ebf_kv_put(f, "events", 200000);
    ebf_kv_put(f, "rx.reject.bad_checksum", 3);
    ebf_kv_put(f, "id_digest", UINT64_MAX);
    fprintf(f, "# comment\n\nname word\n");
    fclose(f);
    ck_assert_int_eq(ebf_kv_load(&kv, path), 0);
    ck_assert_uint_eq(kv.n, 4);
    ck_assert_uint_eq(ebf_kv_u64(&kv, "events", 0), 200000);
    ck_assert_uint_eq(ebf_kv_u64(&kv, "rx.reject.bad_checksum", 0), 3);
    ck_assert_uint_eq(ebf_kv_u64(&kv, "id_digest", 0), UINT64_MAX);
    ck_assert_uint_eq(ebf_kv_u64(&kv, "absent", 42), 42);
    ck_assert_uint_eq(ebf_kv_u64(&kv, "name", 7), 7);
    ck_assert_str_eq(ebf_kv_str(&kv, "name"), "word");
    ebf_kv_free(&kv);

    f = fopen(path, "w");
    fprintf(f, "lonely\n");
    fclose(f);
    ck_assert_int_eq(ebf_kv_load(&kv, path), -EINVAL);
    unlink(path);
    ck_assert_int_eq(ebf_kv_load(&kv, path), -ENOENT);
}
END_TEST

/* A stats file appears under its name only when committed. */
START_TEST(test_kv_commit)
{
    char dir[] = "/tmp/ebf-test-kvc-XXXXXX", path[64], tmp[80];
    struct ebf_kv kv;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/x.stats", dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = ebf_kv_create(path);
    ck_assert_ptr_nonnull(f);
    ebf_kv_put(f, "events", 5);
    ck_assert_int_eq(access(path, F_OK), -1);
    ck_assert_int_eq(access(tmp, F_OK), 0);
    ck_assert_int_eq(ebf_kv_commit(f, path), 0);
    ck_assert_int_eq(access(tmp, F_OK), -1);
    ck_assert_int_eq(ebf_kv_load(&kv, path), 0);
    ck_assert_uint_eq(kv.n, 1);
    ck_assert_uint_eq(ebf_kv_u64(&kv, "events", 0), 5);
    ebf_kv_free(&kv);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(test_idle)
{
    struct ebf_idle b;
    enum ebf_idle_mode m;

    ck_assert_int_eq(ebf_idle_parse("spin", &m), 0);
    ck_assert_int_eq(m, EBF_IDLE_SPIN);
    ck_assert_int_eq(ebf_idle_parse("backoff", &m), 0);
    ck_assert_int_eq(m, EBF_IDLE_BACKOFF);
    ck_assert_int_eq(ebf_idle_parse("sleep", &m), -EINVAL);

    /* Spin mode never sleeps. */
    ebf_idle_init(&b, EBF_IDLE_SPIN);
    for (int i = 0; i < 5000; i++)
        ebf_idle_note(&b, 0);
    ck_assert_uint_eq(b.sleeps, 0);

    /* Back-off: spin, pause, then sleeps that double up to the cap. */
    ebf_idle_init(&b, EBF_IDLE_BACKOFF);
    b.max_sleep_us = 8;
    for (uint32_t i = 0; i < b.spin + b.pause; i++)
        ebf_idle_note(&b, 0);
    ck_assert_uint_eq(b.sleeps, 0);
    ebf_idle_note(&b, 0);
    ck_assert_uint_eq(b.sleeps, 1);
    ck_assert_uint_eq(b.sleep_us, 2);
    for (int i = 0; i < 5; i++)
        ebf_idle_note(&b, 0);
    ck_assert_uint_eq(b.sleeps, 6);
    ck_assert_uint_eq(b.sleep_us, 8);
    /* Work resets it. */
    ebf_idle_note(&b, 3);
    ck_assert_uint_eq(b.empty, 0);
    ck_assert_uint_eq(b.sleep_us, 1);
    ebf_idle_note(&b, 0);
    ck_assert_uint_eq(b.sleeps, 6);
}
END_TEST

Suite *ebf_util_suite(void);

Suite *ebf_util_suite(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_parse_mac);
    tcase_add_test(tc, test_parse_u64);
    tcase_add_test(tc, test_parse_double);
    tcase_add_test(tc, test_quote);
    tcase_add_test(tc, test_kv_roundtrip);
    tcase_add_test(tc, test_kv_commit);
    tcase_add_test(tc, test_idle);
    suite_add_tcase(s, tc);
    return s;
}
