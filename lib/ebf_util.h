/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_util.h - small DPDK-free helpers: MAC and number parsing, clocks. */
#ifndef EBF_UTIL_H
#define EBF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Parse "aa:bb:cc:dd:ee:ff" into mac; returns 0 or -EINVAL. */
int ebf_parse_mac(const char *s, uint8_t mac[6]);

/* Parse a dotted IPv4 address into host order; returns 0 or -EINVAL. */
int ebf_parse_ipv4(const char *s, uint32_t *ip);

/* Format mac as "aa:bb:cc:dd:ee:ff" into buf (18 bytes). */
char *ebf_format_mac(const uint8_t mac[6], char buf[18]);

/* Parse an unsigned integer in [min, max] (decimal, or 0x hex, with an
 * optional k/M/G suffix meaning 10^3/10^6/10^9): a digit first, nothing
 * after; returns 0 or -EINVAL. */
int ebf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Parse a finite decimal number in [min, max]: no blanks, no hex, nothing
 * after it; returns 0 or -EINVAL. */
int ebf_parse_double(const char *s, double min, double max, double *out);

/* How a value the two parsers above refused is wrong, for a message:
 * "is out of range: an integer" when s is a well-formed number (an
 * integer, or with dbl a number) outside the range, else "is not an
 * integer" ("a number" with dbl); the caller adds " in MIN..MAX". */
const char *ebf_parse_why(const char *s, int dbl);

/* The len bytes at s (NULs allowed) as printable text for a message, into
 * buf: '"', '\\' and NUL escaped as \", \\ and \0, other control bytes
 * as \xNN; cut with "..." when buf is short. Returns buf. */
const char *ebf_quote(const char *s, size_t len, char *buf, size_t buflen);

/* Wall-clock nanoseconds (CLOCK_REALTIME: comparable across processes and,
 * with synchronised clocks, across hosts). A vDSO call, no syscall. */
/* VmRSS of /proc/<pid>/status (pid 0: this process's /proc/self/status)
 * in kB; 0 when it cannot be read. */
uint64_t ebf_rss_kb(int pid);

/* Raise this process's soft limit of open files to its hard limit, so that
 * connections nobody authenticated yet (each a descriptor until its
 * handshake times out) cannot take the descriptors storage and logs need.
 * The soft limit before and after into *before and *after (either may be
 * NULL). 0, or -errno (the limit unchanged). */
int ebf_nofile_raise(uint64_t *before, uint64_t *after);

static inline uint64_t ebf_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* EBF_UTIL_H */
