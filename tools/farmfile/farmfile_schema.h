/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_schema.h - the farm file's libcyaml schema and the raw structs it loads into. */
#ifndef FARMFILE_SCHEMA_H
#define FARMFILE_SCHEMA_H

#include <cyaml/cyaml.h>

#include "farmfile_types.h"

/*
 * libcyaml checks the structure: which keys a mapping may have, which are
 * required, mappings against lists against single values, list lengths and
 * the enums. Every other scalar is loaded as a string and parsed here,
 * because libcyaml 1.3 takes "1.5" for the integer 1 and "maybe" for true,
 * and because a message must show the value as it was written. A missing
 * optional key leaves a NULL pointer, so "not given" is told from any value.
 */

struct raw_proc {                /* one struct for readouts, SFCs and nodes */
    char *name, *id, *sfc, *port, *mac, *sfc_port, *sfc_mac;
    char *capacity, *mbufs, *max_credits, *credits, *workers, *accept_any_readout;
    char **sfcs;
    unsigned sfcs_count;
    char *host;
    char *control, *metrics, *lcores, *memory_mb, *telemetry;
    int *idle;
    char **eal_args;
    unsigned eal_args_count;
};

struct raw_host {
    char *name, *ssh, *address, *user, *netns, *local, *lcores;
    char **eal_args;
    unsigned eal_args_count;
};

struct raw_defaults {
    int *idle;
    char *no_huge, *memory_mb, *lcores, *telemetry;
    char **eal_args;
    unsigned eal_args_count;
    char *metrics_period_ms;
};

struct raw_trigger {
    char *plugin;
    char **params;
    unsigned params_count;
    char *timeout_ms;
};

struct raw_store {
    char *dir, *max_file_mb, *max_file_s, *fsync, *buffer_mb, *max_mbs;
};

struct raw_run {
    char *sources, *events, *rate, *duration_s, *frag_size, *frag_min, *frag_max;
    int *frag_dist;
    char *frag_mean, *frag_sigma;
    int *payload;
    int *encap;
    char *udp_port, *mtu, *seed, *trigger_us, *accept, *accept_seed, *timeout_ms;
    char *max_event;
    char *faults, *fault_seed, *silence, *burst_events, *burst_gap_us, *replay_mb, *sfc_dead_ms;
    struct raw_trigger *trigger;
    struct raw_store *store;
};

/* The sim: section, every value a string (sim/sim_conf.c parses them). */
struct raw_sim {
#define FF_RAW_SIM_FIELD(k) char *k;
    FF_SIM_KEYS(FF_RAW_SIM_FIELD)
#undef FF_RAW_SIM_FIELD
    char **faults;
    unsigned faults_count;
};

struct raw_farm {
    char *farm;
    char *keys, *insecure;
    struct raw_defaults *defaults;
    struct raw_run *run;
    struct raw_host *hosts;
    unsigned hosts_count;
    struct raw_proc *readouts, *sfcs, *nodes;
    unsigned readouts_count, sfcs_count, nodes_count;
    struct raw_sim *sim;
};

/* The whole file: a struct raw_farm, loaded through a pointer. */
extern const cyaml_schema_value_t ff_farm_schema;

#endif /* FARMFILE_SCHEMA_H */
