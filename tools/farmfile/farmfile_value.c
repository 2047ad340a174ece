/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_value.c - the farm file's scalars: strings parsed strictly into numbers, MACs, ports. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_util.h"
#include "farmfile_private.h"
#include "ro_fault.h"

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
    if (!txt || ebf_parse_mac(txt, mac) == 0)
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
    char field[32];
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
        p->n_eal_args += rc == 0;
    }
    return rc;
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
