/* SPDX-License-Identifier: BSD-3-Clause */
/* test-text.h - compare long texts line by line, so that a failure names the first line that differs. */
#ifndef TEST_TEXT_H
#define TEST_TEXT_H

#include <check.h>
#include <string.h>

/* Fails at the first line where got and want differ (a whole text is too
 * long for one Check message); passes only when they are equal. */
static inline void assert_text_eq(const char *got, const char *want)
{
    unsigned line = 1;

    while (*got || *want) {
        size_t g = strcspn(got, "\n"), w = strcspn(want, "\n");
        ck_assert_msg(g == w && memcmp(got, want, g) == 0 && got[g] == want[w],
                      "line %u: got \"%.*s\", want \"%.*s\"", line, (int)(g > 300 ? 300 : g), got,
                      (int)(w > 300 ? 300 : w), want);
        got += g + (got[g] != '\0');
        want += w + (want[w] != '\0');
        line++;
    }
}

#endif /* TEST_TEXT_H */
