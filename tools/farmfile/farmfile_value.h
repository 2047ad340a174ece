/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_value.h - the farm file's values: limits, forms, error message, strict scalars. */
#ifndef FARMFILE_VALUE_H
#define FARMFILE_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_args.h"
#include "farmfile_types.h"

/*
 * The bottom of the loader: every other farmfile_*.c includes this header
 * and none of them is included here. DPDK-free, no state.
 */

/* Limits of the numeric keys; the loader and farm_spec_check use the same. */
#define FF_SOURCES_MIN 1
#define FF_SOURCES_MAX 128
#define FF_EVENTS_MAX (UINT64_MAX / 2)
#define FF_RATE_MAX 1e9
#define FF_DURATION_MAX 1e9
#define FF_FRAG_MIN 1
#define FF_FRAG_MAX 1048576
#define FF_MTU_MIN EBF_MTU_MIN  /* the daemons' --mtu range (ebf_args.h) */
#define FF_MTU_MAX EBF_MTU_MAX
#define FF_TRIGGER_US_MAX 1e6
#define FF_TRIGGER_TIMEOUT_MS_MAX 3.6e6
#define FF_TIMEOUT_MS_MIN 0.01
#define FF_TIMEOUT_MS_MAX 3.6e6
#define FF_METRICS_MS_MIN 10
#define FF_METRICS_MS_MAX 60000
#define FF_MEMORY_MB_MIN 64
#define FF_MEMORY_MB_MAX 65536
#define FF_CAPACITY_MIN 16
#define FF_CAPACITY_MAX 1048576
#define FF_MBUFS_MIN 1023
#define FF_MBUFS_MAX 4194304
#define FF_MAX_CREDITS_MAX 65535
#define FF_CREDITS_MAX 4096
#define FF_FRAG_SIGMA_MAX 16777216   /* the readout's --frag-sigma bound */
#define FF_BURST_GAP_US_MAX 60000000 /* the readout's --burst-gap-us bound */

/* What a value of each kind may be, for messages. */
#define FF_HINT_NAME "1 to 32 characters of a-z, 0-9, _ and -"
#define FF_HINT_MAC "six hex bytes such as 02:eb:00:00:02:00"
#define FF_HINT_PORT                                                                      \
    "memif:LINK with LINK of a-z, 0-9, _ and -; a PCI address such as 0000:3b:00.0 or " \
    "3b:00.0; or a DPDK vdev such as net_af_packet0,iface=eth0"
#define FF_HINT_ENDPOINT "tcp://HOST:PORT or ipc://PATH, where {run} stands for the run directory"
#define FF_HINT_LCORES "\"auto\" or an EAL --lcores value such as 0@(0,1) or 1-3"

/* Write "<where>: <message>" into err; returns -EINVAL. */
int ff_fail(char *err, size_t errlen, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ff_fail() with the error buffer and prefix of c: any context that has
 * where, err and errlen. */
#define FAIL(c, ...) ff_fail((c)->err, (c)->errlen, (c)->where, __VA_ARGS__)

/* The context of the checks of a whole spec (farmfile_check.c, farmfile_cross.c). */
struct ff_chk {
    const struct farm_spec *s;
    const char *where;
    char *err;
    size_t errlen;
};

/* 1 when s is a valid process or farm name. */
int ff_name_ok(const char *s);

/* 1 when s is "auto" or looks like an EAL --lcores value. */
int ff_lcores_ok(const char *s);

/* Parse a port string (see FF_HINT_PORT) into p; returns 0 or -EINVAL. */
int ff_port_parse(const char *s, struct ff_port *p);

/* The port as it is written in a farm file, into buf. */
const char *ff_port_str(const struct ff_port *p, char *buf, size_t len);

/* Conversion of the farm file's scalars (farmfile_value.c). Each takes the
 * text as written (NULL: not given, *out keeps its default), and returns 0,
 * or -EINVAL with a message naming the key "<pre>.<field>", the value and
 * what is allowed. */
struct ff_cv {
    const char *where;           /* message prefix: "farm file 'x.yaml'" */
    char *err;
    size_t errlen;
    char pre[32];                /* key prefix: "run", "nodes[2]" */
    char key[64];                /* the last key built by ff_key() */
};

const char *ff_key(struct ff_cv *c, const char *field);
int ff_get_str(struct ff_cv *c, const char *field, const char *txt, char *dst, size_t len);
int ff_get_u64(struct ff_cv *c, const char *field, const char *txt, uint64_t min, uint64_t max,
               uint64_t *out);
int ff_get_u32(struct ff_cv *c, const char *field, const char *txt, uint32_t min, uint32_t max,
               uint32_t *out);
int ff_get_u16(struct ff_cv *c, const char *field, const char *txt, uint16_t min, uint16_t max,
               uint16_t *out);
int ff_get_dbl(struct ff_cv *c, const char *field, const char *txt, double min, double max,
               double *out);
int ff_get_bool(struct ff_cv *c, const char *field, const char *txt, int *out);
int ff_get_mac(struct ff_cv *c, const char *field, const char *txt, uint8_t mac[6]);
int ff_get_port(struct ff_cv *c, const char *field, const char *txt, struct ff_port *p);
/* A frame fault spec (readout --faults syntax, or "none"): stored as
 * written, "none" as "". A silence "SOURCE@EVENT" or "none" (FF_NO_SILENCE). */
int ff_get_faults(struct ff_cv *c, const char *field, const char *txt, char *dst, size_t len);
int ff_get_silence(struct ff_cv *c, const char *field, const char *txt, uint32_t *source,
                   uint64_t *event);
/* 0 when spec is "", "none" or a valid fault spec; else -EINVAL and why
 * (the readout parser's message: the bad key or value, what is allowed). */
int ff_faults_check(const char *spec, char *why, size_t len);
/* A list of EAL arguments (when given) is appended to the one in p. */
int ff_get_args(struct ff_cv *c, char **args, unsigned n, struct ff_proc *p);

#endif /* FARMFILE_VALUE_H */
