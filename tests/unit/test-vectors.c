/* SPDX-License-Identifier: BSD-3-Clause */
/* test-vectors.c - every test frame of tests/vectors (docs/protocol.md) through the parser and the SFC's receive rules: its reason and its counter, exactly. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_proto.h"
#include "sfc_guard.h"

#define VEC_DIR EBF_SOURCE_ROOT "/tests/vectors/"
#define FRAME_MAX 9600

/* The bytes of a .hex file: lines "OFFSET  XX XX ...", '#' comments. */
static size_t read_hex(const char *name, uint8_t *buf, size_t max)
{
    char path[512], line[256];
    size_t n = 0;

    snprintf(path, sizeof(path), VEC_DIR "%s.hex", name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    while (fgets(line, sizeof(line), f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *p = line + 4;      /* after the offset */
        ck_assert_msg(strtoul(line, NULL, 16) == n, "%s: offset %.4s, byte %zu", name, line, n);
        for (char *end; ; p = end) {
            unsigned long b = strtoul(p, &end, 16);
            if (end == p)
                break;
            ck_assert_uint_lt(n, max);
            buf[n++] = (uint8_t)b;
        }
    }
    fclose(f);
    return n;
}

/* The counter of verdict v as the SFC exports it: "accepted" when the
 * frame passes rules 2 to 8. */
static void counter_of(struct sfc_verdict v, char *out, size_t len)
{
    if (v.reject != EBF_R_OK)
        snprintf(out, len, "rx.reject.%s", ebf_reason_name(v.reject));
    else if (v.drop != SFC_DROP_MAX)
        snprintf(out, len, "rx.drop.%s", sfc_drop_name(v.drop));
    else
        snprintf(out, len, "accepted");
}

/* Each vector of index.txt: the parser (ebf_parse_l2l3, then
 * ebf_frag_parse with 8 sources and the CRC) gives its reason, and the
 * SFC's rules (8 sources, MTU 1500, MAC 02:00:00:00:00:02) its counter. */
START_TEST(test_every_vector)
{
    const struct sfc_judge_conf c = {.n_sources = 8, .udp_port = EBF_UDP_PORT_DEFAULT,
                                     .mtu = 1500, .check_crc = 1, .mac = {2, 0, 0, 0, 0, 2}};
    FILE *idx = fopen(VEC_DIR "index.txt", "r");
    char line[256], name[64], reason[32], counter[64], got[64];
    static uint8_t buf[FRAME_MAX];
    unsigned n = 0, good = 0;

    ck_assert_ptr_nonnull(idx);
    while (fgets(line, sizeof(line), idx)) {
        if (line[0] == '#')
            continue;
        ck_assert_int_eq(sscanf(line, "%63s %31s %63s", name, reason, counter), 3);
        size_t len = read_hex(name, buf, sizeof(buf));
        struct ebf_l2l3 l;
        struct ebf_frag_hdr h;
        enum ebf_reason r = ebf_parse_l2l3(buf, len, EBF_UDP_PORT_DEFAULT, &l);
        size_t used;
        if (r == EBF_R_OK)
            r = ebf_frag_parse(buf + l.hlen, l.len, 8, 1, &h, &used);
        ck_assert_msg(strcmp(ebf_reason_name(r), reason) == 0, "%s: parser says %s, want %s",
                      name, ebf_reason_name(r), reason);
        counter_of(sfc_guard_judge(&c, buf, len, &l, &h), got, sizeof(got));
        ck_assert_msg(strcmp(got, counter) == 0, "%s: the SFC counts %s, want %s", name, got,
                      counter);
        good += strcmp(counter, "accepted") == 0;
        n++;
    }
    fclose(idx);
    ck_assert_uint_eq(n, 24);
    ck_assert_uint_eq(good, 6);
}
END_TEST

Suite *vectors_suite(void);

Suite *vectors_suite(void)
{
    Suite *s = suite_create("vectors");
    TCase *tc = tcase_create("vectors");

    tcase_add_test(tc, test_every_vector);
    suite_add_tcase(s, tc);
    return s;
}
