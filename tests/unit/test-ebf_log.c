/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_log.c - unit tests of the log stream: timestamp and name on every line, whole lines. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ebf_log.h"

#define PREFIX_LEN 31            /* "2026-11-23T16:40:01.123Z sfc0: " */

START_TEST(test_prefix)
{
    struct timespec ts = {.tv_sec = 1795452001, .tv_nsec = 123999999};
    char buf[64];

    ck_assert_uint_eq(ebf_log_prefix(buf, sizeof(buf), &ts, "sfc0"), PREFIX_LEN);
    ck_assert_str_eq(buf, "2026-11-23T16:40:01.123Z sfc0: ");
    ts = (struct timespec){.tv_sec = 0, .tv_nsec = 0};
    ck_assert_uint_eq(ebf_log_prefix(buf, sizeof(buf), &ts, "node-12"), 34);
    ck_assert_str_eq(buf, "1970-01-01T00:00:00.000Z node-12: ");
    ck_assert_uint_eq(ebf_log_prefix(buf, 10, &ts, "x"), 9);
    ck_assert_str_eq(buf, "1970-01-0");
}
END_TEST

static int fds[2];
static FILE *log_f;

static void setup(void)
{
    ck_assert_int_eq(pipe(fds), 0);
    ck_assert_int_eq(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
    log_f = ebf_log_open("sfc0", fds[1]);
    ck_assert_ptr_nonnull(log_f);
}

static void teardown(void)
{
    if (log_f)
        fclose(log_f);
    close(fds[0]);
    close(fds[1]);
}

/* What the stream wrote so far ("" when nothing). */
static const char *drain(void)
{
    static char buf[8192];
    ssize_t n = read(fds[0], buf, sizeof(buf) - 1);

    ck_assert_msg(n > 0 || (n < 0 && errno == EAGAIN), "read: %s", strerror(errno));
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* Check one line of out: a timestamp within a second of now, the name,
 * then text; returns where the next line starts. */
static const char *line(const char *out, const char *text, size_t text_len)
{
    struct tm tm = {0};
    unsigned ms;
    char tail[8];

    ck_assert_msg(strlen(out) >= PREFIX_LEN + text_len + 1, "short: %s", out);
    ck_assert_msg(sscanf(out, "%4d-%2d-%2dT%2d:%2d:%2d.%3u%1s", &tm.tm_year, &tm.tm_mon,
                         &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, tail) == 8 &&
                      tail[0] == 'Z', "no timestamp: %s", out);
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    long d = (long)(timegm(&tm) - time(NULL));
    ck_assert_msg(d >= -2 && d <= 1, "timestamp %ld s off: %s", d, out);
    ck_assert_int_eq(memcmp(out + 24, " sfc0: ", 7), 0);
    ck_assert_int_eq(memcmp(out + PREFIX_LEN, text, text_len), 0);
    ck_assert_int_eq(out[PREFIX_LEN + text_len], '\n');
    return out + PREFIX_LEN + text_len + 1;
}

START_TEST(test_lines)
{
    fprintf(log_f, "EAL: one\nctl: %s\n", "two");
    fflush(log_f);
    const char *out = drain();
    out = line(out, "EAL: one", 8);
    out = line(out, "ctl: two", 8);
    ck_assert_str_eq(out, "");
}
END_TEST

/* A line is written only once it is whole, however it was cut. */
START_TEST(test_partial)
{
    fprintf(log_f, "par");
    fflush(log_f);
    ck_assert_str_eq(drain(), "");
    fprintf(log_f, "tial");
    fflush(log_f);
    ck_assert_str_eq(drain(), "");
    fprintf(log_f, "\nnext");
    fflush(log_f);
    const char *out = line(drain(), "partial", 7);
    ck_assert_str_eq(out, "");
    fclose(log_f);                /* the unfinished line goes out at close */
    log_f = NULL;
    ck_assert_str_eq(line(drain(), "next", 4), "");
}
END_TEST

/* A line longer than the buffer goes in pieces of 1024, each prefixed. */
START_TEST(test_long_line)
{
    char text[1500];

    for (size_t i = 0; i < sizeof(text); i++)
        text[i] = (char)('a' + i % 26);
    fprintf(log_f, "%.*s\n", (int)sizeof(text), text);
    fflush(log_f);
    const char *out = drain();
    out = line(out, text, 1024);
    out = line(out, text + 1024, sizeof(text) - 1024);
    ck_assert_str_eq(out, "");
}
END_TEST

/* An empty line still carries the prefix. */
START_TEST(test_empty_line)
{
    fputs("\n", log_f);
    fflush(log_f);
    ck_assert_str_eq(line(drain(), "", 0), "");
}
END_TEST

static const char *current_tag;

static const char *tag_now(void)
{
    return current_tag;
}

/* A tagged stream puts what the tag function says when each line is
 * written between the name and the text: error lines can be found. */
START_TEST(test_tag)
{
    fclose(log_f);
    log_f = ebf_log_open_tagged("sfc0", fds[1], tag_now);
    ck_assert_ptr_nonnull(log_f);
    current_tag = "error: ";
    fprintf(log_f, "EAL: lcore 4 unavailable\n");
    fflush(log_f);
    current_tag = NULL;
    fprintf(log_f, "EAL: Detected CPU lcores: 2\n");
    fflush(log_f);
    current_tag = "";
    fprintf(log_f, "ctl: INITIAL -> CONFIGURED\n");
    fflush(log_f);
    const char *out = drain();
    out = line(out, "error: EAL: lcore 4 unavailable", 31);
    out = line(out, "EAL: Detected CPU lcores: 2", 27);
    out = line(out, "ctl: INITIAL -> CONFIGURED", 26);
    ck_assert_str_eq(out, "");
}
END_TEST

/* A file over the bound (400 bytes; each line here is 39) becomes PATH.1
 * after the line that crossed it (11 lines, 429 bytes), and a new PATH
 * starts with a line naming both, then goes on. */
START_TEST(test_rotation)
{
    char dir[] = "/tmp/ebflog-XXXXXX", path[64], old[80], buf[4096], want[256];

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/sfc0.log", dir);
    snprintf(old, sizeof(old), "%s.1", path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    FILE *f = ebf_log_open_bounded("sfc0", fd, NULL, 400);
    ck_assert_ptr_nonnull(f);
    setvbuf(f, NULL, _IONBF, 0);
    for (int i = 0; i < 12; i++)
        fprintf(f, "line %02d\n", i);
    fclose(f);
    close(fd);

    FILE *r = fopen(old, "r");
    ck_assert_ptr_nonnull(r);
    int n = 0;
    while (fgets(buf, sizeof(buf), r)) {
        snprintf(want, sizeof(want), "sfc0: line %02d\n", n++);
        ck_assert_str_eq(buf + PREFIX_LEN - 6, want);
    }
    fclose(r);
    ck_assert_int_eq(n, 11);
    r = fopen(path, "r");
    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), r));
    snprintf(want, sizeof(want), "sfc0: log: %s reached 400 bytes; the earlier lines are in %s\n",
             path, old);
    ck_assert_str_eq(buf + PREFIX_LEN - 6, want);
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), r));
    ck_assert_str_eq(buf + PREFIX_LEN - 6, "sfc0: line 11\n");
    ck_assert_ptr_null(fgets(buf, sizeof(buf), r));
    fclose(r);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(unlink(old), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

Suite *ebf_log_suite(void);

Suite *ebf_log_suite(void)
{
    Suite *s = suite_create("ebf_log");
    TCase *tc = tcase_create("log");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_prefix);
    tcase_add_test(tc, test_rotation);
    suite_add_tcase(s, tc);
    tc = tcase_create("stream");
    tcase_set_timeout(tc, 10);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_lines);
    tcase_add_test(tc, test_partial);
    tcase_add_test(tc, test_long_line);
    tcase_add_test(tc, test_empty_line);
    tcase_add_test(tc, test_tag);
    suite_add_tcase(s, tc);
    return s;
}
