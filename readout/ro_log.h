/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_log.h - the readout's log type (registered in ro_gen.c) and its log macro. */
#ifndef RO_LOG_H
#define RO_LOG_H

#include <rte_log.h>

extern int ro_logtype;

#define RO_LOG(level, ...) rte_log(RTE_LOG_##level, ro_logtype, "readout: " __VA_ARGS__)

#endif /* RO_LOG_H */
