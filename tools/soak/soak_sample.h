/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_sample.h - a farm's totals at one moment of a soak, summed from every process's metrics snapshot. */
#ifndef SOAK_SAMPLE_H
#define SOAK_SAMPLE_H

#include <stdint.h>

#include "ebf_hist.h"
#include "ebfarm.pb-c.h"
#include "farm_types.h"

/*
 * A sample holds named counts (the farm's totals so far: "generated",
 * "lost.no_node", "reject.bad_checksum", "missing.3", ...), the merged
 * latency histograms and the levels (gauges) of the moment. Counts only
 * grow from one sample to the next: a process whose counters restarted
 * (a node killed and started again) keeps what its earlier incarnation
 * had counted as a base (struct soak_acc). No sockets, no DPDK: the unit
 * tests build samples from synthetic snapshots. One thread.
 */

#define SOAK_NAME_MAX 48
#define SOAK_MAX_COUNTS 160

struct soak_count {
    char name[SOAK_NAME_MAX];
    uint64_t v;
};

struct soak_counts {
    unsigned n;
    struct soak_count c[SOAK_MAX_COUNTS];
};

/* Add v to name (a new name is appended; beyond SOAK_MAX_COUNTS it is
 * dropped and -1 returned); 0 otherwise. */
int soak_counts_add(struct soak_counts *c, const char *name, uint64_t v);

/* The count of name, 0 when absent. */
uint64_t soak_counts_get(const struct soak_counts *c, const char *name);

/* Sum of every count whose name starts with prefix ("lost."). */
uint64_t soak_counts_sum(const struct soak_counts *c, const char *prefix);

/* The latency histograms of a sample, merged over the processes that have them. */
/* The last column: 1 for a time from the readout's transmit (its clock
 * against this process's), left out of a process whose readouts are on a
 * host that does not share its clock (soak_proc_in.apart). */
#define SOAK_FOREACH_HIST(X)                                                         \
    X(E2E, "e2e", "node", "e2e_ns", 1)        /* readout transmit -> decided */      \
    X(BUILD, "build", "sfc", "build_ns", 1)   /* readout transmit -> complete */     \
    X(BUILD_TIMEOUT, "build_timeout", "sfc", "build_timeout_ns", 1) /* -> timed out */ \
    X(DISPATCH, "dispatch", "sfc", "dispatch_ns", 0) /* ready -> sent to a node */   \
    X(ACK, "ack", "sfc", "ack_ns", 0)         /* sent -> acked */

enum soak_hist_id {
#define SOAK_H_ENUM(id, key, comp, metric, clocks) SOAK_H_##id,
    SOAK_FOREACH_HIST(SOAK_H_ENUM)
#undef SOAK_H_ENUM
    SOAK_H_MAX
};

/* "e2e", "build", ... */
const char *soak_hist_key(enum soak_hist_id h);

/* Memory of one process at the sample. */
struct soak_mem {
    char name[FF_NAME_MAX];
    int pid;                     /* 0: gone */
    uint64_t rss_kb;             /* VmRSS of /proc/PID/status; 0 when unknown */
    double mempool;              /* mbufs in use, every pool */
    uint64_t log_bytes;          /* its log files in the run directory (restarts included) */
};

struct soak_sample {
    double t;                    /* seconds since the soak began */
    struct soak_counts c;
    struct ebf_hist h[SOAK_H_MAX];
    /* Levels at the sample, summed over processes. */
    double credits, ready, building, unacked, mempool;
    unsigned nodes_alive;        /* node_alive 1 at the SFCs */
    /* Failover (on when a readout took a release frame): the largest
     * readout's replay buffer level (replay.held_bytes) and its slowest
     * readout's last time to recover (fo.recover_ns), seconds. */
    int fo_on;
    double replay_bytes, recover_s;
    unsigned n_mem;
    struct soak_mem mem[FARM_MAX_PROCS];
};

/* The failover counts of a sample (failover on): SFC deaths the readouts
 * declared (fo.deaths) and the failovers they recovered (fo.recoveries),
 * both summed over the readouts, the events they replayed
 * (replay.replayed), and the ids decided twice as known so far (the SFCs'
 * ledger.fence_acked and the nodes' ledger.acks_after_release records:
 * farm_fo_view.h's redecided_marked). */
#define SOAK_FO_DEATHS "fo.deaths"
#define SOAK_FO_RECOVERIES "fo.recoveries"
#define SOAK_FO_REPLAYED "fo.replayed"
#define SOAK_FO_REDECIDED "fo.redecided_marked"

/* What is kept per process between samples, to sum across its restarts. */
struct soak_acc_proc {
    struct soak_counts base, last;   /* earlier incarnations, and the newest seen */
    struct ebf_hist hbase[SOAK_H_MAX], hlast[SOAK_H_MAX];
    double epoch;                    /* the node's epoch gauge; -1 none */
    uint32_t run;
    int seen;
    unsigned restarts;               /* restarts noticed */
};

struct soak_acc {
    unsigned n;
    struct soak_acc_proc p[FARM_MAX_PROCS];
};

/* A process as the sampler sees it: its component and newest snapshot
 * (NULL: none yet), pid, RSS (from /proc on this machine; the snapshot's
 * own figure, EBF_METRIC_RSS_BYTES, when it has one) and whether its
 * readouts are on a host whose clock it does not share. */
struct soak_proc_in {
    const char *name, *component;
    const Ebfarm__Snapshot *snap;
    int pid;
    uint64_t rss_kb;
    uint64_t log_bytes;
    int apart;
    int placed, place;           /* placed: place is an SFC's place in the readouts' sfcs, or
                                  * a node's SFC's (farm_spec_place); else not known */
};

void soak_acc_init(struct soak_acc *a, unsigned n);

/*
 * The farm's sample at t from the n processes' newest snapshots. The counts
 * each process contributes (readout: generated, frames, throttle_held_ns,
 * lost.withheld; SFC: accepted, rejected, incomplete, lost.<reason>,
 * reject.<reason>, drop.<reason>, missing.<source>, sfc_frames,
 * redispatched, nodes_dead, rejoins; node: accepted, rejected (its own,
 * which stand in for a dead SFC's), node_events, verify.<check>,
 * node_reject.<reason>) are added to its base; when one of them went down,
 * or a node's epoch changed, the process restarted and its last counts join
 * its base first. A process without a snapshot contributes its base and
 * last counts. generated, accepted, rejected and lost.<reason> are the
 * farm's totals of those counts (acct.h: the furthest readout's
 * generated, the SFCs' acks, the first readout's withheld once; a process
 * never seen gave no counters). Returns 0, or -1 when a count did not fit
 * (SOAK_MAX_COUNTS).
 */
int soak_sample_take(struct soak_acc *a, const struct soak_proc_in *in, unsigned n, double t,
                     struct soak_sample *s);


#endif /* SOAK_SAMPLE_H */
