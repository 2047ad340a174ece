/* SPDX-License-Identifier: BSD-3-Clause */
/* placement.c - where a run's processes ran, for its summary: how many of each kind, on which hosts. */
#include "placement.h"

#include <string.h>

/* How many distinct hosts r's processes ran on. */
static unsigned n_hosts(const struct farm_result *r)
{
    unsigned n = 0;

    for (unsigned i = 0; i < r->n_placed; i++) {
        unsigned j = 0;
        while (j < i && strcmp(r->placed[j].host, r->placed[i].host))
            j++;
        n += j == i;
    }
    return n;
}

void placement_text(FILE *out, const struct farm_result *r)
{
    unsigned h = n_hosts(r), col = 0;

    if (h < 2)
        return;
    fprintf(out, "  hosts    %u hosts:", h);
    for (unsigned i = 0; i < r->n_placed; i++) {
        size_t w = strlen(r->placed[i].proc) + strlen(r->placed[i].host) + 2;
        if (col && col + w > 88) {
            fprintf(out, "\n          ");
            col = 0;
        }
        fprintf(out, " %s@%s", r->placed[i].proc, r->placed[i].host);
        col += (unsigned)w;
    }
    fprintf(out, "\n");
}

/* The processes of role as "name": "host" pairs. */
static void role_json(FILE *out, const struct farm_result *r, enum farm_role role)
{
    int first = 1;

    fputc('{', out);
    for (unsigned i = 0; i < r->n_placed; i++) {
        if (r->placed[i].role != role)
            continue;
        fprintf(out, "%s\"%s\": \"%s\"", first ? "" : ", ", r->placed[i].proc,
                r->placed[i].host);
        first = 0;
    }
    fputc('}', out);
}

void placement_json(FILE *out, const struct farm_result *r)
{
    if (!r->n_placed) {
        fputs("{}", out);
        return;
    }
    fprintf(out, "{\"count\": %u, \"readouts\": ", n_hosts(r));
    role_json(out, r, FARM_READOUT);
    fputs(", \"sfcs\": ", out);
    role_json(out, r, FARM_SFC);
    fputs(", \"nodes\": ", out);
    role_json(out, r, FARM_NODE);
    fputc('}', out);
}
