/* SPDX-License-Identifier: BSD-3-Clause */
/* test-help.h - a program's --help as the tests read it: run a command, take the options (--name) a text names. */
#ifndef TEST_HELP_H
#define TEST_HELP_H

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define WORDS_MAX 256
#define WORD_LEN 64

/* A set of words (options, keys) in the order first seen. */
struct words {
    unsigned n;
    char w[WORDS_MAX][WORD_LEN];
};

static inline int words_has(const struct words *s, const char *w)
{
    for (unsigned i = 0; i < s->n; i++)
        if (strcmp(s->w[i], w) == 0)
            return 1;
    return 0;
}

/* Add the len bytes at w, once. */
static inline void words_add(struct words *s, const char *w, size_t len)
{
    char word[WORD_LEN];

    ck_assert_uint_lt(len, WORD_LEN);
    memcpy(word, w, len);
    word[len] = '\0';
    if (words_has(s, word))
        return;
    ck_assert_uint_lt(s->n, WORDS_MAX);
    strcpy(s->w[s->n++], word);
}

static inline int option_char(char c)
{
    return islower((unsigned char)c) || isdigit((unsigned char)c) || c == '-';
}

/* Add to out every option that text names: "--" then a lower-case letter
 * or digit and more of them or '-', not inside a longer word. */
static inline void options_in(const char *text, struct words *out)
{
    for (const char *p = strstr(text, "--"); p; p = strstr(p, "--")) {
        const char *q = p + 2;
        if ((p > text && option_char(p[-1])) || !option_char(*q) || *q == '-') {
            while (*q == '-')
                q++;
            p = q;
            continue;
        }
        while (option_char(*q))
            q++;
        words_add(out, p, (size_t)(q - p));
        p = q;
    }
}

/* Run the shell command cmd; its standard output in out (len bytes at
 * most, NUL-terminated). Returns its exit status, -1 when killed. */
static inline int run_cmd(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");

    ck_assert_msg(p != NULL, "cannot run %s", cmd);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The build and source directories, as meson test sets them. */
static inline const char *build_dir(void)
{
    const char *d = getenv("EBFARM_BUILD_DIR");

    ck_assert_msg(d && *d, "EBFARM_BUILD_DIR is not set (run the test with meson test)");
    return d;
}

static inline const char *source_dir(void)
{
    const char *d = getenv("EBFARM_SOURCE_DIR");

    return d && *d ? d : EBF_SOURCE_ROOT;
}

#endif /* TEST_HELP_H */
