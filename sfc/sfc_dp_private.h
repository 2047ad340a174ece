/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp_private.h - the SFC data plane's state, shared by sfc_dp.c, sfc_dispatch.c and sfc_faults.c. */
#ifndef SFC_DP_PRIVATE_H
#define SFC_DP_PRIVATE_H

#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "ebf_param.h"
#include "sfc_credit.h"
#include "sfc_dp.h"
#include "sfc_evtab.h"
#include "sfc_lat.h"

#define TXQ_SIZE 1024
/* An event is queued whole (with room for one more frame): the farm file,
 * the readout's options and configure keep events within this. */
_Static_assert(TXQ_SIZE - 1 >= EBF_EVENT_FRAMES_MAX, "an event of EBF_EVENT_FRAMES_MAX frames "
               "must fit the queue toward a node");
#define BURST_MAX 64
/* The periodic work's timer (node liveness, the throttle's refresh): 100 us. */
#define SFC_TICKS_PER_S 10000
/* A sequence number this far or farther from the one due is not a gap, a
 * reorder or a repeat: it is counted as a resynchronisation (seq.resync),
 * and the next number after it, if it comes next, re-bases the sequence. */
#define SFC_SEQ_WINDOW 65536u

/* Frames waiting for one port to take them. */
struct txq {
    uint16_t port;
    uint16_t queue;              /* the port's tx queue: the worker's on a shared port, else 0 */
    uint16_t n;
    uint16_t refused;            /* the first this many were refused (and counted) before */
    struct rte_mbuf *pkt[TXQ_SIZE];
};

/* Sequence state of one source: the next number due and which of the 64
 * numbers below it arrived (bit i: next - 1 - i); the number that would
 * confirm a jump beyond the window (valid when jumped). */
struct seq_state {
    uint32_t next;
    uint64_t seen;
    uint32_t jump_next;
    uint8_t jumped;
};

/* The readout MAC a source id is bound to: the first one heard for it. */
struct src_bind {
    uint8_t mac[6];
    uint8_t bound;
};

/* What the W data planes of one SFC share: the throttle the readouts
 * hear is on while any of them wants it, numbered by one sequence. Each
 * worker writes only its own want. */
struct sfc_share {
    uint8_t want[SFC_WORKERS_MAX];
    uint32_t throttle_seq;       /* atomic: the next throttle frame's number */
    uint16_t n;                  /* workers */
};

enum node_state { NODE_NEW = 0, NODE_ALIVE, NODE_DEAD };

struct node_live {
    uint64_t last_tsc;           /* last credit frame of the current epoch */
    uint32_t epoch;
    uint8_t state;               /* enum node_state */
    uint8_t was_dead;            /* declared dead once, or an earlier epoch was:
                                  * its acks of events it does not hold are late */
};

/* The hot fields first (what every pass reads), the 23 KB of statistics
 * last, so that the pointers and limits share the first cache lines. */
struct sfc_dp {
    struct sfc_evtab *tab;
    struct sfc_credit *credit;
    struct txq *txq;             /* one per distinct node port */
    uint16_t n_txq;
    int throttled;               /* the readouts are asked to hold (with workers: by any) */
    int throttle_want;           /* this data plane's own fill asks for it */
    uint64_t timeout_tsc;
    uint64_t next_tick, tick_tsc;        /* the periodic work's timer */
    double ns_per_tsc;
    uint32_t polls;
    uint8_t rx_mac[6];
    uint16_t node_txq[SFC_MAX_NODES];
    uint64_t txq_nodes[SFC_MAX_NODES];   /* per txq: bit i for node i on its port */
    struct sfc_lat_slot *lat;    /* per slot: the earliest transmit (sfc_lat.h) */
    uint64_t rx_now_ns;          /* CLOCK_REALTIME of the receive burst in hand */
    struct sfc_conf c;
    uint8_t node_port_mac[SFC_MAX_NODES][6];    /* our MAC on each node's port */
    int drain_phase;             /* 0 running, 1 quiet wait, 2 ack wait, 3 done */
    uint64_t drain_last_rx, drain_frames, drain_end;
    uint64_t ro_handed;          /* readout frames handed to other workers (sfc_dist.h) */
    /* faults: sequence gaps, throttling, node liveness */
    struct seq_state seq[EBF_MAX_SOURCES];
    struct src_bind bind[EBF_MAX_SOURCES];
    uint8_t ro_mac[SFC_MAX_READOUTS][6];
    uint16_t ro_port[SFC_MAX_READOUTS];     /* with several rx ports: where each readout was
                                             * last heard (UINT16_MAX: not yet) */
    uint16_t cur_rx;             /* the port of the frames being taken */
    uint64_t rx_heard[SFC_MAX_READOUTS];    /* with several rx ports: TSC of each one's
                                             * last frame (rx_port first) */
    uint64_t rx_any;             /* TSC of the last frame on any of them */
    uint64_t rx_quiet_tsc;       /* silent this long while others are not: polled
                                  * every 1024 passes only */
    uint16_t n_ro, last_ro;
    uint32_t throttle_seq;
    uint64_t throttle_sent_tsc, throttle_refresh_tsc;
    uint32_t on_events, off_events, on_records, off_records;
    uint64_t node_timeout_tsc;
    struct node_live live[SFC_MAX_NODES];
    uint16_t q_alive[SFC_MAX_NODES];   /* nodes not dead on each node port */
    uint32_t verify_left[EBF_MAX_SOURCES];  /* frames of each source until its next CRC check */
    struct sfc_stats st;
};

/* Whether this data plane serves node i (with workers, each serves the
 * nodes of its own node ports). */
static inline int sfc_serves(const struct sfc_dp *dp, uint16_t node)
{
    return !dp->c.node_mask || (dp->c.node_mask >> node & 1);
}

static inline uint64_t tsc_to_ns(const struct sfc_dp *dp, uint64_t tsc)
{
    return (uint64_t)((double)tsc * dp->ns_per_tsc);
}

/* sfc_dispatch.c, the node side: called by the poll loop in sfc_dp.c. */

/* Take the credit frames of every node port (acks, credits). Returns the
 * frames taken. */
unsigned sfc_poll_nodes(struct sfc_dp *dp, uint64_t now);

/* Send ready events to nodes with credit, as event frames queued on their
 * port's txq. Returns the events sent. */
unsigned sfc_dispatch(struct sfc_dp *dp, uint64_t now);

/* Hand each txq to its port; what a port refuses stays queued (counted).
 * Returns the frames sent. */
unsigned sfc_flush_tx(struct sfc_dp *dp);

/* sfc_faults.c: called by the poll loop in sfc_dp.c. */
void sfc_faults_init(struct sfc_dp *dp);

/* A fragment frame of source with sequence number seq was received. */
void sfc_seq_note(struct sfc_dp *dp, uint16_t source, uint32_t seq);

/* Remember a readout MAC (up to SFC_MAX_READOUTS). */
void sfc_readout_add(struct sfc_dp *dp, const uint8_t *mac);

/* A readout frame came from mac: remember it for throttle frames, unless
 * the readouts are configured (then throttle frames go to those only). */
static inline void sfc_readout_note(struct sfc_dp *dp, const uint8_t *mac)
{
    if (dp->c.n_readouts || (dp->n_ro && memcmp(dp->ro_mac[dp->last_ro], mac, 6) == 0))
        return;
    sfc_readout_add(dp, mac);
}

/* A valid fragment of event_id came from source: its highest id so far
 * (what the ledger names a dead readout's loss from). */
static inline void sfc_source_seen(struct sfc_dp *dp, uint16_t source, uint64_t event_id)
{
    if (event_id >= dp->st.next_by_source[source])
        dp->st.next_by_source[source] = event_id + 1;
}

/* With several readout ports: note that the readout mac is on port
 * dp->cur_rx, where its throttle frames go. */
void sfc_readout_port(struct sfc_dp *dp, const uint8_t *mac);

/* May a fragment of source from mac be taken? SFC_DROP_MAX when it may,
 * else the reason to drop it: foreign_source (not a configured readout),
 * source_spoofed (the source is bound to another MAC). The first MAC
 * heard for a source is bound to it for the run. */
enum sfc_drop sfc_source_check(struct sfc_dp *dp, uint16_t source, const uint8_t *mac);

/* Throttle on or off by the table's fill (hysteresis), refresh "on". */
unsigned sfc_throttle_poll(struct sfc_dp *dp, uint64_t now);

/* Declare nodes silent past node_timeout dead. Returns events requeued. */
unsigned sfc_nodes_check(struct sfc_dp *dp, uint64_t now);

/* What a credit frame from node with epoch means for its acks. */
enum sfc_heard {
    SFC_HEARD_OK,                /* a live node: acks and credits count */
    SFC_HEARD_LATE,              /* it was dead: its acks are late, credits count */
    SFC_HEARD_OLD_EPOCH,         /* an older incarnation: acks late, credits ignored */
};

enum sfc_heard sfc_node_heard(struct sfc_dp *dp, uint16_t node, uint32_t epoch, uint64_t now);

#endif /* SFC_DP_PRIVATE_H */
