/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_types.h - what a farm file describes, as plain fixed-size structs: processes, ports, the run. */
#ifndef FARMFILE_TYPES_H
#define FARMFILE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#define FF_NAME_MAX 33           /* names: 1..32 characters + NUL */
#define FF_STR_MAX 256
#define FF_MAX_READOUTS 16
#define FF_MAX_SFCS 16
#define FF_MAX_NODES 64
#define FF_MAX_EAL_ARGS 16
#define FF_MAX_HOSTS (FF_MAX_READOUTS + FF_MAX_SFCS + FF_MAX_NODES) /* a host per process */
#define FF_ADDR_MAX 254          /* a hostname (253) or an IPv6 literal with a zone + NUL */
#define FF_LOCALHOST "localhost" /* the implicit host of a file without hosts */

enum ff_port_kind { FF_PORT_MEMIF, FF_PORT_PCI, FF_PORT_VDEV };
enum ff_idle { FF_IDLE_SPIN, FF_IDLE_BACKOFF };
enum ff_encap { FF_ENCAP_ETH, FF_ENCAP_UDP };
enum ff_frag_dist { FF_DIST_FIXED, FF_DIST_UNIFORM, FF_DIST_LOGNORMAL };
/* The readouts' --payload: auto is prebuilt, or per-event when the nodes
 * run a trigger plug-in (it may read the payload: prebuilt bytes are the
 * same in every event); farm_params resolves it. */
enum ff_payload { FF_PAYLOAD_AUTO, FF_PAYLOAD_PREBUILT, FF_PAYLOAD_PER_EVENT };
enum ff_host_kind { FF_HOST_LOCAL, FF_HOST_SSH, FF_HOST_NETNS };

#define FF_NO_SILENCE UINT32_MAX     /* ff_run.silence_source: no source goes silent */

/* memif: dev is the LINK name (both ends of a link name it), or "" (the
 * file's bare "memif", readouts and SFCs only): a link per readout-SFC
 * pair, named "<readout>-<sfc>" (FF_MEMIF_PAIRS); pci: the
 * address in full form, lower case ("0000:3b:00.0"); vdev: the whole string
 * ("net_af_packet0,iface=veth0"). */
struct ff_port {
    enum ff_port_kind kind;
    char dev[FF_STR_MAX];
};
#define FF_MEMIF_PAIRS(pt) ((pt)->kind == FF_PORT_MEMIF && !(pt)->dev[0])

/* A machine processes run on: this one, one reached over ssh, or a
 * network namespace of this one (tests, and farms without a cluster). The
 * file's per-host defaults (lcores, eal_args) are applied to its processes
 * at load time and not kept here. */
struct ff_host {
    char name[FF_NAME_MAX];
    enum ff_host_kind kind;
    char user[FF_NAME_MAX];      /* ssh: the login; "" leaves it to ssh */
    char address[FF_ADDR_MAX];   /* ssh: a hostname, or an IPv4 or IPv6 address (no brackets) */
    char netns[FF_NAME_MAX];     /* netns: the namespace */
};

/* What every process has. */
struct ff_proc {
    char name[FF_NAME_MAX];
    unsigned host;               /* index into spec->host */
    char control[FF_STR_MAX], metrics[FF_STR_MAX]; /* verbatim, "{run}" not substituted */
    char lcores[FF_STR_MAX];                       /* "auto" or an EAL --lcores value */
    uint32_t memory_mb;
    int no_huge;
    int telemetry;               /* DPDK telemetry socket; 0: EAL --no-telemetry */
    enum ff_idle idle;
    uint64_t cpus;               /* 0, or CPUs 0..63 its "auto" lcores float over (the
                                  * demo's --cpus, tools/farm/farm_place.h) */
    uint64_t start_cpus;         /* 0, or the CPUs it starts on: DPDK's control threads run
                                  * on those its lcores do not use (local launch only) */
    unsigned n_eal_args;
    char eal_args[FF_MAX_EAL_ARGS][FF_STR_MAX];
};

struct ff_readout {
    struct ff_proc p;
    struct ff_port port;
    uint8_t mac[6];
    unsigned n_sfcs;
    unsigned sfc[FF_MAX_SFCS];   /* indices into spec->sfc; event e goes to sfc[e % n_sfcs];
                                  * every readout lists the same, in the same order */
};

struct ff_sfc {
    struct ff_proc p;
    uint16_t id;
    struct ff_port port;         /* the readout-facing port */
    uint8_t mac[6];
    uint32_t capacity, mbufs, max_credits;
    int accept_any_readout;      /* 1: no --readout-mac, fragments from any MAC */
    uint16_t workers;            /* data planes, an lcore each (--workers); 0 or 1: one.
                                  * Worker w > 0 has its own MAC (ff_worker_mac) toward the
                                  * readouts, and on a bare memif port its own links
                                  * (ff_worker_link); on any other port the workers share it */
};

struct ff_node {
    struct ff_proc p;
    unsigned sfc;                /* index into spec->sfc */
    struct ff_port port;         /* the node's own port */
    struct ff_port sfc_port;     /* the SFC's port toward this node */
    uint8_t mac[6], sfc_mac[6];
    uint16_t credits;
    uint16_t workers;            /* trigger workers (--workers); 0: none */
};

/* The nodes' trigger plug-in (docs/trigger.md): "" for the built-in
 * emulation (trigger_us, accept, accept_seed). */
#define FF_TRIGGER_PARAMS_MAX 16

struct ff_trigger {
    char plugin[FF_STR_MAX];     /* path of the .so as the nodes' hosts see it */
    unsigned n_params;
    char param[FF_TRIGGER_PARAMS_MAX][FF_STR_MAX];  /* "KEY=VALUE" */
    double timeout_ms;           /* --trigger-timeout-ms; 0: off */
};

/* The nodes' storage of accepted events (docs/storage.md): dir "" for none. */
struct ff_store {
    char dir[FF_STR_MAX];        /* --store: a directory on every node's host */
    uint32_t max_file_mb;        /* --store-max-file-mb */
    double max_file_s;           /* --store-max-file-s */
    char fsync[16];              /* --store-fsync: none, close or interval */
    uint32_t buffer_mb;          /* --store-buffer-mb */
    double max_mbs;              /* --store-max-mbs; 0: no limit */
};

struct ff_run {
    uint16_t sources;            /* of an event: readout i of R sends sources
                                  * i * sources / R .. (i + 1) * sources / R - 1 */
    uint64_t events;             /* 0: until stopped */
    double rate, duration_s;     /* events/s (0: as fast as the farm takes them); 0: no limit */
    uint32_t frag_min, frag_max; /* equal for a fixed size; the clamp of log-normal sizes */
    enum ff_frag_dist frag_dist;
    double frag_mean, frag_sigma;    /* log-normal only: mean and standard deviation, bytes */
    enum ff_payload payload;     /* auto (the default), prebuilt or per-event fragment bytes */
    enum ff_encap encap;
    uint16_t udp_port, mtu;
    uint64_t seed;
    double trigger_us, accept;
    uint64_t accept_seed;
    struct ff_trigger trigger;
    struct ff_store store;
    double timeout_ms;
    uint32_t max_event;          /* every SFC's and node's --max-event; 0: not given
                                  * (16 MiB, or what an SFC's mbufs hold) */
    double metrics_period_ms;    /* from defaults.metrics_period_ms */
    /* The readouts' fault injection (readout/ro_fault.h). */
    char faults[FF_STR_MAX];     /* frame fault spec, "" for none ("none" in the file) */
    uint64_t fault_seed;
    uint32_t silence_source;     /* FF_NO_SILENCE, or a source that sends nothing ... */
    uint64_t silence_event;      /*   from this event id on */
    uint32_t burst_events;       /* 0, or events sent back to back (not with a rate) ... */
    uint32_t burst_gap_us;       /*   then a pause this long */
    uint32_t replay_mb;          /* failover: each readout's replay buffer, MiB, and the
                                  * SFCs' release frames (docs/protocol.md 13); 0: off */
    uint32_t sfc_dead_ms;        /* failover: the readouts' detection bound and the SFCs'
                                  * fence (13.4), --sfc-dead-ms of both; 0: not given (100) */
};

/* The `sim:` section: read by `ebfarm sim` alone (sim/sim_conf.h parses
 * and checks the values, docs/scale.md lists them); every other command
 * ignores it. Kept as written, "" for a key not given. */
#define FF_SIM_KEYS(X)                                                          \
    X(sources) X(sfcs) X(nodes_per_sfc) X(rate_hz) X(arrivals) X(frag_bytes)    \
    X(mtu) X(link_gbps) X(link_latency_us) X(switch_buffer_kb) X(ro_spread_us)  \
    X(ro_frame_ns)                                                              \
    X(sfc_frame_ns) X(sfc_event_ns) X(trigger) X(trigger_us) X(trigger_sigma)   \
    X(accept) X(credits) X(capacity) X(timeout_ms) X(node_timeout_ms)           \
    X(sfc_timeout_ms) X(throttle_on) X(throttle_off) X(seed) X(duration_s)      \
    X(drain_s) X(failover) X(release_ms) X(sfc_dead_ms) X(replay_mb) X(replay_gap_us)   \
    X(replay_interleave) X(ack_port) X(rx_ring) X(idle_sleep_us) X(idle_extra_us)       \
    X(idle_spin_us) X(readouts) X(ro_skew_us) X(ro_release_lag_ms) X(release_loss)   \
    X(replay_lost_piece)
#define FF_SIM_MAX_FAULTS 16
#define FF_SIM_VAL_MAX 64

struct ff_sim {
    int present;                 /* the file has a sim: section */
#define FF_SIM_FIELD(k) char k[FF_SIM_VAL_MAX];
    FF_SIM_KEYS(FF_SIM_FIELD)
#undef FF_SIM_FIELD
    unsigned n_faults;
    char fault[FF_SIM_MAX_FAULTS][FF_SIM_VAL_MAX];  /* "KIND TARGET AT_S [FOR_S]" */
};

struct farm_spec {
    char name[FF_NAME_MAX];
    char keys[FF_STR_MAX];       /* the CURVE key directory (ebfarm keygen); "" for none */
    int insecure;                /* tcp:// endpoints without keys allowed */
    char file_sha256[65];        /* of the bytes loaded, lower-case hex; "" when built in code */
    struct ff_run run;
    unsigned n_hosts;            /* 1 or more: a file without hosts has FF_LOCALHOST */
    struct ff_host host[FF_MAX_HOSTS];
    unsigned n_readouts, n_sfcs, n_nodes;
    struct ff_readout readout[FF_MAX_READOUTS];
    struct ff_sfc sfc[FF_MAX_SFCS];
    struct ff_node node[FF_MAX_NODES];
    struct ff_sim sim;
};

#endif /* FARMFILE_TYPES_H */
