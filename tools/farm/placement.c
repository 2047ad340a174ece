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

/* The processes of role as "name": "host" members. */
static json_t *role_json(const struct farm_result *r, enum farm_role role)
{
    json_t *o = json_object();

    for (unsigned i = 0; o && i < r->n_placed; i++) {
        if (r->placed[i].role != role)
            continue;
        if (jout_set(o, r->placed[i].proc, jout_str(r->placed[i].host)) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

json_t *placement_json(const struct farm_result *r)
{
    if (!r->n_placed)
        return json_object();
    return json_pack("{s:i, s:o, s:o, s:o}", "count", (int)n_hosts(r), "readouts",
                     role_json(r, FARM_READOUT), "sfcs", role_json(r, FARM_SFC), "nodes",
                     role_json(r, FARM_NODE));
}
