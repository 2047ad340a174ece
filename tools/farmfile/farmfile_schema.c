/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_schema.c - the farm file's libcyaml schema: which keys each mapping has, which are required. */
#include "farmfile_schema.h"

#include "farmfile_types.h"

#define OPT (CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER)
#define REQ CYAML_FLAG_POINTER
#define STR(key, flags, type, member) \
    CYAML_FIELD_STRING_PTR(key, flags, type, member, 0, CYAML_UNLIMITED)

static const cyaml_strval_t idle_strings[] = {
    {"spin", FF_IDLE_SPIN},
    {"backoff", FF_IDLE_BACKOFF},
};
static const cyaml_strval_t encap_strings[] = {
    {"eth", FF_ENCAP_ETH},
    {"udp", FF_ENCAP_UDP},
};
static const cyaml_strval_t payload_strings[] = {
    {"auto", FF_PAYLOAD_AUTO},
    {"prebuilt", FF_PAYLOAD_PREBUILT},
    {"per-event", FF_PAYLOAD_PER_EVENT},
};
static const cyaml_strval_t dist_strings[] = {
    {"fixed", FF_DIST_FIXED},
    {"uniform", FF_DIST_UNIFORM},
    {"lognormal", FF_DIST_LOGNORMAL},
};

static const cyaml_schema_value_t string_entry = {
    CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED),
};

/* The per-process keys that override defaults; last in every process. */
#define PROC_COMMON                                                                        \
    STR("host", OPT, struct raw_proc, host),                                               \
    STR("control", OPT, struct raw_proc, control),                                         \
    STR("metrics", OPT, struct raw_proc, metrics),                                         \
    STR("lcores", OPT, struct raw_proc, lcores),                                           \
    STR("memory_mb", OPT, struct raw_proc, memory_mb),                                     \
    STR("telemetry", OPT, struct raw_proc, telemetry),                                     \
    CYAML_FIELD_ENUM_PTR("idle", OPT | CYAML_FLAG_STRICT, struct raw_proc, idle,          \
                         idle_strings, CYAML_ARRAY_LEN(idle_strings)),                     \
    CYAML_FIELD_SEQUENCE("eal_args", OPT, struct raw_proc, eal_args, &string_entry, 0,    \
                         FF_MAX_EAL_ARGS),                                                 \
    CYAML_FIELD_END

static const cyaml_schema_field_t readout_fields[] = {
    STR("name", REQ, struct raw_proc, name),
    STR("port", REQ, struct raw_proc, port),
    STR("mac", REQ, struct raw_proc, mac),
    CYAML_FIELD_SEQUENCE("sfcs", REQ, struct raw_proc, sfcs, &string_entry, 1, FF_MAX_SFCS),
    PROC_COMMON,
};

static const cyaml_schema_field_t sfc_fields[] = {
    STR("name", REQ, struct raw_proc, name),
    STR("id", OPT, struct raw_proc, id),
    STR("port", REQ, struct raw_proc, port),
    STR("mac", REQ, struct raw_proc, mac),
    STR("capacity", OPT, struct raw_proc, capacity),
    STR("mbufs", OPT, struct raw_proc, mbufs),
    STR("max_credits", OPT, struct raw_proc, max_credits),
    STR("accept_any_readout", OPT, struct raw_proc, accept_any_readout),
    STR("workers", OPT, struct raw_proc, workers),
    PROC_COMMON,
};

static const cyaml_schema_field_t node_fields[] = {
    STR("name", REQ, struct raw_proc, name),
    STR("sfc", REQ, struct raw_proc, sfc),
    STR("port", REQ, struct raw_proc, port),
    STR("mac", REQ, struct raw_proc, mac),
    STR("sfc_port", OPT, struct raw_proc, sfc_port),
    STR("sfc_mac", OPT, struct raw_proc, sfc_mac),
    STR("credits", OPT, struct raw_proc, credits),
    STR("workers", OPT, struct raw_proc, workers),
    PROC_COMMON,
};

static const cyaml_schema_field_t defaults_fields[] = {
    CYAML_FIELD_ENUM_PTR("idle", OPT | CYAML_FLAG_STRICT, struct raw_defaults, idle, idle_strings,
                         CYAML_ARRAY_LEN(idle_strings)),
    STR("no_huge", OPT, struct raw_defaults, no_huge),
    STR("memory_mb", OPT, struct raw_defaults, memory_mb),
    STR("lcores", OPT, struct raw_defaults, lcores),
    STR("telemetry", OPT, struct raw_defaults, telemetry),
    CYAML_FIELD_SEQUENCE("eal_args", OPT, struct raw_defaults, eal_args, &string_entry, 0,
                         FF_MAX_EAL_ARGS),
    STR("metrics_period_ms", OPT, struct raw_defaults, metrics_period_ms),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t host_fields[] = {
    STR("name", REQ, struct raw_host, name),
    STR("ssh", OPT, struct raw_host, ssh),
    STR("address", OPT, struct raw_host, address),
    STR("user", OPT, struct raw_host, user),
    STR("netns", OPT, struct raw_host, netns),
    STR("local", OPT, struct raw_host, local),
    STR("lcores", OPT, struct raw_host, lcores),
    CYAML_FIELD_SEQUENCE("eal_args", OPT, struct raw_host, eal_args, &string_entry, 0,
                         FF_MAX_EAL_ARGS),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t trigger_fields[] = {
    STR("plugin", REQ, struct raw_trigger, plugin),
    CYAML_FIELD_SEQUENCE("params", OPT, struct raw_trigger, params, &string_entry, 0,
                         FF_TRIGGER_PARAMS_MAX),
    STR("timeout_ms", OPT, struct raw_trigger, timeout_ms),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t store_fields[] = {
    STR("dir", REQ, struct raw_store, dir),
    STR("max_file_mb", OPT, struct raw_store, max_file_mb),
    STR("max_file_s", OPT, struct raw_store, max_file_s),
    STR("fsync", OPT, struct raw_store, fsync),
    STR("buffer_mb", OPT, struct raw_store, buffer_mb),
    STR("max_mbs", OPT, struct raw_store, max_mbs),
    CYAML_FIELD_END,
};

static const cyaml_schema_field_t run_fields[] = {
    STR("sources", OPT, struct raw_run, sources),
    STR("events", OPT, struct raw_run, events),
    STR("rate", OPT, struct raw_run, rate),
    STR("duration_s", OPT, struct raw_run, duration_s),
    STR("frag_size", OPT, struct raw_run, frag_size),
    STR("frag_min", OPT, struct raw_run, frag_min),
    STR("frag_max", OPT, struct raw_run, frag_max),
    CYAML_FIELD_ENUM_PTR("frag_dist", OPT | CYAML_FLAG_STRICT, struct raw_run, frag_dist,
                         dist_strings, CYAML_ARRAY_LEN(dist_strings)),
    STR("frag_mean", OPT, struct raw_run, frag_mean),
    STR("frag_sigma", OPT, struct raw_run, frag_sigma),
    CYAML_FIELD_ENUM_PTR("payload", OPT | CYAML_FLAG_STRICT, struct raw_run, payload,
                         payload_strings, CYAML_ARRAY_LEN(payload_strings)),
    CYAML_FIELD_ENUM_PTR("encap", OPT | CYAML_FLAG_STRICT, struct raw_run, encap, encap_strings,
                         CYAML_ARRAY_LEN(encap_strings)),
    STR("udp_port", OPT, struct raw_run, udp_port),
    STR("mtu", OPT, struct raw_run, mtu),
    STR("seed", OPT, struct raw_run, seed),
    STR("trigger_us", OPT, struct raw_run, trigger_us),
    STR("accept", OPT, struct raw_run, accept),
    STR("accept_seed", OPT, struct raw_run, accept_seed),
    STR("timeout_ms", OPT, struct raw_run, timeout_ms),
    STR("max_event", OPT, struct raw_run, max_event),
    STR("faults", OPT, struct raw_run, faults),
    STR("fault_seed", OPT, struct raw_run, fault_seed),
    STR("silence", OPT, struct raw_run, silence),
    STR("burst_events", OPT, struct raw_run, burst_events),
    STR("burst_gap_us", OPT, struct raw_run, burst_gap_us),
    STR("replay_mb", OPT, struct raw_run, replay_mb),
    STR("sfc_dead_ms", OPT, struct raw_run, sfc_dead_ms),
    CYAML_FIELD_MAPPING_PTR("trigger", OPT, struct raw_run, trigger, trigger_fields),
    CYAML_FIELD_MAPPING_PTR("store", OPT, struct raw_run, store, store_fields),
    CYAML_FIELD_END,
};

#define SIM_FIELD(k) STR(#k, OPT, struct raw_sim, k),
static const cyaml_schema_field_t sim_fields[] = {
    FF_SIM_KEYS(SIM_FIELD)
    CYAML_FIELD_SEQUENCE("faults", OPT, struct raw_sim, faults, &string_entry, 0,
                         FF_SIM_MAX_FAULTS),
    CYAML_FIELD_END,
};
#undef SIM_FIELD

static const cyaml_schema_value_t host_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_host, host_fields),
};
static const cyaml_schema_value_t readout_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_proc, readout_fields),
};
static const cyaml_schema_value_t sfc_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_proc, sfc_fields),
};
static const cyaml_schema_value_t node_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_proc, node_fields),
};

static const cyaml_schema_field_t farm_fields[] = {
    STR("farm", REQ, struct raw_farm, farm),
    STR("keys", OPT, struct raw_farm, keys),
    STR("insecure", OPT, struct raw_farm, insecure),
    CYAML_FIELD_MAPPING_PTR("defaults", OPT, struct raw_farm, defaults, defaults_fields),
    CYAML_FIELD_MAPPING_PTR("run", OPT, struct raw_farm, run, run_fields),
    CYAML_FIELD_SEQUENCE("hosts", OPT, struct raw_farm, hosts, &host_entry, 1, FF_MAX_HOSTS),
    CYAML_FIELD_SEQUENCE("readouts", REQ, struct raw_farm, readouts, &readout_entry, 1,
                         FF_MAX_READOUTS),
    CYAML_FIELD_SEQUENCE("sfcs", REQ, struct raw_farm, sfcs, &sfc_entry, 1, FF_MAX_SFCS),
    CYAML_FIELD_SEQUENCE("nodes", REQ, struct raw_farm, nodes, &node_entry, 1, FF_MAX_NODES),
    CYAML_FIELD_MAPPING_PTR("sim", OPT, struct raw_farm, sim, sim_fields),
    CYAML_FIELD_END,
};

const cyaml_schema_value_t ff_farm_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct raw_farm, farm_fields),
};
