/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_log.h - the control side's log type, shared by its layers. */
#ifndef EBF_CTL_LOG_H
#define EBF_CTL_LOG_H

#include <rte_log.h>

extern int ebf_ctl_logtype;
#define CTL_LOG(level, ...) rte_log(RTE_LOG_##level, ebf_ctl_logtype, "ctl: " __VA_ARGS__)

#endif /* EBF_CTL_LOG_H */
