/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_param.h - one definition per parameter (name, type, range, unit, meaning) for options, configure and the farm file. */
#ifndef EBF_PARAM_H
#define EBF_PARAM_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_proto.h"

/*
 * A parameter that more than one place takes (a daemon option, a key of
 * the control command `configure`, a farm file key) is defined once here:
 * its key (configure and farm file), its option name, its type, its range,
 * its unit and what it means. The daemons' option tables (ebf_args.h:
 * EBF_ARG_PARAM), their configure parsers (ebf_opt.h: ebf_conf_set) and
 * the farm file loader (tools/farmfile) take the range from here, so the
 * three cannot disagree. `use` lists where each one is taken; a test walks
 * the table and checks every place refuses exactly outside the range.
 *
 * DPDK-free; the table is constant, any thread may read it.
 */

#define EBF_FRAG_MAX 16777216    /* largest fragment a readout makes: its prebuilt payload
                                  * tags offsets in 24 bits; an SFC's max_event bounds events */
#define EBF_PORTS_MAX 32         /* ports one daemon can open: DPDK's RTE_MAX_ETHPORTS */
#define EBF_EVENT_QUEUE_FRAMES 1023 /* frames of an event an SFC queues toward a node at
                                  * once (larger ones take several polls); the default
                                  * fragment clamp (ebf_frag_fit) keeps events within it */
#define EBF_EVENT_FRAMES_MAX 65535 /* frames of one event: an event frame's frame_count */
#define EBF_EVENT_MAX_DEFAULT 16777216u /* --max-event unless set: 16 MiB, or what the pools hold */
#define EBF_EVENT_MAX_MAX (1u << 29)     /* --max-event at most: 512 MiB (65,535 frames
                                          * of MTU 9600 carry 594 MiB) */
#define EBF_MTU_MIN 256          /* the MTU range of every daemon and the farm file */
#define EBF_MTU_MAX 9600

/* A number's text: a default written as the constant it is. */
#define EBF_PARAM_STR_(x) #x
#define EBF_PARAM_STR(x) EBF_PARAM_STR_(x)

enum ebf_param_type {
    EBF_PT_U16,
    EBF_PT_U32,
    EBF_PT_U64,
    EBF_PT_DOUBLE,
};

/* Where a parameter is taken. */
enum ebf_param_use {
    EBF_PU_RO_OPT = 1 << 0,      /* ebfarm-readout --opt */
    EBF_PU_SFC_OPT = 1 << 1,     /* ebfarm-sfc --opt */
    EBF_PU_NODE_OPT = 1 << 2,    /* ebfarm-node --opt */
    EBF_PU_RO_CONF = 1 << 3,     /* the readout's configure: key */
    EBF_PU_SFC_CONF = 1 << 4,
    EBF_PU_NODE_CONF = 1 << 5,
    EBF_PU_FARM = 1 << 6,        /* the farm file: <farm>.key */
};
#define EBF_PU_ALL_OPT (EBF_PU_RO_OPT | EBF_PU_SFC_OPT | EBF_PU_NODE_OPT)

/*
 * The table: X(ID, key, option, type, min, max, default, unit, farm
 * section, use, meaning) for integers, D(...) with the same fields for
 * numbers. The default is text as a user would write it ("32", "0.1"; ""
 * for none: the value is required or its absence means something), parsed
 * by ebf_param_default: the daemons' options start from it, their usage
 * shows it, the farm file and the demo start from it. The farm file's run
 * keys events and trigger_us default to a demo's run instead (farmfile.h:
 * FF_RUN_EVENTS, FF_RUN_TRIGGER_US). The farm section is "run",
 * "defaults", "sfcs[]" or "nodes[]"; NULL when the farm file has no such
 * key.
 */
#define EBF_PARAMS(X, D)                                                                     \
    X(SOURCES, "sources", "sources", U16, 1, EBF_MAX_SOURCES, "8", "", "run",                \
      EBF_PU_RO_OPT | EBF_PU_SFC_OPT | EBF_PU_SFC_CONF | EBF_PU_FARM,                        \
      "sources (readout boards) every event has")                                            \
    X(EVENTS, "events", "events", U64, 0, UINT64_MAX / 2, "0", "", "run",                    \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "events to send; 0: until stopped")      \
    D(RATE, "rate", "rate", 0, 1e9, "0", "events/s", "run",                                  \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM,                                          \
      "event rate; 0: as fast as the port takes frames")                                     \
    D(DURATION, "duration_s", "duration", 0, 1e9, "0", "s", "run",                           \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "run length; 0: no limit")               \
    X(FRAG_SIZE, "frag_size", "frag-size", U32, 1, EBF_FRAG_MAX, "1024", "bytes", "run",     \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "one fragment size for every fragment")  \
    X(FRAG_MIN, "frag_min", "frag-min", U32, 1, EBF_FRAG_MAX, "1024", "bytes", "run",        \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "smallest fragment")                     \
    X(FRAG_MAX, "frag_max", "frag-max", U32, 1, EBF_FRAG_MAX, "1024", "bytes", "run",        \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "largest fragment")                      \
    D(FRAG_MEAN, "frag_mean", "frag-mean", 1, EBF_FRAG_MAX, "", "bytes", "run",              \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "log-normal sizes: their mean")          \
    D(FRAG_SIGMA, "frag_sigma", "frag-sigma", 0, 16777216, "", "bytes", "run",               \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM,                                          \
      "log-normal sizes: their standard deviation")                                          \
    X(SEED, "seed", "seed", U64, 0, UINT64_MAX, "1", "", "run",                              \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "seed of the fragment sizes")            \
    X(FAULT_SEED, "fault_seed", "fault-seed", U64, 0, UINT64_MAX, "1", "", "run",            \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "seed of the fault decisions")           \
    X(BURST_EVENTS, "burst_events", "burst-events", U32, 0, UINT32_MAX, "0", "", "run",      \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM,                                          \
      "events sent back to back, then a pause; 0: no bursts")                                \
    X(BURST_GAP_US, "burst_gap_us", "burst-gap-us", U32, 0, 60000000, "0", "us", "run",      \
      EBF_PU_RO_OPT | EBF_PU_RO_CONF | EBF_PU_FARM, "the pause between bursts")              \
    X(MTU, "mtu", "mtu", U16, EBF_MTU_MIN, EBF_MTU_MAX, "1500", "bytes", "run",              \
      EBF_PU_ALL_OPT | EBF_PU_FARM, "the MTU of every port (frames of at most MTU + 18 B)")  \
    X(UDP_PORT, "udp_port", "udp-port", U16, 1, 65535, EBF_PARAM_STR(EBF_UDP_PORT_DEFAULT), "", "run",                   \
      EBF_PU_RO_OPT | EBF_PU_SFC_OPT | EBF_PU_FARM, "UDP port of fragments")                 \
    D(TIMEOUT_MS, "timeout_ms", "timeout-ms", 0.01, 3.6e6, "100", "ms", "run",               \
      EBF_PU_SFC_OPT | EBF_PU_SFC_CONF | EBF_PU_FARM,                                        \
      "an event still building after this goes incomplete")                                  \
    D(DRAIN_QUIET_MS, "drain_quiet_ms", "drain-quiet-ms", 1, 3.6e6, "200", "ms", NULL,       \
      EBF_PU_SFC_OPT | EBF_PU_SFC_CONF | EBF_PU_NODE_OPT,                                    \
      "at stop, input quiet this long ends intake")                                          \
    D(DRAIN_TIMEOUT_MS, "drain_timeout_ms", "drain-timeout-ms", 1, 3.6e6, "5000", "ms", NULL, \
      EBF_PU_SFC_OPT | EBF_PU_SFC_CONF, "at stop, wait for acks at most this long")          \
    D(NODE_TIMEOUT_MS, "node_timeout_ms", "node-timeout-ms", 0, 3.6e6, "1000", "ms", NULL,   \
      EBF_PU_SFC_OPT | EBF_PU_SFC_CONF, "a node silent this long is dead; 0: never")         \
    X(SFC_ID, "id", "sfc-id", U16, 0, 65535, "0", "", "sfcs[]",                 \
      EBF_PU_SFC_OPT | EBF_PU_NODE_OPT | EBF_PU_FARM,                                        \
      "the SFC's id in event frames (a node's: in its storage file names)")                                                        \
    X(CAPACITY, "capacity", "capacity", U32, 16, 1u << 20, "4096", "events", "sfcs[]",       \
      EBF_PU_SFC_OPT | EBF_PU_FARM, "events an SFC holds at once: building, ready, unacked") \
    X(MBUFS, "mbufs", "mbufs", U32, 1023, 1u << 22, "32767", "", "sfcs[]",                   \
      EBF_PU_SFC_OPT | EBF_PU_FARM, "an SFC's receive mbufs")                                \
    X(MAX_EVENT, "max_event", "max-event", U32, 1024, EBF_EVENT_MAX_MAX, "", "bytes", "run", \
      EBF_PU_SFC_OPT | EBF_PU_NODE_OPT | EBF_PU_FARM, "an event's fragment bytes at most (unset: 16M, or "  \
      "what an SFC's --mbufs hold at the MTU); a larger one is refused at the SFC: "          \
      "rx.drop.event_too_big")                                                               \
    X(MAX_CREDITS, "max_credits", "max-credits", U32, 1, 65535, "256", "", "sfcs[]",         \
      EBF_PU_SFC_OPT | EBF_PU_FARM, "credits and unacked events per node at an SFC")         \
    X(PORTS, "ports", "node", U32, 2, EBF_PORTS_MAX, "", "", "sfcs[]",                       \
      EBF_PU_SFC_OPT | EBF_PU_FARM,                                                          \
      "a count: the ports an SFC opens, its own and each node port (--node)")                \
    X(CREDITS, "credits", "credits", U16, 1, 4096, "32", "", "nodes[]",                      \
      EBF_PU_NODE_OPT | EBF_PU_FARM, "event slots a node grants its SFC")                    \
    X(WORKERS, "workers", "workers", U16, 0, 15, "0", "", "nodes[]",                         \
      EBF_PU_NODE_OPT | EBF_PU_SFC_OPT | EBF_PU_FARM,                                        \
      "workers, an lcore each: a node's trigger workers (0: none), an SFC's data planes "    \
      "(sfcs[].workers; 0 or 1: one)")                                                       \
    D(TRIGGER_US, "trigger_us", "trigger-us", 0, 1e6, "0", "us", "run",                      \
      EBF_PU_NODE_OPT | EBF_PU_NODE_CONF | EBF_PU_FARM, "a node's busy time per event")      \
    D(ACCEPT, "accept", "accept", 0, 1, "0.1", "", "run",                                    \
      EBF_PU_NODE_OPT | EBF_PU_NODE_CONF | EBF_PU_FARM, "fraction of events accepted")       \
    X(ACCEPT_SEED, "accept_seed", "accept-seed", U64, 0, UINT64_MAX, "0", "", "run",         \
      EBF_PU_NODE_OPT | EBF_PU_NODE_CONF | EBF_PU_FARM, "seed of the accept decision")       \
    X(STORE_MAX_FILE_MB, "store_max_file_mb", "store-max-file-mb", U32, 1, 1048576, "256", "MiB", \
      NULL, EBF_PU_NODE_OPT, "a storage file is closed before it passes this size")          \
    D(STORE_MAX_FILE_S, "store_max_file_s", "store-max-file-s", 0, 86400, "300", "s", NULL,  \
      EBF_PU_NODE_OPT, "a storage file is closed once it is this old; 0: no limit")          \
    X(STORE_BUFFER_MB, "store_buffer_mb", "store-buffer-mb", U32, 1, 4096, "32", "MiB", NULL, \
      EBF_PU_NODE_OPT, "memory for accepted events not yet written, in 8 or more blocks")    \
    D(STORE_MAX_MBS, "store_max_mbs", "store-max-mbs", 0, 1e6, "0", "MB/s", NULL,            \
      EBF_PU_NODE_OPT, "write at most this fast (a slower disk, for tests); 0: no limit")    \
    D(METRICS_PERIOD_MS, "metrics_period_ms", "metrics-period-ms", 10, 60000, "1000", "ms",  \
      "defaults", EBF_PU_ALL_OPT | EBF_PU_FARM, "period of the published snapshots")

enum ebf_param_id {
#define EBF_PARAM_ID_(id, ...) EBF_P_##id,
    EBF_PARAMS(EBF_PARAM_ID_, EBF_PARAM_ID_)
#undef EBF_PARAM_ID_
    EBF_P_COUNT
};

struct ebf_param_def {
    const char *key;             /* configure and the farm file: "frag_size" */
    const char *opt;             /* the daemon option without "--": "frag-size" */
    enum ebf_param_type type;
    uint64_t min, max;           /* integers */
    double dmin, dmax;           /* EBF_PT_DOUBLE */
    const char *def;             /* the default as text: "32", "0.1"; "": none */
    const char *unit;            /* "bytes", "ms", "" */
    const char *farm;            /* the farm file's section, or NULL */
    unsigned use;                /* enum ebf_param_use bits */
    const char *help;            /* what it means */
};

extern const struct ebf_param_def ebf_params[EBF_P_COUNT];

/* The definition of id (a pointer into ebf_params: a constant address,
 * usable in static initialisers). */
#define EBF_PARAM(id) (&ebf_params[EBF_P_##id])

/* Bytes a value of type t takes. */
size_t ebf_param_size(enum ebf_param_type t);

/* The definition whose key is key (len bytes; need not end in NUL), or NULL. */
const struct ebf_param_def *ebf_param_find(const char *key, size_t len);

/*
 * Parse text (len bytes, not a C string: a NUL inside is refused) strictly
 * as a value of d: a decimal or 0x integer with an optional k/M/G suffix,
 * or a finite number, in d's range, with nothing after it. Stores it in
 * dst (d's type and width). 0, or -EINVAL with dst untouched.
 */
int ebf_param_parse(const struct ebf_param_def *d, const char *text, size_t len, void *dst);

/* Store d's default in dst (d's type and width): 0; -ENOENT when d has
 * none (dst untouched). */
int ebf_param_default(const struct ebf_param_def *d, void *dst);

/*
 * The checks across parameters, one each for the daemons' options, their
 * configure and the farm file. A message names the parameters as the place
 * does: options as "--workers", keys as pre + key ("workers",
 * "nodes[0].workers"). Each returns 0, or -EINVAL with why written.
 */
struct ebf_param_names {
    int opt;                     /* 1: "--" + the option name; 0: pre + the key */
    const char *pre;             /* before a key: "", "run.", "nodes[0]." */
};
/* A node's trigger workers each hold an event slot: workers <= credits:
 * "--workers 3 is more than --credits 2 (each trigger worker holds at
 * least one event slot)". */
int ebf_param_check_workers(const struct ebf_param_names *n, unsigned workers, unsigned credits,
                            char *why, size_t len);
/* Uniform sizes: frag_min <= frag_max: "run.frag_min 2000 is above
 * run.frag_max 1024". */
int ebf_param_check_frag_range(const struct ebf_param_names *n, uint32_t frag_min,
                               uint32_t frag_max, char *why, size_t len);
/* A burst gap (given, or nonzero) needs bursts: "--burst-gap-us needs
 * --burst-events above 0 (the pause between bursts of that many events)". */
int ebf_param_check_burst_gap(const struct ebf_param_names *n, int gap, uint32_t burst_events,
                              char *why, size_t len);

/* The range of d as the messages write it: "1..128", "0..1e+09". */
const char *ebf_param_range(const struct ebf_param_def *d, char *buf, size_t len);

/*
 * Fragment sizes against the size and frames of an event. A readout cuts a
 * fragment into pieces of at most ebf_piece_max() bytes, one frame each;
 * an event takes at most EBF_EVENT_FRAMES_MAX frames (frame_count) and
 * an SFC refuses one of more than its max_event bytes, so n_sources
 * fragments of frag_max bytes must not pass either. These are the checks'
 * shared arithmetic (DPDK-free).
 */
uint32_t ebf_piece_max(enum ebf_encap encap, uint32_t mtu);
uint64_t ebf_event_frames(uint32_t n_sources, uint32_t frag_max, enum ebf_encap encap,
                          uint32_t mtu);
/* The default frag_max of log-normal sizes: the largest whose events take
 * at most EBF_EVENT_QUEUE_FRAMES frames (at most EBF_FRAG_MAX). */
uint32_t ebf_frag_fit(uint32_t n_sources, enum ebf_encap encap, uint32_t mtu);
/* 0 when events of n_sources fragments of frag_max bytes fit max_event
 * bytes (0: no such check) and EBF_EVENT_FRAMES_MAX frames; else -EINVAL
 * and why: "events of 8 fragments of up to 16777216 B are up to 134217728
 * B, more than max_event 16777216 B (fragments of at most 2097152 B
 * fit)", "events of 128 fragments of up to 1048576 B take 95360 frames at
 * MTU 1500 (pieces of 1408 B), more than the 65535 of an event (fragments
 * of at most 720896 B fit)". */
int ebf_event_frames_check(uint32_t n_sources, uint32_t frag_max, enum ebf_encap encap,
                           uint32_t mtu, uint32_t max_event, char *why, size_t len);

/*
 * The largest event an SFC of mbufs receive mbufs takes at mtu: the
 * fewest frames an event of max bytes arrives in are pieces of mtu - 88
 * bytes (docs/protocol.md, "Size limits"); they must leave a queue toward
 * the nodes and a burst of the mbufs free (mbufs - 1024 frames) and stay
 * within the 65,535 frames of an event frame's frame_count. At most
 * EBF_EVENT_MAX_MAX.
 */
uint32_t ebf_event_max_fit(uint32_t mtu, uint32_t mbufs);

#endif /* EBF_PARAM_H */
