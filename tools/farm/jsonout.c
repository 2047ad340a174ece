/* SPDX-License-Identifier: BSD-3-Clause */
/* jsonout.c - the tools' JSON through jansson: rounded reals, strings made safe, the three layouts. */
#include "jsonout.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* v printed with fmt and read back: the double nearest to the decimal a
 * report shows, which JOUT_REAL_PRECISION digits write back unchanged. */
static json_t *rounded(const char *fmt, int digits, double v)
{
    char buf[64];

    if (!isfinite(v))
        return json_null();
    snprintf(buf, sizeof(buf), fmt, digits, v);
    return json_real(strtod(buf, NULL));
}

json_t *jout_fixed(double v, int decimals)
{
    return rounded("%.*f", decimals, v);
}

json_t *jout_sig(double v, int digits)
{
    return rounded("%.*g", digits, v);
}

json_t *jout_round(double v)
{
    return isfinite(v) ? json_integer((json_int_t)llround(v)) : json_null();
}

/* A count above INT64_MAX travels through the tree as this string
 * followed by its digits; jout_write writes the digits alone. jansson
 * escapes the control character as \u0001, which no other string of the
 * tools holds. */
#define U64_MARK "\x01u64:"
#define U64_MARK_TEXT "\"\\u0001u64:"

json_t *jout_u64(uint64_t v)
{
    char buf[32];

    if (v <= INT64_MAX)
        return json_integer((json_int_t)v);
    snprintf(buf, sizeof(buf), U64_MARK "%llu", (unsigned long long)v);
    return json_string(buf);
}

json_t *jout_str(const char *s)
{
    json_t *j = json_string(s);

    if (j || !s)
        return j;
    char *t = strdup(s);     /* not UTF-8: keep the ASCII, mark the rest */
    if (!t)
        return NULL;
    for (char *p = t; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    j = json_string(t);
    free(t);
    return j;
}

json_t *jout_str_or_null(const char *s)
{
    return s[0] ? jout_str(s) : json_null();
}

int jout_set(json_t *obj, const char *key, json_t *v)
{
    return v ? json_object_set_new(obj, key, v) : -1;
}

int jout_merge(json_t *obj, json_t *part)
{
    int rc = part ? json_object_update(obj, part) : -1;

    json_decref(part);
    return rc;
}

int jout_append(json_t *arr, json_t *v)
{
    return v ? json_array_append_new(arr, v) : -1;
}

/* The members of obj, each on a line of its own after the first. */
static int write_lines(FILE *f, json_t *obj, size_t flags)
{
    const char *key;
    json_t *v;
    int rc = fputc('{', f) == EOF, n = 0;

    json_object_foreach(obj, key, v) {
        json_t *k = json_string(key);
        if (!k)
            return -1;
        if (n++)
            rc |= fputs(",\n ", f) == EOF;
        rc |= json_dumpf(k, f, flags) || fputs(": ", f) == EOF || json_dumpf(v, f, flags);
        json_decref(k);
    }
    return rc | (fputc('}', f) == EOF);
}

/* text to f with every marked count (U64_MARK_TEXT, digits, '"') as
 * its digits. */
static int put_unmarked(FILE *f, const char *text)
{
    const char *p;
    int rc = 0;

    while ((p = strstr(text, U64_MARK_TEXT)) != NULL) {
        const char *d = p + strlen(U64_MARK_TEXT);
        size_t n = strspn(d, "0123456789");
        rc |= fwrite(text, 1, (size_t)(p - text), f) != (size_t)(p - text) ||
              fwrite(d, 1, n, f) != n;
        text = d + n + (d[n] == '"');
    }
    return rc | (fputs(text, f) == EOF);
}

int jout_write(FILE *f, json_t *root, enum jout_style style)
{
    size_t flags = JSON_ENCODE_ANY | JSON_REAL_PRECISION(JOUT_REAL_PRECISION), len = 0;
    char *text = NULL;
    FILE *m;
    int rc;

    if (!root)
        return -ENOMEM;
    if (style == JOUT_COMPACT)
        flags |= JSON_COMPACT;
    m = open_memstream(&text, &len);
    if (!m) {
        json_decref(root);
        return -ENOMEM;
    }
    if (style == JOUT_LINES && json_is_object(root))
        rc = write_lines(m, root, flags);
    else
        rc = json_dumpf(root, m, flags);
    json_decref(root);
    rc |= fclose(m) == EOF;
    if (rc) {
        free(text);
        return -ENOMEM;
    }
    rc = put_unmarked(f, text) | (fputc('\n', f) == EOF) | (fflush(f) == EOF);
    free(text);
    return rc ? -EIO : 0;
}
