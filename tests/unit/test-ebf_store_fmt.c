/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_store_fmt.c - Check unit tests of the event storage format: round trip, cut files, bad CRCs, hostile headers and records. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ebf_store_read.h"

#define T_TIMEOUT 30

/* A file of 3 records (events 7, 8, 9) of sources 0 and 2 of 3 (event 8:
 * source 0 only, flagged incomplete), fragment bytes (id + source + i). */
static uint8_t file[4096];
static size_t file_len, rec_off[3];

static size_t put_record(uint8_t *out, uint64_t id, int with2)
{
    struct ebf_store_rec r = {.event_id = id, .n_sources = 3, .n_frags = (uint16_t)(1 + with2),
                              .flags = with2 ? 0 : 1, .present = {with2 ? 5u : 1u, 0}};
    uint32_t l0 = (uint32_t)(10 + id), l2 = 33;

    r.len = (uint32_t)ebf_store_rec_len(r.n_frags, l0 + (with2 ? l2 : 0));
    uint8_t *p = ebf_store_rec_head(out, &r);
    p = ebf_store_frag_head(p, 0, 0, l0);
    for (uint32_t i = 0; i < l0; i++)
        *p++ = (uint8_t)(id + i);
    if (with2) {
        p = ebf_store_frag_head(p, 2, 0x0001, l2);     /* a prebuilt fragment */
        for (uint32_t i = 0; i < l2; i++)
            *p++ = (uint8_t)(id + 2 + i);
    }
    ebf_store_rec_seal(out, r.len);
    ck_assert_uint_eq((size_t)(p + 4 - out), r.len);
    return r.len;
}

static void build(void)
{
    struct ebf_store_hdr h = {.run = 42, .node = 3, .stream = 1, .seq = 5,
                              .time_ns = 1700000000123456789ull, .farm = "demo"};
    struct ebf_store_idx idx[3];
    size_t off = EBF_STORE_HDR_LEN;

    ebf_store_hdr_write(file, &h);
    for (int i = 0; i < 3; i++) {
        rec_off[i] = off;
        idx[i] = (struct ebf_store_idx){.event_id = 7u + (unsigned)i, .offset = off};
        off += put_record(file + off, 7u + (unsigned)i, i != 1);
    }
    ebf_store_trailer_write(file + off, off, off - EBF_STORE_HDR_LEN, 3, idx);
    file_len = off + ebf_store_trailer_len(3);
}

static char path[64];

static void save(size_t len)
{
    snprintf(path, sizeof(path), "/tmp/ebf-store-test-%d.ebfev", (int)getpid());
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(file, 1, len, fp), len);
    ck_assert_int_eq(fclose(fp), 0);
}

START_TEST(test_round_trip)
{
    struct ebf_store_file f;
    struct ebf_store_rec r;
    struct ebf_store_frag g;
    char err[256] = "";

    build();
    save(file_len);
    ck_assert_int_eq(ebf_store_open(&f, path, err, sizeof(err)), 0);
    ck_assert_uint_eq(f.hdr.run, 42);
    ck_assert_uint_eq(f.hdr.node, 3);
    ck_assert_uint_eq(f.hdr.stream, 1);
    ck_assert_uint_eq(f.hdr.seq, 5);
    ck_assert_uint_eq(f.hdr.time_ns, 1700000000123456789ull);
    ck_assert_str_eq(f.hdr.farm, "demo");
    ck_assert_int_eq(f.trl_err, EBF_STORE_E_OK);
    ck_assert_uint_eq(f.trl.n_records, 3);
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 1);
        ck_assert_uint_eq(r.event_id, 7 + i);
        ck_assert_uint_eq(ebf_store_last_offset(&f, &r), rec_off[i]);
        struct ebf_store_idx x = ebf_store_trailer_idx(&f.trl, i);
        ck_assert_uint_eq(x.event_id, 7 + i);
        ck_assert_uint_eq(x.offset, rec_off[i]);
        ck_assert_uint_eq(r.flags, i == 1);
        size_t pos = 0;
        ck_assert_int_eq(ebf_store_frag_next(&r, &pos, &g), 1);
        ck_assert_uint_eq(g.source, 0);
        ck_assert_uint_eq(g.flags, 0);
        ck_assert_uint_eq(g.len, 17 + i);
        ck_assert_uint_eq(g.data[5], (uint8_t)(7 + i + 5));
        if (i != 1) {
            ck_assert_int_eq(ebf_store_frag_next(&r, &pos, &g), 1);
            ck_assert_uint_eq(g.source, 2);
            ck_assert_uint_eq(g.flags, 0x0001);
            ck_assert_uint_eq(g.len, 33);
            ck_assert_uint_eq(g.data[32], (uint8_t)(7 + i + 2 + 32));
        }
        ck_assert_int_eq(ebf_store_frag_next(&r, &pos, &g), 0);
    }
    ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 0);
    ck_assert_int_eq(f.truncated, 0);
    ebf_store_close(&f);
    unlink(path);
}
END_TEST

/* Cut at every length from the header on: the whole records before the
 * cut are read, the cut is reported, nothing else. */
START_TEST(test_truncated)
{
    struct ebf_store_file f;
    struct ebf_store_rec r;
    char err[256];

    build();
    for (size_t len = EBF_STORE_HDR_LEN; len < file_len; len++) {
        unsigned whole = 0;
        for (int i = 0; i < 3; i++)
            whole += rec_off[i] + (i < 2 ? rec_off[i + 1] - rec_off[i]
                                         : file_len - ebf_store_trailer_len(3) - rec_off[2]) <= len;
        save(len);
        ck_assert_int_eq(ebf_store_open(&f, path, err, sizeof(err)), 0);
        ck_assert_int_eq(f.trl_err, EBF_STORE_E_SHORT);
        unsigned n = 0;
        int rc;
        while ((rc = ebf_store_next(&f, &r, err, sizeof(err))) == 1)
            n++;
        ck_assert_int_eq(rc, 0);
        ck_assert_uint_eq(n, whole);
        size_t records_end = file_len - ebf_store_trailer_len(3);
        ck_assert_int_eq(f.truncated, len != (whole == 3 ? records_end : rec_off[whole]));
        if (len == records_end + 10)
            ck_assert_str_eq(err, "cut short in the trailer after 3 whole records (no trailer: "
                                  "the file was cut short)");
        if (len == rec_off[1] + 3) {
            ck_assert_str_eq(err, "cut short after 1 whole records: 3 bytes at offset 190 are "
                                  "not a whole record (record cut short: 3 bytes left)");
        }
        if (len == rec_off[1] + 20) {
            ck_assert_str_eq(err, "cut short after 1 whole records: 20 bytes at offset 190 are "
                                  "not a whole record (record of 70 bytes cut short: 20 bytes "
                                  "left)");
        }
        ebf_store_close(&f);
    }
    unlink(path);
}
END_TEST

START_TEST(test_bad_crc)
{
    struct ebf_store_file f;
    struct ebf_store_rec r;
    char err[256];

    build();
    file[rec_off[1] + 50] ^= 0x10;          /* a payload byte of event 8 */
    save(file_len);
    ck_assert_int_eq(ebf_store_open(&f, path, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 1);
    ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), -1);
    ck_assert_msg(strncmp(err, "record at offset 190: event 8: record CRC32C 0x", 47) == 0, "%s",
                  err);
    ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 1);
    ck_assert_uint_eq(r.event_id, 9);
    ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 0);
    ebf_store_close(&f);
    unlink(path);
}
END_TEST

START_TEST(test_hostile_header)
{
    struct ebf_store_file f;
    char err[256], want[320];

    build();
    memcpy(file, "EBFARMXX", 8);
    save(file_len);
    ck_assert_int_eq(ebf_store_open(&f, path, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "%s: not an ebfarm event file: its first 8 bytes are not "
             "\"EBFARMEV\"", path);
    ck_assert_str_eq(err, want);
    build();
    file[8] = 9;
    save(file_len);
    ck_assert_int_eq(ebf_store_open(&f, path, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "%s: file header: format version 9 (this reader knows "
             "version 1)", path);
    ck_assert_str_eq(err, want);
    build();
    file[10] = 0xff;
    save(file_len);
    ck_assert_int_eq(ebf_store_open(&f, path, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "%s: file header: length 255 (version 1 has 80)", path);
    ck_assert_str_eq(err, want);
    build();
    file[13] ^= 1;                          /* the run number */
    save(file_len);
    ck_assert_int_eq(ebf_store_open(&f, path, err, sizeof(err)), -EINVAL);
    ck_assert_msg(strstr(err, ": file header: CRC32C 0x") != NULL, "%s", err);
    build();
    save(40);
    ck_assert_int_eq(ebf_store_open(&f, path, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "%s: file header cut short: 40 of 80 bytes", path);
    ck_assert_str_eq(err, want);
    unlink(path);
}
END_TEST

/* Records that lie: each is refused with what it claims and what is allowed. */
START_TEST(test_hostile_record)
{
    struct ebf_store_rec r;
    uint8_t b[256];
    char err[256];
    size_t len = put_record(b, 7, 1);

    b[4] = 0xff, b[5] = 0xff, b[6] = 0xff, b[7] = 0xff;
    ck_assert_int_eq(ebf_store_rec_parse(b, len, &r, err, sizeof(err)), EBF_STORE_E_BAD_LENGTH);
    ck_assert_str_eq(err, "record length 4294967295 outside 44..67108864");
    b[4] = 10, b[5] = 0, b[6] = 0, b[7] = 0;
    ck_assert_int_eq(ebf_store_rec_parse(b, len, &r, err, sizeof(err)), EBF_STORE_E_BAD_LENGTH);
    ck_assert_str_eq(err, "record length 10 outside 44..67108864");
    b[0] = 'X';
    ck_assert_int_eq(ebf_store_rec_parse(b, len, &r, err, sizeof(err)), EBF_STORE_E_BAD_MAGIC);
    ck_assert_str_eq(err, "record magic 0x43525658 (want 0x43525645, \"EVRC\")");
    /* A fragment longer than its record, with a CRC that matches. */
    len = put_record(b, 7, 1);
    b[EBF_STORE_REC_HLEN + 4] = 200;
    ebf_store_rec_seal(b, (uint32_t)len);
    ck_assert_int_eq(ebf_store_rec_parse(b, len, &r, err, sizeof(err)), EBF_STORE_E_BAD_LENGTH);
    ck_assert_str_eq(err, "event 7: fragment of source 0 has 200 bytes, 58 left in the record");
    /* A source not present, and too many sources. */
    len = put_record(b, 7, 1);
    b[24] = 3;                              /* present: 0 and 1, fragments of 0 and 2 */
    ebf_store_rec_seal(b, (uint32_t)len);
    ck_assert_int_eq(ebf_store_rec_parse(b, len, &r, err, sizeof(err)), EBF_STORE_E_BAD_FIELD);
    ck_assert_str_eq(err, "event 7: fragment 1 of source 2 (sources must be present, ascending, "
                          "below 3)");
    len = put_record(b, 7, 1);
    b[18] = 200;
    ebf_store_rec_seal(b, (uint32_t)len);
    ck_assert_int_eq(ebf_store_rec_parse(b, len, &r, err, sizeof(err)), EBF_STORE_E_BAD_FIELD);
    ck_assert_str_eq(err, "event 7: 200 sources (at most 128; reserved bytes 0)");
}
END_TEST

START_TEST(test_hostile_trailer)
{
    struct ebf_store_trailer t;
    char err[256];

    build();
    uint8_t *foot = file + file_len - EBF_STORE_FOOT_LEN;
    foot[0] = 1, foot[1] = 0;               /* offset 1 (with a bad CRC besides) */
    ck_assert_int_eq(ebf_store_trailer_find(file, file_len, &t, err, sizeof(err)),
                     EBF_STORE_E_BAD_LENGTH);
    ck_assert_msg(strncmp(err, "trailer offset 1 outside 80..", 29) == 0, "%s", err);
    build();
    size_t trl = file_len - ebf_store_trailer_len(3);
    file[trl + 8] = 200;                    /* 200 index entries */
    ck_assert_int_eq(ebf_store_trailer_find(file, file_len, &t, err, sizeof(err)),
                     EBF_STORE_E_BAD_LENGTH);
    ck_assert_str_eq(err, "trailer at 372: 200 index entries do not fill its 88 bytes");
    build();
    file[trl + 30] ^= 1;                    /* an index entry */
    ck_assert_int_eq(ebf_store_trailer_find(file, file_len, &t, err, sizeof(err)),
                     EBF_STORE_E_BAD_CRC);
    build();
    ck_assert_int_eq(ebf_store_trailer_find(file, file_len, &t, err, sizeof(err)),
                     EBF_STORE_E_OK);
    ck_assert_uint_eq(t.offset, 372);
    ck_assert_uint_eq(t.record_bytes, 372 - 80);
}
END_TEST

Suite *ebf_store_fmt_suite(void);
Suite *ebf_store_fmt_suite(void)
{
    Suite *s = suite_create("ebf_store_fmt");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_truncated);
    tcase_add_test(tc, test_bad_crc);
    tcase_add_test(tc, test_hostile_header);
    tcase_add_test(tc, test_hostile_record);
    tcase_add_test(tc, test_hostile_trailer);
    suite_add_tcase(s, tc);
    return s;
}
