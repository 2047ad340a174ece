/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_argv.h - a daemon's command line from a farm spec: EAL arguments, its ports, its own options. */
#ifndef FARM_ARGV_H
#define FARM_ARGV_H

#include "farm_types.h"

#define FARM_ARGV_MAX 128

/* argv[0..argc) are allocated, argv[argc] is NULL. */
struct farm_argv {
    int argc;
    char *argv[FARM_ARGV_MAX];
};

/*
 * The command line of the k-th process of role in spec s (s->sfc[k],
 * s->node[k] or s->readout[k]), run as fp (its EAL file prefix and its
 * endpoints, {run} already substituted), from the daemons in build, with
 * memif sockets in run_dir. c must start zeroed; arguments past
 * FARM_ARGV_MAX - 1 are left out. Free with farm_argv_free.
 */
void farm_argv_build(const struct farm_spec *s, enum farm_role role, unsigned k, const char *build,
                     const struct farm_proc *fp, const char *run_dir, struct farm_argv *c);

/* Free the arguments; c is empty after. */
void farm_argv_free(struct farm_argv *c);

#endif /* FARM_ARGV_H */
