/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_opt.c - option-value parsing with messages that name option and value. */
#include "ebf_opt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ebf_util.h"

int ebf_opt_u64(const char *prog, const char *opt, const char *val, uint64_t min,
                uint64_t max, uint64_t *out)
{
    if (ebf_parse_u64(val, min, max, out) == 0)
        return 0;
    fprintf(stderr, "%s: option '%s': \"%s\" %s in %" PRIu64 "..%" PRIu64 "\n", prog, opt, val,
            ebf_parse_why(val, 0), min, max);
    return -EINVAL;
}

int ebf_opt_double(const char *prog, const char *opt, const char *val, double min,
                   double max, double *out)
{
    if (ebf_parse_double(val, min, max, out) == 0)
        return 0;
    fprintf(stderr, "%s: option '%s': \"%s\" %s in %g..%g\n", prog, opt, val,
            ebf_parse_why(val, 1), min, max);
    return -EINVAL;
}

int ebf_opt_param(const char *prog, const struct ebf_param_def *d, const char *val, void *out)
{
    char range[64];

    if (ebf_param_parse(d, val, strlen(val), out) == 0)
        return 0;
    fprintf(stderr, "%s: option '--%s': \"%s\" %s in %s\n", prog, d->opt, val,
            ebf_parse_why(val, d->type == EBF_PT_DOUBLE), ebf_param_range(d, range, sizeof(range)));
    return -EINVAL;
}

int ebf_opt_mac(const char *prog, const char *opt, const char *val, uint8_t mac[6])
{
    if (ebf_parse_mac(val, mac) == 0)
        return 0;
    fprintf(stderr, "%s: option '%s': \"%s\" is not a MAC address (aa:bb:cc:dd:ee:ff)\n",
            prog, opt, val);
    return -EINVAL;
}

int ebf_opt_mac_list(const char *prog, const char *opt, const char *val,
                     uint8_t (*macs)[6], int max)
{
    char buf[1024], *save = NULL;
    int n = 0;

    if (strlen(val) >= sizeof(buf)) {
        fprintf(stderr, "%s: option '%s': list too long\n", prog, opt);
        return -EINVAL;
    }
    strcpy(buf, val);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == max) {
            fprintf(stderr, "%s: option '%s': more than %d MAC addresses\n", prog, opt, max);
            return -EINVAL;
        }
        if (ebf_opt_mac(prog, opt, t, macs[n]))
            return -EINVAL;
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "%s: option '%s': \"%s\" holds no MAC address\n", prog, opt, val);
        return -EINVAL;
    }
    return n;
}

int ebf_opt_ipv4(const char *prog, const char *opt, const char *val, uint32_t *ip)
{
    struct in_addr a;

    if (inet_pton(AF_INET, val, &a) == 1) {
        *ip = ntohl(a.s_addr);
        return 0;
    }
    fprintf(stderr, "%s: option '%s': \"%s\" is not an IPv4 address\n", prog, opt, val);
    return -EINVAL;
}

int ebf_opt_idle(const char *prog, const char *opt, const char *val, enum ebf_idle_mode *mode)
{
    if (ebf_idle_parse(val, mode) == 0)
        return 0;
    fprintf(stderr, "%s: option '%s': \"%s\" is not spin or backoff\n", prog, opt, val);
    return -EINVAL;
}

int ebf_param_u64(const char *key, const char *val, uint64_t min, uint64_t max, uint64_t *out,
                  char *err, size_t len)
{
    if (ebf_parse_u64(val, min, max, out) == 0)
        return 0;
    snprintf(err, len, "parameter '%s': \"%s\" %s in %" PRIu64 "..%" PRIu64, key, val,
             ebf_parse_why(val, 0), min, max);
    return -EINVAL;
}

int ebf_param_double(const char *key, const char *val, double min, double max, double *out,
                     char *err, size_t len)
{
    if (ebf_parse_double(val, min, max, out) == 0)
        return 0;
    snprintf(err, len, "parameter '%s': \"%s\" %s in %g..%g", key, val, ebf_parse_why(val, 1),
             min, max);
    return -EINVAL;
}

int ebf_param_unknown(const char *key, const char *allowed, char *err, size_t len)
{
    snprintf(err, len, "unknown parameter '%s' (allowed: %s)", key, allowed);
    return -EINVAL;
}

int ebf_param_set(const struct ebf_param_def *d, const char *val, void *dst, char *err,
                  size_t len)
{
    char range[64], q[96];

    if (ebf_param_parse(d, val, strlen(val), dst) == 0)
        return 0;
    snprintf(err, len, "parameter '%s': \"%s\" %s in %s", d->key,
             ebf_quote(val, strlen(val), q, sizeof(q)), ebf_parse_why(val, d->type == EBF_PT_DOUBLE),
             ebf_param_range(d, range, sizeof(range)));
    return -EINVAL;
}

int ebf_conf_set(const struct ebf_conf_key *keys, size_t n, void *conf, const char *key,
                 const char *val, char *err, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        const struct ebf_param_def *d = keys[i].param;
        if (strcmp(d->key, key) != 0)
            continue;
        if (keys[i].size != ebf_param_size(d->type)) {
            snprintf(err, len, "parameter '%s': %zu-byte member for a %zu-byte value", key,
                     keys[i].size, ebf_param_size(d->type));
            return -EINVAL;
        }
        return ebf_param_set(d, val, (char *)conf + keys[i].offset, err, len);
    }
    return 1;
}

const char *ebf_conf_keys(const struct ebf_conf_key *keys, size_t n, char *buf, size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", keys[i].param->key);
    return buf;
}
