/* SPDX-License-Identifier: BSD-3-Clause */
/* farm.h - run a whole farm (readout, SFC, nodes) as processes on this host over memif. */
#ifndef FARM_H
#define FARM_H

#include <stdint.h>

#include "ebf_kv.h"
#include "farmfile.h"

#define FARM_MAX_NODES 64

struct farm_conf {
    const char *build_dir;       /* holds readout/ebfarm-readout, sfc/..., node/... */
    const char *farm_file;       /* the farm to shape; NULL: farms/demo.yaml */
    uint64_t events;
    uint16_t sources;
    uint16_t nodes;
    uint32_t frag_min, frag_max;
    double rate;                 /* events/s, 0: as fast as possible */
    int udp;                     /* UDP/IPv4 fragments instead of raw Ethernet */
    double trigger_us;
    double accept;
    double timeout_ms;           /* SFC event timeout */
    uint16_t credits;            /* per node */
    int keep;                    /* keep the run directory (logs, stats) */
    double max_seconds;          /* give the readout at most this long */
    uint64_t kill_node_after;    /* SIGKILL node 0 once this many events were
                                  * generated; 0: never */
    double restart_after_ms;     /* then start it again this much later; 0: never */
    uint64_t stall_nodes_after;  /* SIGSTOP every node once this many events were
                                  * generated, SIGCONT them stall_ms after the
                                  * readout is throttled; 0: never */
    double stall_ms;
    /* Fragment sizes: lognormal, or else fixed or uniform by frag_min/frag_max. */
    enum ff_frag_dist frag_dist;
    double frag_mean, frag_sigma;    /* lognormal: bytes, clamped to [frag_min, frag_max] */
    /* The readout's fault injection (readout/ro_fault.h). */
    uint64_t seed;               /* fragment sizes and fault decisions (1) */
    char faults[FF_STR_MAX];     /* frame fault spec, "" for none */
    uint32_t silence_source;     /* FF_NO_SILENCE, or a source silent ... */
    uint64_t silence_event;      /*   from this event id on */
    uint32_t burst_events;       /* 0, or events sent back to back ... */
    uint32_t burst_gap_us;       /*   then a pause this long */
};

/* One node process of a run, by its instance name in the farm file. */
struct farm_node_result {
    char name[FF_NAME_MAX];
    int gone;                    /* it gave no final counters: killed or crashed */
    struct ebf_kv kv;            /* its final counters; empty when gone */
};

struct farm_result {
    char run_dir[512];
    char error[512];             /* why the run failed, "" when it did not */
    struct ebf_kv readout;
    struct ebf_kv sfc;
    struct farm_node_result node[FARM_MAX_NODES];   /* in farm-file order */
    uint16_t n_nodes;            /* node processes that ran, gone ones included */
    unsigned nodes_silent;       /* of them, those that gave no final counters */
    double wall_s;               /* first frame sent to last event acked */
};

/* Defaults of the demo: 200000 events of 8 sources of 1024 bytes, 2 nodes. */
void farm_conf_default(struct farm_conf *c);

/*
 * The demo farm file shaped by c (nodes, run parameters), brought up in a
 * fresh run directory (unique sockets and --file-prefix per process,
 * --no-huge, idle back-off), configured and started under run control;
 * once the readout has finished, the staged stop (readout, SFC drain,
 * nodes) and every process's final counters from its status; then down.
 * Removes its sockets and DPDK runtime directories, and the run directory
 * unless keep. Returns 0, or -1 with r->error saying what failed (a process
 * that did not start or answer, a refused command, one that had to be
 * killed); the run directory is then kept for its logs.
 */
int farm_run(const struct farm_conf *c, struct farm_result *r);
void farm_result_free(struct farm_result *r);

/* The build directory of the running executable (two levels above it). */
int farm_build_dir(char *buf, unsigned len);

#endif /* FARM_H */
