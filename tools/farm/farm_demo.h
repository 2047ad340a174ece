/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_demo.h - the demo's settings, the farm spec they shape, and a spec's run as settings. */
#ifndef FARM_DEMO_H
#define FARM_DEMO_H

#include <stddef.h>

#include "farm_types.h"
#include "farmfile.h"

/* Defaults of the demo: 200000 events of 8 sources of 1024 bytes, 2 nodes. */
void farm_conf_default(struct farm_conf *c);

/* The summary's view of a spec's run (events, sources, nodes, sizes...):
 * the defaults with the spec's run parameters and node count applied. */
void farm_conf_of(const struct farm_spec *spec, struct farm_conf *c);

/*
 * The demo's conf as a spec: the farm file at farm_file with c's run
 * parameters applied and c->nodes nodes (the file's first node copied,
 * each on its own memif link, as node<i>); with c->readouts or c->sfcs
 * above 1, that many readouts (ro<i>) and SFCs (sfc<k>) like the file's
 * first, every readout sending to every SFC over a memif link per pair
 * (port: memif), node i serving SFC i % sfcs; c->cpus and c->idle applied
 * last (farm_place.h). Returns 0, or -1 with err when
 * the file does not load or has no node, c asks for more than
 * FF_MAX_NODES nodes, or the shaped spec does not pass farm_spec_check
 * (no node at all, for one).
 */
int farm_demo_spec(const struct farm_conf *c, const char *farm_file, struct farm_spec *spec,
                   char *err, size_t len);

#endif /* FARM_DEMO_H */
