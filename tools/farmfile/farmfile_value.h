/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_value.h - the farm file's values: limits, forms, error message, strict scalars. */
#ifndef FARMFILE_VALUE_H
#define FARMFILE_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_param.h"
#include "farmfile_types.h"

/*
 * The bottom of the loader: every other farmfile_*.c includes this header
 * and none of them is included here. DPDK-free, no state.
 */

/* Limits of the keys only the farm file has. The keys that daemons also
 * take (run parameters, SFC and node sizes) have theirs in lib/ebf_param.h,
 * one definition for the options, configure and the farm file. */
#define FF_TRIGGER_TIMEOUT_MS_MAX 3.6e6  /* run.trigger.timeout_ms, the node's --trigger-timeout-ms */
#define FF_MEMORY_MB_MIN 64
#define FF_MEMORY_MB_MAX 65536
#define FF_FILE_MAX (1 << 20)     /* bytes of a farm file */
#define FF_DEPTH_MAX 8            /* nesting of its mappings and lists (a farm file needs 4) */

/* What a value of each kind may be, for messages. */
#define FF_HINT_NAME "1 to 32 characters of a-z, 0-9, _ and -"
#define FF_HINT_MAC "six hex bytes such as 02:eb:00:00:02:00"
#define FF_HINT_PORT                                                                      \
    "memif:LINK with LINK of a-z, 0-9, _ and -; memif (readouts and SFCs: a link per " \
    "readout-SFC pair); a PCI address such as 0000:3b:00.0 or " \
    "3b:00.0; or a DPDK vdev such as net_af_packet0,iface=eth0"
#define FF_RUN_PREFIX "{run}/"   /* where every ipc:// endpoint lives */
#define FF_HINT_ENDPOINT "tcp://HOST:PORT or ipc://PATH, where {run} stands for the run directory"
#define FF_HINT_LCORES "\"auto\" or an EAL --lcores value such as 0@(0,1) or 1-3"

/* The wire's encapsulation of a farm file's encap. */
static inline enum ebf_encap ff_encap(enum ff_encap e)
{
    return e == FF_ENCAP_UDP ? EBF_ENCAP_UDP : EBF_ENCAP_ETH;
}

/* Write "<where>: <message>" into err; returns -EINVAL. */
int ff_fail(char *err, size_t errlen, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ff_fail() with the error buffer and prefix of c: any context that has
 * where, err and errlen. */
/* How the checks across parameters name the run's keys: "run.frag_min". */
#define FF_RUN_NAMES (&(const struct ebf_param_names){.pre = "run."})

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
/* A shared parameter (ebf_param.h) under its key d->key, its range from d,
 * into out of d's type. */
int ff_get_param(struct ff_cv *c, const struct ebf_param_def *d, const char *txt, void *out);
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
/* 1 when arg may stand in eal_args after prev (NULL for the first): an
 * option of FF_EAL_ALLOWED (exactly its name, "--name=value", or a short
 * one with its value attached), or the value of the option before it.
 * Options that load code (-d), name files or runtime directories
 * (--file-prefix, --vdev, --trace-dir ...) or that the runner sets itself
 * (-m, --no-huge, --lcores) are not allowed. */
int ff_eal_arg_ok(const char *arg, const char *prev);
/* 0 when arg may stand in eal_args after prev; else -EINVAL and why, the
 * message after the key: "\"-d\" is not allowed (allowed: ...)", or for
 * --telemetry and --no-telemetry, that the key telemetry sets them. */
int ff_eal_arg_refused(const char *arg, const char *prev, char *why, size_t len);
#define FF_EAL_ALLOWED                                                                      \
    "--log-level, --syslog, -l, -c, --main-lcore, -n, -r, --socket-mem, --socket-limit, "   \
    "--huge-dir, --huge-unlink, --single-file-segments, --legacy-mem, --match-allocations, " \
    "--iova-mode, --in-memory, --no-shconf, -a, --allow, -b, --block, "                     \
    "--force-max-simd-bitwidth"
/* What the message of a refused EAL argument says after its value. */
#define FF_EAL_HINT                                                                         \
    "allowed: " FF_EAL_ALLOWED "; each option alone, as --opt=VALUE, or followed by its "     \
    "value; the runner sets --file-prefix, -m, --no-huge, --lcores and the ports itself"

#endif /* FARMFILE_VALUE_H */
