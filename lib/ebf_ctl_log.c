/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_log.c - the control side's log type, registered once per process. */
#include "ebf_ctl_log.h"

RTE_LOG_REGISTER_DEFAULT(ebf_ctl_logtype, INFO);
