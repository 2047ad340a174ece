/* SPDX-License-Identifier: BSD-3-Clause */
/* placement.h - where a run's processes ran, for its summary: how many of each kind, on which hosts. */
#ifndef PLACEMENT_H
#define PLACEMENT_H

#include <stdio.h>

#include "farm_types.h"
#include "jsonout.h"

/* "  hosts    10 hosts: ro0@h1 ro1@h2 ..." when r's processes ran on more
 * than one host; nothing otherwise. */
void placement_text(FILE *out, const struct farm_result *r);

/* {"count": H, "readouts": {"ro0": "h1", ...}, "sfcs": {...}, "nodes":
 * {...}}: H distinct hosts, each process's host; {} when not known; NULL
 * when out of memory. */
json_t *placement_json(const struct farm_result *r);

#endif /* PLACEMENT_H */
