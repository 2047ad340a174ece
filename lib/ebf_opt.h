/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_opt.h - option-value parsing for the daemons' main(), with user-facing errors. */
#ifndef EBF_OPT_H
#define EBF_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_idle.h"
#include "ebf_param.h"

/*
 * Each returns 0, or -EINVAL after printing to stderr a message that names
 * the program, the option, the bad value and what is allowed, e.g.
 *   sfc: option '--nodes': "0" is not an integer in 1..64
 */
int ebf_opt_u64(const char *prog, const char *opt, const char *val, uint64_t min,
                uint64_t max, uint64_t *out);
int ebf_opt_double(const char *prog, const char *opt, const char *val, double min,
                   double max, double *out);
int ebf_opt_mac(const char *prog, const char *opt, const char *val, uint8_t mac[6]);

/* A comma-separated list of MACs, at most max; returns the count or -EINVAL. */
int ebf_opt_mac_list(const char *prog, const char *opt, const char *val,
                     uint8_t (*macs)[6], int max);

/* "spin" or "backoff" (the --idle option). */
int ebf_opt_idle(const char *prog, const char *opt, const char *val, enum ebf_idle_mode *mode);

/* A shared parameter (ebf_param.h) as the option --<d->opt>, into out of
 * d's type: "prog: option '--rate': \"x\" is not a number in 0..1e+09". */
int ebf_opt_param(const char *prog, const struct ebf_param_def *d, const char *val, void *out);

/* Dotted IPv4 address into host order. */
int ebf_opt_ipv4(const char *prog, const char *opt, const char *val, uint32_t *ip);

/*
 * Run parameters sent with a configure command: the same checks, with the
 * message ("parameter 'rate': \"x\" is not a number in 0..1e+09") written
 * to err instead of stderr. 0 or -EINVAL.
 */
int ebf_param_u64(const char *key, const char *val, uint64_t min, uint64_t max, uint64_t *out,
                  char *err, size_t len);
int ebf_param_double(const char *key, const char *val, double min, double max, double *out,
                     char *err, size_t len);
/* "unknown parameter 'k' (allowed: ...)"; returns -EINVAL. */
int ebf_param_unknown(const char *key, const char *allowed, char *err, size_t len);

/* A shared parameter (ebf_param.h) from a configure value into dst (of
 * d's type), parsed strictly: 0, or -EINVAL with the message above, the
 * range from d. */
int ebf_param_set(const struct ebf_param_def *d, const char *val, void *dst, char *err,
                  size_t len);

/* A daemon's configure key: a shared parameter, and the member of the
 * daemon's parameter struct it sets (its size must be the parameter's). */
struct ebf_conf_key {
    const struct ebf_param_def *param;
    size_t offset, size;
};
#define EBF_CONF_KEY(id, type, member) \
    {EBF_PARAM(id), offsetof(type, member), sizeof(((type *)0)->member)}

/*
 * Set key in conf from the table keys[n]: 0; -EINVAL with err set when
 * the value is refused; 1 when key is none of keys (the caller may have
 * keys of its own, or calls ebf_param_unknown). A member whose size is not
 * its parameter's is refused (-EINVAL), never written.
 */
int ebf_conf_set(const struct ebf_conf_key *keys, size_t n, void *conf, const char *key,
                 const char *val, char *err, size_t len);

/* "a, b, c": the keys of the table, for ebf_param_unknown. Returns buf. */
const char *ebf_conf_keys(const struct ebf_conf_key *keys, size_t n, char *buf, size_t len);

#endif /* EBF_OPT_H */
