/* SPDX-License-Identifier: BSD-3-Clause */
/* jsonout.h - the tools' JSON through jansson: numbers rounded as each report promises, and one writer for every layout. */
#ifndef JSONOUT_H
#define JSONOUT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Every JSON document the tools print (run summary, status, bench, soak,
 * events stats) is a jansson tree written by jout_write: one escaping,
 * one number format. A count is an integer. A real is rounded by its
 * maker below to the digits its report promises and written as the
 * shortest decimal of the rounded value, always with a '.' or an exponent
 * (2600.0, 0.5, 1.5e-07): JOUT_REAL_PRECISION significant digits, which
 * give back any decimal of that many digits. A figure that is not finite
 * is null.
 *
 * The makers return a new reference, or NULL when out of memory; json_pack
 * with "o" takes them and fails (NULL) when one is NULL, so a tree made of
 * them is NULL when any part of it could not be made.
 */

#define JOUT_REAL_PRECISION 15

/* The layouts, one per kind of output. */
enum jout_style {
    JOUT_COMPACT,                /* {"a":1,"b":[1,2]}: status, bench, soak's lines */
    JOUT_SPACED,                 /* {"a": 1, "b": [1, 2]}: events stats */
    JOUT_LINES,                  /* spaced, each top-level member on a line of its
                                  * own (",\n "): the run summary */
};

/* v with decimals decimals (printf's %.*f), as a real. */
json_t *jout_fixed(double v, int decimals);

/* v with digits significant digits (printf's %.*g), as a real. */
json_t *jout_sig(double v, int digits);

/* v rounded to the nearest integer (printf's %.0f), as an integer. */
json_t *jout_round(double v);

/* v as an integer, exact over all of uint64_t: jansson's integers are
 * signed 64-bit, so a count above INT64_MAX (a digest, a sum of hashes
 * modulo 2^64) is a marked string in the tree that jout_write writes as
 * its digits. */
json_t *jout_u64(uint64_t v);

/* s as a string; bytes of s that are not UTF-8 become '?'. */
json_t *jout_str(const char *s);

/* s as a string, or null when it is empty. */
json_t *jout_str_or_null(const char *s);

/* Set obj's key to v, taking v: 0, or -1 when v is NULL or out of memory
 * (v is released). */
int jout_set(json_t *obj, const char *key, json_t *v);

/* Add the members of the object part to obj, in their order, taking part;
 * 0, or -1 as jout_set. */
int jout_merge(json_t *obj, json_t *part);

/* Append v (taken) to the array arr; 0, or -1 as jout_set. */
int jout_append(json_t *arr, json_t *v);

/*
 * Write root in style to f, then a newline, and flush f. Takes root's
 * reference. Returns 0, -ENOMEM when root is NULL (a maker ran out of
 * memory) or the text could not be made (nothing is written then), or
 * -EIO when f refused the text.
 */
int jout_write(FILE *f, json_t *root, enum jout_style style);

#endif /* JSONOUT_H */
