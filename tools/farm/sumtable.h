/* SPDX-License-Identifier: BSD-3-Clause */
/* sumtable.h - a process's final counters in the run summary, walked by its counter tables. */
#ifndef SUMTABLE_H
#define SUMTABLE_H

#include <stdio.h>

#include "ebf_counters.h"
#include "ebf_kv.h"
#include "jsonout.h"

/*
 * The summary shows the entries of a counter table flagged EBF_CF_SUM
 * (lib/ebf_counters.h), in table order, with their values from a process's
 * final counters (ebf_kv, keys as the stats file's). Text: "name N" for a
 * value, "name: a N, b N" for a labelled one (its non-zero values, or
 * "none"), items separated by "; " on lines of at most SUM_WIDTH columns
 * under a "  <who>" heading. JSON: members "key": N and "key": {"a": N},
 * the key being the name with '.' as '_' (the Prometheus base name); a
 * value missing from the counters is 0, a labelled one {}.
 */

#define SUM_WIDTH 100
#define SUM_INDENT 11            /* "  readout  " */

struct sum_line {
    FILE *out;
    unsigned col;                /* columns written on this line */
    int items;                   /* items on this heading */
};

/* Start the lines of who ("readout", "node1"). */
void sum_begin(struct sum_line *ln, FILE *out, const char *who);

/* One item, wrapped onto a new line when it would pass SUM_WIDTH. */
void sum_item(struct sum_line *ln, const char *item);

/* The summary entries of t as items, values from kv. */
void sum_text(struct sum_line *ln, const struct ebf_counter_table *t, const struct ebf_kv *kv);

/* End the lines (a newline). */
void sum_end(struct sum_line *ln);

/* The summary entries of t as members of the JSON object obj; 0, or -1
 * when out of memory. */
int sum_json(json_t *obj, const struct ebf_counter_table *t, const struct ebf_kv *kv);

/* The values of the labelled name in kv: "a N, b N" of the non-zero ones,
 * or "none"; as JSON {"a": N, "b": N} of all (NULL when out of memory). */
void sum_values_text(FILE *out, const char *name, const struct ebf_kv *kv);
json_t *sum_values_json(const char *name, const struct ebf_kv *kv);

#endif /* SUMTABLE_H */
