/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_util.c - parsing helpers shared by the daemons and the tool. */
#include "ebf_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

    if (!s || !*s || *s == '-')
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

    if (!s || !*s)
        return -EINVAL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
        return -EINVAL;
    *out = v;
    return 0;
}
