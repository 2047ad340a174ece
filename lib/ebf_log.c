/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_log.c - a stdio stream that writes timestamped, named lines, one write(2) each. */
#include "ebf_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_LINE_MAX 1024
#define LOG_PREFIX_MAX 128

struct log_sink {
    int fd;
    const char *(*tag)(void);    /* after the name: "error: " or "" */
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

/* Write the held line (newline added) with its prefix, in one write(2). */
static void emit(struct log_sink *s)
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
    static const cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
    struct log_sink *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->fd = fd;
    s->tag = tag;
    snprintf(s->name, sizeof(s->name), "%s", name);
    FILE *f = fopencookie(s, "w", io);
    if (!f) {
        int e = errno;
        free(s);
        errno = e;
    }
    return f;
}
