/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_check.h - validation of a farm spec: value ranges and forms, then the cross checks. */
#ifndef FARMFILE_CHECK_H
#define FARMFILE_CHECK_H

#include <stddef.h>

#include "farmfile_types.h"

/*
 * Every value of s in range and of its form (names, ports, endpoints,
 * lcores, fragment sizes against the MTU, faults), then ff_check_cross.
 * Returns 0, or -EINVAL with "<where>: key '...': ..." in err naming the
 * key as it is written in a farm file.
 */
int ff_check(const struct farm_spec *s, const char *where, char *err, size_t errlen);

#endif /* FARMFILE_CHECK_H */
