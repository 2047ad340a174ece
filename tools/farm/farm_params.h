/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_params.h - the run parameters a farm spec gives each kind of daemon with configure. */
#ifndef FARM_PARAMS_H
#define FARM_PARAMS_H

#include "ctlclient.h"
#include "farm_types.h"

#define FARM_PARAMS_MAX 32

/*
 * Fill p (room for FARM_PARAMS_MAX) with the configure parameters of a
 * daemon of role from s->run, the farm's name (farm) first; returns how
 * many. Readouts take every fault
 * and size-distribution parameter each time ("none" where there is none),
 * because a configure replaces the last one's.
 */
unsigned farm_params(const struct farm_spec *s, enum farm_role role, struct ctl_param *p);

#endif /* FARM_PARAMS_H */
