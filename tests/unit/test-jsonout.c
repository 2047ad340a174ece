/* SPDX-License-Identifier: BSD-3-Clause */
/* test-jsonout.c - the tools' JSON writer: reals as rounded, every uint64_t exact, strings made safe, the three layouts. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"

/* What jout_write writes of root in style (malloc'd). */
static char *written(json_t *root, enum jout_style style)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(jout_write(f, root, style), 0);
    fclose(f);
    return buf;
}

/* Each maker's number as written, in a table: the decimals a report
 * promised and no trailing zeros, always a real; %.0f as an integer. */
START_TEST(test_numbers)
{
    static const struct {
        json_t *(*make)(double, int);
        double v;
        int digits;
        const char *want;
    } t[] = {
        {jout_fixed, 0.5, 6, "0.5"},         {jout_fixed, 2600, 3, "2600.0"},
        {jout_fixed, 0.1666666, 6, "0.166667"}, {jout_fixed, 0, 3, "0.0"},
        {jout_fixed, 69444.44444, 1, "69444.4"}, {jout_sig, 6264012.7, 6, "6264010.0"},
        {jout_sig, 1.5e-7, 6, "1.5e-7"},     {jout_sig, 300, 6, "300.0"},
        {jout_sig, NAN, 6, "null"},          {jout_fixed, INFINITY, 3, "null"},
    };
    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *s = written(t[i].make(t[i].v, t[i].digits), JOUT_COMPACT);
        size_t n = strlen(s);
        ck_assert_msg(n && s[n - 1] == '\n', "%u: no newline", i);
        s[n - 1] = '\0';
        ck_assert_msg(strcmp(s, t[i].want) == 0, "%u: %g: got %s", i, t[i].v, s);
        free(s);
    }
    char *s = written(json_pack("[o, o, o]", jout_round(16000.4), jout_round(2.5),
                                jout_round(NAN)), JOUT_COMPACT);
    ck_assert_str_eq(s, "[16000,3,null]\n");
    free(s);
}
END_TEST

/* Counts exact over all of uint64_t: jansson's integers stop at INT64_MAX. */
START_TEST(test_u64_exact)
{
    char *s = written(json_pack("{s:o, s:o, s:o, s:s}", "max", jout_u64(UINT64_MAX), "top",
                                jout_u64((uint64_t)INT64_MAX + 1), "small", jout_u64(7), "str",
                                "u64:1"),
                      JOUT_SPACED);
    ck_assert_str_eq(s, "{\"max\": 18446744073709551615, \"top\": 9223372036854775808, "
                        "\"small\": 7, \"str\": \"u64:1\"}\n");
    free(s);
}
END_TEST

/* One escaping: quotes, backslashes, control characters; a byte that is
 * not UTF-8 as '?', UTF-8 kept; an empty string as null where asked. */
START_TEST(test_strings)
{
    char *s = written(json_pack("[o, o, o, o]", jout_str("a\"b\\c\n\x01"), jout_str("x\xffy"),
                                jout_str("caf\xc3\xa9"), jout_str_or_null("")),
                      JOUT_COMPACT);
    ck_assert_str_eq(s, "[\"a\\\"b\\\\c\\n\\u0001\",\"x?y\",\"caf\xc3\xa9\",null]\n");
    free(s);
}
END_TEST

/* The layouts: compact, spaced, and spaced with a line per top-level
 * member; a NULL tree (out of memory) writes nothing. */
START_TEST(test_layouts)
{
    static const char *const want[] = {
        "{\"a\":1,\"b\":{\"c\":[1,2],\"d\":{}},\"e\":null}\n",
        "{\"a\": 1, \"b\": {\"c\": [1, 2], \"d\": {}}, \"e\": null}\n",
        "{\"a\": 1,\n \"b\": {\"c\": [1, 2], \"d\": {}},\n \"e\": null}\n",
    };
    for (int st = JOUT_COMPACT; st <= JOUT_LINES; st++) {
        char *s = written(json_pack("{s:i, s:{s:[i, i], s:{}}, s:n}", "a", 1, "b", "c", 1, 2, "d",
                                    "e"), (enum jout_style)st);
        ck_assert_str_eq(s, want[st]);
        free(s);
    }
    ck_assert_int_eq(jout_write(stdout, NULL, JOUT_LINES), -ENOMEM);
    json_t *o = json_object();
    ck_assert_int_eq(jout_set(o, "x", NULL), -1);
    ck_assert_int_eq(jout_merge(o, json_pack("{s:i}", "y", 2)), 0);
    ck_assert_int_eq(jout_merge(o, NULL), -1);
    char *s = written(o, JOUT_COMPACT);
    ck_assert_str_eq(s, "{\"y\":2}\n");
    free(s);
}
END_TEST

Suite *jsonout_suite(void);

Suite *jsonout_suite(void)
{
    Suite *s = suite_create("jsonout");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_u64_exact);
    tcase_add_test(tc, test_strings);
    tcase_add_test(tc, test_layouts);
    suite_add_tcase(s, tc);
    return s;
}
