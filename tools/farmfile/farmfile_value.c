/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_value.c - the farm file's values: error message, forms, scalars parsed strictly. */
#include "farmfile_value.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_util.h"
#include "ro_fault.h"

/* --- Forms and the error message ------------------------------------------ */

int ff_fail(char *err, size_t errlen, const char *where, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, errlen, "%s: ", where);

    if (n >= 0 && (size_t)n < errlen) {
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

/* 1 when s is 1..max characters of a-z, 0-9, '_' and '-'. */
static int word_ok(const char *s, size_t max)
{
    size_t n = strlen(s);

    if (n == 0 || n > max)
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

int ff_name_ok(const char *s)
{
    return word_ok(s, FF_NAME_MAX - 1);
}

/* n hex digits at s; returns the value or -1. */
static long hexn(const char *s, int n)
{
    long v = 0;

    for (int i = 0; i < n; i++) {
        if (!isxdigit((unsigned char)s[i]))
            return -1;
        v = v * 16 + (isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower(s[i]) - 'a' + 10));
    }
    return v;
}

/* "dddd:bb:dd.f" or "bb:dd.f" into its full lower-case form; 0 or -EINVAL. */
static int pci_parse(const char *s, char out[FF_STR_MAX])
{
    long dom = 0, bus, dev, fn;
    size_t n = strlen(s);

    if (n == 12 && s[4] == ':') {
        dom = hexn(s, 4);
        s += 5;
    } else if (n != 7) {
        return -EINVAL;
    }
    if (dom < 0 || s[2] != ':' || s[5] != '.' || s[7] != '\0')
        return -EINVAL;
    bus = hexn(s, 2);
    dev = hexn(s + 3, 2);
    fn = hexn(s + 6, 1);
    if (bus < 0 || dev < 0 || dev > 0x1f || fn < 0 || fn > 7)
        return -EINVAL;
    snprintf(out, FF_STR_MAX, "%04lx:%02lx:%02lx.%lx", dom, bus, dev, fn);
    return 0;
}

int ff_port_parse(const char *s, struct ff_port *p)
{
    if (strcmp(s, "memif") == 0) {          /* a link per readout-SFC pair */
        p->kind = FF_PORT_MEMIF;
        p->dev[0] = '\0';
        return 0;
    }
    if (strncmp(s, "memif:", 6) == 0) {
        if (!word_ok(s + 6, FF_NAME_MAX - 1))
            return -EINVAL;
        p->kind = FF_PORT_MEMIF;
        snprintf(p->dev, sizeof(p->dev), "%s", s + 6);
        return 0;
    }
    if (strncmp(s, "net_", 4) == 0) {
        if (strlen(s) < 5 || strlen(s) >= sizeof(p->dev))
            return -EINVAL;
        for (const char *q = s; *q; q++)
            if (!isgraph((unsigned char)*q))
                return -EINVAL;
        p->kind = FF_PORT_VDEV;
        snprintf(p->dev, sizeof(p->dev), "%s", s);
        return 0;
    }
    p->kind = FF_PORT_PCI;
    return pci_parse(s, p->dev);
}

const char *ff_port_str(const struct ff_port *p, char *buf, size_t len)
{
    if (p->kind == FF_PORT_MEMIF && !p->dev[0])
        snprintf(buf, len, "memif");
    else
        snprintf(buf, len, "%s%s", p->kind == FF_PORT_MEMIF ? "memif:" : "", p->dev);
    return buf;
}

int ff_lcores_ok(const char *s)
{
    int depth = 0;

    if (!strcmp(s, "auto"))
        return 1;
    if (!isdigit((unsigned char)*s) && *s != '(')
        return 0;
    for (; *s; s++) {
        if (*s == '(')
            depth++;
        else if (*s == ')' && --depth < 0)
            return 0;
        else if (!isdigit((unsigned char)*s) && !strchr(",-@()", *s))
            return 0;
    }
    return depth == 0;
}

/* --- Scalars ---------------------------------------------------------------- */

const char *ff_key(struct ff_cv *c, const char *field)
{
    snprintf(c->key, sizeof(c->key), "%s%s%s", c->pre, c->pre[0] ? "." : "", field);
    return c->key;
}

/* Copy txt (when given) into dst of size len. */
int ff_get_str(struct ff_cv *c, const char *field, const char *txt, char *dst, size_t len)
{
    if (!txt)
        return 0;
    if (strlen(txt) >= len)
        return FAIL(c, "key '%s': \"%.40s%s\" is too long (%zu characters, at most %zu)",
                    ff_key(c, field), txt, strlen(txt) > 40 ? "..." : "", strlen(txt), len - 1);
    memcpy(dst, txt, strlen(txt) + 1);
    return 0;
}

/* Parse a decimal integer in [min, max] (when given) into *out. */
int ff_get_u64(struct ff_cv *c, const char *field, const char *txt, uint64_t min, uint64_t max,
                   uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!txt)
        return 0;
    errno = 0;
    v = strtoull(txt, &end, 10);
    if (txt[0] < '0' || txt[0] > '9' || *end != '\0')
        return FAIL(c, "key '%s': \"%s\" is not an integer (%llu to %llu)", ff_key(c, field), txt,
                    (unsigned long long)min, (unsigned long long)max);
    if (errno == ERANGE || v < min || v > max)
        return FAIL(c, "key '%s': %s is out of range (%llu to %llu)", ff_key(c, field), txt,
                    (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return 0;
}

int ff_get_u32(struct ff_cv *c, const char *field, const char *txt, uint32_t min, uint32_t max,
                   uint32_t *out)
{
    uint64_t v = *out;
    int rc = ff_get_u64(c, field, txt, min, max, &v);

    *out = (uint32_t)v;
    return rc;
}

int ff_get_u16(struct ff_cv *c, const char *field, const char *txt, uint16_t min, uint16_t max,
                   uint16_t *out)
{
    uint64_t v = *out;
    int rc = ff_get_u64(c, field, txt, min, max, &v);

    *out = (uint16_t)v;
    return rc;
}

/* Parse a finite decimal number in [min, max] (when given) into *out. */
int ff_get_dbl(struct ff_cv *c, const char *field, const char *txt, double min, double max,
                   double *out)
{
    char *end;
    double v;

    if (!txt)
        return 0;
    v = strtod(txt, &end);
    if (!strchr("0123456789.-+", txt[0]) || *end != '\0' || !isfinite(v) ||
        strpbrk(txt, "xX"))
        return FAIL(c, "key '%s': \"%s\" is not a number (%.15g to %.15g)", ff_key(c, field), txt,
                    min, max);
    if (v < min || v > max)
        return FAIL(c, "key '%s': %s is out of range (%.15g to %.15g)", ff_key(c, field), txt, min,
                    max);
    *out = v;
    return 0;
}

int ff_get_param(struct ff_cv *c, const struct ebf_param_def *d, const char *txt, void *out)
{
    switch (d->type) {
    case EBF_PT_U16:
        return ff_get_u16(c, d->key, txt, (uint16_t)d->min, (uint16_t)d->max, out);
    case EBF_PT_U32:
        return ff_get_u32(c, d->key, txt, (uint32_t)d->min, (uint32_t)d->max, out);
    case EBF_PT_U64:
        return ff_get_u64(c, d->key, txt, d->min, d->max, out);
    case EBF_PT_DOUBLE:
        return ff_get_dbl(c, d->key, txt, d->dmin, d->dmax, out);
    }
    return -EINVAL;
}

int ff_get_bool(struct ff_cv *c, const char *field, const char *txt, int *out)
{
    if (!txt)
        return 0;
    if (strcmp(txt, "true") && strcmp(txt, "false"))
        return FAIL(c, "key '%s': \"%s\" is not true or false", ff_key(c, field), txt);
    *out = !strcmp(txt, "true");
    return 0;
}

int ff_get_mac(struct ff_cv *c, const char *field, const char *txt, uint8_t mac[6])
{
    if (!txt)
        return 0;
    if (ebf_parse_mac(txt, mac) == 0 && (mac[0] & 1))
        return FAIL(c, "key '%s': \"%s\" is a multicast MAC address (a port's MAC is unicast: "
                    "its first byte even)", ff_key(c, field), txt);
    if (ebf_parse_mac(txt, mac) == 0)
        return 0;
    return FAIL(c, "key '%s': \"%s\" is not a MAC address (%s)", ff_key(c, field), txt,
                FF_HINT_MAC);
}

int ff_get_port(struct ff_cv *c, const char *field, const char *txt, struct ff_port *p)
{
    if (!txt || ff_port_parse(txt, p) == 0)
        return 0;
    return FAIL(c, "key '%s': \"%s\" is not a port (%s)", ff_key(c, field), txt, FF_HINT_PORT);
}

/* eal_args (when given) are appended to the list in p: a process's own
 * come after those of defaults (libcyaml gives no way to tell an empty
 * list from a missing one, so a process cannot clear the defaults' list). */
int ff_get_args(struct ff_cv *c, char **args, unsigned n, struct ff_proc *p)
{
    char field[32], why[1024];
    int rc = 0;

    for (unsigned i = 0; i < n && rc == 0; i++) {
        char *dst = p->eal_args[p->n_eal_args];
        snprintf(field, sizeof(field), "eal_args[%u]", i);
        if (p->n_eal_args == FF_MAX_EAL_ARGS)
            return FAIL(c, "key '%s': more than %d EAL arguments with those of defaults",
                        ff_key(c, field), FF_MAX_EAL_ARGS);
        rc = ff_get_str(c, field, args[i], dst, FF_STR_MAX);
        if (rc == 0 && args[i][0] == '\0')
            rc = FAIL(c, "key '%s' is empty (an EAL argument such as --log-level=8)",
                      ff_key(c, field));
        else if (rc == 0 &&
                 ff_eal_arg_refused(dst, p->n_eal_args ? p->eal_args[p->n_eal_args - 1] : NULL,
                                    why, sizeof(why)))
            rc = FAIL(c, "key '%s': %s", ff_key(c, field), why);
        p->n_eal_args += rc == 0;
    }
    return rc;
}

/* The name of the option in arg: up to '=' for a long one, the first two
 * characters for a short one; its length, 0 when arg is no option. */
static size_t opt_name(const char *arg)
{
    if (arg[0] != '-' || arg[1] == '\0')
        return 0;
    if (arg[1] != '-')
        return 2;
    return strcspn(arg, "=");
}

/* 1 when the n bytes at name are one of FF_EAL_ALLOWED, exactly. */
static int allowed_opt(const char *name, size_t n)
{
    const char *list = FF_EAL_ALLOWED;

    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && memcmp(p, name, n) == 0)
            return 1;
        p += k;
        p += strspn(p, ", ");
    }
    return 0;
}

int ff_eal_arg_ok(const char *arg, const char *prev)
{
    size_t n = opt_name(arg), pn;

    if (n)
        return allowed_opt(arg, n);
    /* A value: only right after an allowed option whose value is not attached. */
    if (!prev || !(pn = opt_name(prev)) || !allowed_opt(prev, pn))
        return 0;
    return prev[pn] == '\0';
}

int ff_eal_arg_refused(const char *arg, const char *prev, char *why, size_t len)
{
    if (!strcmp(arg, "--telemetry") || !strcmp(arg, "--no-telemetry"))
        return snprintf(why, len, "\"%s\" is set by the key 'telemetry' (true, the default, or "
                        "false), not in eal_args", arg), -EINVAL;
    if (ff_eal_arg_ok(arg, prev))
        return 0;
    snprintf(why, len, "\"%s\" is not allowed (%s)", arg, FF_EAL_HINT);
    return -EINVAL;
}

int ff_faults_check(const char *spec, char *why, size_t len)
{
    struct ro_fault_conf fc;

    if (!strcmp(spec, "none"))
        return 0;
    ro_fault_conf_init(&fc);
    return ro_fault_parse(spec, &fc, why, len);
}

/* "none" is stored as "" (no frame faults). */
int ff_get_faults(struct ff_cv *c, const char *field, const char *txt, char *dst, size_t len)
{
    char why[512];
    int rc;

    if (!txt)
        return 0;
    if ((rc = ff_get_str(c, field, strcmp(txt, "none") ? txt : "", dst, len)))
        return rc;
    if (ff_faults_check(dst, why, sizeof(why)) == 0)
        return 0;
    return FAIL(c, "key '%s': \"%s\" is not a fault spec: %s", ff_key(c, field), txt, why);
}

int ff_get_silence(struct ff_cv *c, const char *field, const char *txt, uint32_t *source,
                   uint64_t *event)
{
    struct ro_fault_conf fc;
    char why[256];

    if (!txt)
        return 0;
    if (!strcmp(txt, "none")) {
        *source = FF_NO_SILENCE;
        *event = 0;
        return 0;
    }
    ro_fault_conf_init(&fc);
    if (ro_fault_parse_silence(txt, &fc, why, sizeof(why)))
        return FAIL(c, "key '%s': %s", ff_key(c, field), why);
    *source = fc.silence_source;
    *event = fc.silence_event;
    return 0;
}
