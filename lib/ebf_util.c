/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_util.c - parsing helpers shared by the daemons and the tool. */
#include "ebf_util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int ebf_parse_ipv4(const char *s, uint32_t *ip)
{
    struct in_addr a;

    if (inet_pton(AF_INET, s, &a) != 1)
        return -EINVAL;
    *ip = ntohl(a.s_addr);
    return 0;
}

int ebf_parse_mac(const char *s, uint8_t mac[6])
{
    unsigned v[6];
    char tail;

    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &tail) != 6)
        return -EINVAL;
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)v[i];
    return 0;
}

char *ebf_format_mac(const uint8_t mac[6], char buf[18])
{
    snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
             mac[4], mac[5]);
    return buf;
}

int ebf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    uint64_t mult = 1;

    /* strtoull alone would take leading blanks, a sign, and " -1" as UINT64_MAX. */
    if (!s || !isdigit((unsigned char)*s))
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -EINVAL;
    if (*end == 'k')
        mult = 1000, end++;
    else if (*end == 'M')
        mult = 1000000, end++;
    else if (*end == 'G')
        mult = 1000000000, end++;
    if (*end || (v && mult > UINT64_MAX / v))
        return -EINVAL;
    v *= mult;
    if (v < min || v > max)
        return -EINVAL;
    *out = v;
    return 0;
}

int ebf_parse_double(const char *s, double min, double max, double *out)
{
    char *end;

    /* strtod alone would take leading blanks, "inf", "nan" and hex floats. */
    if (!s || !*s || !strchr("0123456789.+-", *s) || strpbrk(s, "xX"))
        return -EINVAL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
        return -EINVAL;
    *out = v;
    return 0;
}

const char *ebf_parse_why(const char *s, int dbl)
{
    uint64_t u;
    double d;

    if (dbl)
        return ebf_parse_double(s, -HUGE_VAL, HUGE_VAL, &d) == 0 ? "is out of range: a number"
                                                                : "is not a number";
    return ebf_parse_u64(s, 0, UINT64_MAX, &u) == 0 ? "is out of range: an integer"
                                                   : "is not an integer";
}

/* Byte ch as it is shown in a message, into out (5 bytes); its length. */
static size_t quote_byte(unsigned char ch, char out[5])
{
    static const char hex[] = "0123456789abcdef";

    if (ch == '\0' || ch == '"' || ch == '\\') {
        out[0] = '\\';
        out[1] = ch ? (char)ch : '0';
        return 2;
    }
    if (ch < 0x20 || ch >= 0x7f) {
        out[0] = '\\';
        out[1] = 'x';
        out[2] = hex[ch >> 4];
        out[3] = hex[ch & 15];
        return 4;
    }
    out[0] = (char)ch;
    return 1;
}

const char *ebf_quote(const char *s, size_t len, char *buf, size_t buflen)
{
    size_t o = 0, i, total = 0;
    char piece[5];

    if (buflen < 4) {
        if (buflen)
            buf[0] = '\0';
        return buf;
    }
    for (i = 0; i < len && total < buflen; i++)
        total += quote_byte((unsigned char)s[i], piece);
    /* When it does not all fit, keep room for "..." and the NUL. */
    size_t room = total < buflen ? buflen - 1 : buflen - 4;
    for (i = 0; i < len; i++) {
        size_t n = quote_byte((unsigned char)s[i], piece);
        if (o + n > room)
            break;
        memcpy(buf + o, piece, n);
        o += n;
    }
    if (i < len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

uint64_t ebf_rss_kb(int pid)
{
    char path[64], line[256];
    unsigned long long kb = 0;
    FILE *f;

    if (pid < 0)
        return 0;
    if (pid)
        snprintf(path, sizeof(path), "/proc/%d/status", pid);
    else
        snprintf(path, sizeof(path), "/proc/self/status");
    if (!(f = fopen(path, "r")))
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

int ebf_nofile_raise(uint64_t *before, uint64_t *after)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -errno;
    if (before)
        *before = (uint64_t)rl.rlim_cur;
    if (rl.rlim_cur != rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            return -errno;
    }
    if (after)
        *after = (uint64_t)rl.rlim_cur;
    return 0;
}
