/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_cross.h - the checks across a farm spec's processes: unique names, ids, MACs, endpoints; links. */
#ifndef FARMFILE_CROSS_H
#define FARMFILE_CROSS_H

#include <stddef.h>

#include "farmfile_types.h"

/* Processes are numbered readouts first, then SFCs, then nodes: how many
 * there are, and process g with its key ("sfcs[1]") in key. */
#define FF_KEY_MAX 48
unsigned ff_n_procs(const struct farm_spec *s);
const struct ff_proc *ff_proc_at(const struct farm_spec *s, unsigned g, char key[FF_KEY_MAX]);

/*
 * The checks across processes, after every value is valid (ff_check):
 * unique process names, SFC ids, MACs (one port of one process each) and
 * endpoints (on each host: two hosts may bind the same); memif links with exactly two ends, joining a readout to an
 * SFC it sends to or a node to its SFC; every SFC fed by a readout and
 * serving a node. Returns 0, or -EINVAL with "<where>: key '...': ..." in
 * err.
 */
int ff_check_cross(const struct farm_spec *s, const char *where, char *err, size_t errlen);

#endif /* FARMFILE_CROSS_H */
