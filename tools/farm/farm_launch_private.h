/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_launch_private.h - what farm_launch.c and farm_launch_prep.c share. */
#ifndef FARM_LAUNCH_PRIVATE_H
#define FARM_LAUNCH_PRIVATE_H

#include <stddef.h>

#include "farm_types.h"

/* Append printf-formatted text to buf (len bytes) at *o; *o ends at
 * len - 1 when it does not fit. */
void farm_launch_put(char *buf, size_t len, size_t *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Whether h is reached over ssh (an ssh or a netns host). */
int farm_launch_remote(const struct farm_host *h);

/* Whether some process of st is on host h. */
int farm_launch_has_procs(const struct farm_state *st, const struct farm_host *h);

/* The properties of every transient unit (systemd-run -p), NULL-ended. */
extern const char *const farm_launch_unit_props[];

#endif /* FARM_LAUNCH_PRIVATE_H */
