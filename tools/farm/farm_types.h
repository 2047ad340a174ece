/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_types.h - the farm modules' shared types: processes as run, a run's settings and result. */
#ifndef FARM_TYPES_H
#define FARM_TYPES_H

#include <stdint.h>
#include <sys/types.h>

#include "ebf_kv.h"
#include "farmfile_types.h"

/*
 * Plain types only, no functions: every module of tools/farm (and the
 * ledger, the summary and the monitor above them) includes this header
 * instead of one another's, so their includes go one way.
 */

#define FARM_MAX_NODES 64
#define FARM_MAX_PROCS (FF_MAX_READOUTS + FF_MAX_SFCS + FF_MAX_NODES)

enum farm_role { FARM_SFC, FARM_NODE, FARM_READOUT };

/* How the processes of a host are started (docs/deployment.md, "Launch"):
 * on this machine as children of the tool; over ssh as plain processes
 * under a shell keeper; over ssh as transient systemd units. */
enum farm_launch { FARM_LAUNCH_LOCAL, FARM_LAUNCH_PLAIN, FARM_LAUNCH_UNIT };

/* A host of a farm that is up, as the launch reaches it. */
struct farm_host {
    char name[FF_NAME_MAX];
    enum ff_host_kind kind;
    enum farm_launch launch;
    char user[FF_NAME_MAX];      /* ssh login; "" leaves it to ssh (netns: root) */
    char address[FF_ADDR_MAX];   /* ssh: the file's; netns: given by farm_netns; local: "" */
    char netns[FF_NAME_MAX];     /* netns: the namespace */
};

struct farm_proc {
    char name[FF_NAME_MAX];
    char host[FF_NAME_MAX];      /* the farm file's host it runs on */
    enum farm_role role;
    pid_t pid;
    char prefix[96];             /* EAL --file-prefix */
    char control[FF_STR_MAX];    /* endpoints with {run} substituted */
    char metrics[FF_STR_MAX];
    int remote;                  /* on a host reached over ssh (an ssh or netns host) */
    pid_t kpid;                  /* remote plain process: its keeper's pid on that host */
    uint64_t start_cpus;         /* 0, or the CPUs it is started on (ff_proc.start_cpus) */
};

/* What `ebfarm up` leaves in <run_dir>/farm.state for the later commands. */
struct farm_state {
    char name[FF_NAME_MAX];
    char run_dir[512];
    char farm_file[512];         /* the file it was brought up from */
    uint32_t run_number;         /* the last run started */
    int64_t run_start_ms;        /* its start, UTC ms since the epoch; 0 before one */
    char farm_file_sha256[65];   /* of the farm file as it was brought up */
    char keys[256];              /* the farm's CURVE key directory; "" for none */
    int insecure;                /* its file allows tcp:// without keys */
    unsigned n;
    struct farm_proc proc[FARM_MAX_PROCS];
    unsigned n_hosts;
    struct farm_host host[FF_MAX_HOSTS];
    char ssh_dir[128];           /* ssh material of the run (farm_host.h); "" when no host
                                  * is remote */
    int netns;                   /* ssh_dir/plan made network namespaces (farm_netns.h) */
};

/* The demo's settings (ebfarm demo's options), and the summary's view of a run. */
struct farm_conf {
    const char *build_dir;       /* holds readout/ebfarm-readout, sfc/..., node/... */
    const char *farm_file;       /* the farm to shape; NULL: farms/demo.yaml */
    uint64_t events;
    uint16_t sources;
    uint16_t nodes;
    uint16_t readouts, sfcs;     /* the demo spreads events over sfcs SFCs, every readout
                                  * sending sources / readouts of each event (1, 1) */
    uint32_t frag_min, frag_max;
    double rate;                 /* events/s, 0: as fast as possible */
    int udp;                     /* UDP/IPv4 fragments instead of raw Ethernet */
    uint16_t mtu;                /* of every link (1500); frames of at most mtu + 18 B */
    double trigger_us;
    double accept;
    double timeout_ms;           /* SFC event timeout */
    uint32_t max_event;          /* every SFC's and node's --max-event; 0: not given */
    struct ff_trigger trigger;   /* the nodes' plug-in; plugin "": the emulation */
    struct ff_store store;       /* the nodes' storage; dir "": none */
    uint16_t credits;            /* per node */
    uint16_t workers;            /* per node: trigger workers */
    uint16_t sfc_workers;        /* per SFC: data planes (0 or 1: one) */
    int sfc_shared;              /* with sfc_workers: the workers share the SFC's one readout
                                  * link (one readout, one SFC) instead of a link each */
    int keep;                    /* keep the run directory (logs, stats) */
    int netns;                   /* every process on a network namespace of its own,
                                  * launched over ssh (farm_demo_netns.h) */
    double max_seconds;          /* give the readout at most this long */
    uint64_t kill_node_after;    /* SIGKILL node 0 once this many events were
                                  * generated; 0: never */
    double restart_after_ms;     /* then start it again this much later; 0: never */
    uint64_t kill_sfc_after;     /* kill the last SFC once this many events were
                                  * generated (farm_kill_sfc_after); 0: never */
    uint64_t freeze_sfc_after;   /* SIGSTOP the last SFC once this many events were
                                  * generated, SIGCONT it freeze_ms later; 0: never */
    double freeze_ms;
    uint64_t mute_sfc_after;     /* the last SFC sends no release frame for mute_ms once
                                  * this many events were generated (the SFC action
                                  * mute, a fault for tests); 0: never */
    double mute_ms;
    uint64_t stall_sfc_after;    /* the last SFC's loop stops for stall_sfc_ms once, in a
                                  * release round after its low and before its first
                                  * frame, once this many events were generated (the
                                  * SFC action stall, a fault for tests); 0: never */
    double stall_sfc_ms;
    uint64_t stall_nodes_after;  /* SIGSTOP every node once this many events were
                                  * generated, SIGCONT them stall_ms after the
                                  * readout is throttled; 0: never */
    double stall_ms;
    uint32_t replay_mb;          /* failover: each readout's replay buffer, MiB, and the
                                  * SFCs' release frames; 0: off */
    uint32_t sfc_dead_ms;        /* failover's detection bound, ms; 0: the default (100) */
    /* Fragment sizes: lognormal, or else fixed or uniform by frag_min/frag_max. */
    enum ff_frag_dist frag_dist;
    double frag_mean, frag_sigma;    /* lognormal: bytes, clamped to [frag_min, frag_max] */
    enum ff_payload payload;     /* the readouts' fragment bytes: auto, prebuilt, per-event */
    /* The readout's fault injection (readout/ro_fault.h). */
    uint64_t seed;               /* fragment sizes and fault decisions (1) */
    char faults[FF_STR_MAX];     /* frame fault spec, "" for none */
    uint32_t silence_source;     /* FF_NO_SILENCE, or a source silent ... */
    uint64_t silence_event;      /*   from this event id on */
    uint32_t burst_events;       /* 0, or events sent back to back ... */
    uint32_t burst_gap_us;       /*   then a pause this long */
    char cpus[FF_STR_MAX];       /* --cpus: CPU placement per process, "" none (farm_place.h) */
    char idle[FF_STR_MAX];       /* --idle: spin or backoff per process, "" the file's */
};

/* Which run a summary is of: the farm, the run number, when it started and
 * stopped, and the farm file it was brought up from. */
/* What status and every summary say of a farm whose file has insecure: true. */
#define FARM_INSECURE_NOTE \
    "INSECURE: tcp:// control and metrics without keys (insecure: true in the farm file)"

struct farm_run_id {
    char farm[FF_NAME_MAX];
    uint32_t run;                /* 0: not known */
    int64_t start_ms, stop_ms;   /* UTC ms since the epoch; 0: not known */
    char farm_file_sha256[65];   /* lower-case hex; "" when not known */
    int insecure;                /* its tcp:// endpoints ran without keys */
};

/* Every process's final counters after the staged stop (farm_collect.h). */
/* One node process of a run, by its instance name in the farm file. */
struct farm_node_result {
    char name[FF_NAME_MAX];
    int gone;                    /* it gave no final counters: killed or crashed */
    int apart;                   /* a readout of its SFC is on another host: its end-to-end
                                  * latency compares two hosts' clocks and is left out */
    struct ebf_kv kv;            /* its final counters; empty when gone */
};

/* One readout or SFC process of a run: its own final counters (the
 * summed ones are in farm_result.readout and .sfc). */
struct farm_part_result {
    char name[FF_NAME_MAX];
    int gone;                    /* it gave no final counters: killed or crashed */
    int place;                   /* an SFC: its place k in the readouts' sfcs (event e
                                  * goes to place e % n_places); -1: not known */
    uint16_t first_source, n_sources;   /* a readout: the sources it sends (0, 0: not known) */
    int apart;                   /* an SFC: a readout of it is on a host whose clock it does
                                  * not share: its build latency is left out */
    struct ebf_kv kv;            /* empty when gone */
};

struct farm_result {
    struct farm_run_id id;
    char run_dir[512];
    char error[512];             /* why the run failed, "" when it did not */
    struct ebf_kv readout;
    struct ebf_kv sfc;
    struct farm_node_result node[FARM_MAX_NODES];   /* in farm-file order */
    uint16_t n_nodes;            /* node processes that ran, gone ones included */
    unsigned nodes_silent;       /* of them, those that gave no final counters */
    char readout_gone[FF_NAME_MAX];  /* the first readout that gave no final counters
                                      * (killed or crashed); "" when every one did */
    unsigned readouts_gone;      /* how many readouts gave no final counters */
    unsigned n_placed;           /* the processes of the run and their hosts
                                  * (farm_result_hosts); 0: not known */
    struct farm_placed {
        char proc[FF_NAME_MAX], host[FF_NAME_MAX];
        enum farm_role role;
    } placed[FARM_MAX_PROCS];
    struct farm_part_result ro[FF_MAX_READOUTS];    /* each readout, in farm-file order */
    uint16_t n_ro;
    struct farm_part_result sfcs[FF_MAX_SFCS];      /* each SFC, in farm-file order */
    uint16_t n_sfcs;
    unsigned sfcs_gone;          /* SFCs that gave no final counters (killed) */
    uint16_t n_places;           /* SFCs events are spread over; 0: not known (no spec) */
    int node_place[FARM_MAX_NODES];  /* the place of each node's SFC; -1: not known */
    int interrupted;             /* the signal that stopped the run early (the
                                  * staged stop then ran), 0 when none */
    double wall_s;               /* first frame sent to last event acked */
};

#endif /* FARM_TYPES_H */
