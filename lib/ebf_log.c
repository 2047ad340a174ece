/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_log.c - a stdio stream that writes timestamped, named lines, one write(2) each. */
#include "ebf_log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_LINE_MAX 1024
#define LOG_PREFIX_MAX 128

struct log_sink {
    int fd;
    const char *(*tag)(void);    /* after the name: "error: " or "" */
    unsigned long long max;      /* bytes before the file is rotated; 0: never */
    unsigned long long written;  /* bytes since the file was started */
    char name[64];
    size_t n;                    /* bytes of the unfinished line */
    char line[LOG_LINE_MAX];
};

size_t ebf_log_prefix(char *buf, size_t len, const struct timespec *ts, const char *name)
{
    struct tm tm;
    char date[32];

    gmtime_r(&ts->tv_sec, &tm);
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
    int n = snprintf(buf, len, "%s.%03ldZ %s: ", date, ts->tv_nsec / 1000000L, name);
    if (n < 0)
        return 0;
    return (size_t)n < len ? (size_t)n : len - 1;
}

/* Replace descriptor fd, if it writes the file old, by nfd. */
static void move_fd(int fd, const struct stat *old, int nfd)
{
    struct stat st;

    if (fstat(fd, &st) == 0 && st.st_dev == old->st_dev && st.st_ino == old->st_ino)
        dup2(nfd, fd);
}

/* The file behind s->fd becomes PATH.1, a new PATH takes its place.
 * Nothing happens when fd is no regular file or cannot be named. */
static void rotate(struct log_sink *s)
{
    char link[64], path[PATH_MAX], old_path[PATH_MAX + 2];
    struct stat st;

    s->written = 0;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", s->fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode) || n <= 0)
        return;
    path[n] = '\0';
    snprintf(old_path, sizeof(old_path), "%s.1", path);
    if (rename(path, old_path) != 0)
        return;
    int nfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (nfd < 0)
        return;                  /* the descriptor goes on writing PATH.1 */
    move_fd(STDOUT_FILENO, &st, nfd);
    move_fd(STDERR_FILENO, &st, nfd);
    if (s->fd != STDOUT_FILENO && s->fd != STDERR_FILENO)
        dup2(nfd, s->fd);
    close(nfd);
    int k = snprintf(s->line, sizeof(s->line), "log: %s reached %llu bytes; the earlier lines "
                     "are in %s", path, s->max, old_path);
    s->n = k < 0 ? 0 : (size_t)k < sizeof(s->line) ? (size_t)k : sizeof(s->line) - 1;
}

static void emit_line(struct log_sink *s);

/* Write the held line, then rotate the file when it is over its bound. */
static void emit(struct log_sink *s)
{
    emit_line(s);
    if (s->max && s->written >= s->max) {
        rotate(s);
        if (s->n)
            emit_line(s);
    }
}

/* Write the held line (newline added) with its prefix, in one write(2). */
static void emit_line(struct log_sink *s)
{
    char out[LOG_PREFIX_MAX + LOG_LINE_MAX + 1];
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    size_t p = ebf_log_prefix(out, LOG_PREFIX_MAX, &ts, s->name);
    const char *tag = s->tag ? s->tag() : NULL;
    if (tag && *tag && p + strlen(tag) < LOG_PREFIX_MAX) {
        memcpy(out + p, tag, strlen(tag));
        p += strlen(tag);
    }
    memcpy(out + p, s->line, s->n);
    out[p + s->n] = '\n';
    size_t total = p + s->n + 1, done = 0;
    while (done < total) {
        ssize_t w = write(s->fd, out + done, total - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;              /* nowhere to log to: the line is dropped */
        done += (size_t)w;
    }
    s->written += done;
    s->n = 0;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
    struct log_sink *s = cookie;

    for (size_t i = 0; i < size; i++) {
        if (buf[i] == '\n') {
            emit(s);
            continue;
        }
        if (s->n == sizeof(s->line))
            emit(s);
        s->line[s->n++] = buf[i];
    }
    return (ssize_t)size;
}

static int sink_close(void *cookie)
{
    struct log_sink *s = cookie;

    if (s->n)
        emit(s);
    free(s);
    return 0;
}

FILE *ebf_log_open(const char *name, int fd)
{
    return ebf_log_open_tagged(name, fd, NULL);
}

FILE *ebf_log_open_tagged(const char *name, int fd, const char *(*tag)(void))
{
    return ebf_log_open_bounded(name, fd, tag, EBF_LOG_MAX_BYTES);
}

FILE *ebf_log_open_bounded(const char *name, int fd, const char *(*tag)(void),
                           unsigned long long max_bytes)
{
    static const cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
    struct log_sink *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->fd = fd;
    s->tag = tag;
    s->max = max_bytes;
    snprintf(s->name, sizeof(s->name), "%s", name);
    FILE *f = fopencookie(s, "w", io);
    if (!f) {
        int e = errno;
        free(s);
        errno = e;
    }
    return f;
}
