/* SPDX-License-Identifier: BSD-3-Clause */
/* cap_rig.h - the in-process capacity rig: crossed net_ring ports, pre-built fragment frames, an emulated node. */
#ifndef CAP_RIG_H
#define CAP_RIG_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sfc_dp.h"
#include "sfc_workers.h"

#define CAP_NODES 2              /* emulated nodes per lane, both on the lane's node port */
#define CAP_LANES_MAX 16         /* SFC workers (--workers), a lane each */
/* Frames fed per round (at least one event): 4096 frames of 1 KiB are more
 * than this machine's L2, so that the SFC reads payload as a NIC's DMA
 * leaves it, from the last-level cache at best. */
#define CAP_BATCH_FRAMES 4096
/* --frames: the most frames a round may have. 65536 frames of 1 KiB (72
 * MiB with their mbufs) are more than any last-level cache these run on
 * (32 MiB on a Zen 4 CCD, 30-60 MiB on a Xeon), so that the payload comes
 * from DRAM. */
#define CAP_FRAMES_MAX 262144
#define CAP_SOURCES_MAX 128
#define CAP_FRAG_MAX 8000

/* A reference instead of the SFC (--io, --ref): each frame from the
 * readout port forwarded to the node port, in the same rig, over the same
 * frames in the same cache state. */
enum cap_ref {
    CAP_REF_NONE = 0,            /* the SFC */
    CAP_REF_IO,                  /* pointers only (--io, --ref io) */
    CAP_REF_HEADER,              /* its Ethernet and fragment headers parsed: the floor of
                                    --verify sampled and none (--ref header) */
    CAP_REF_CRC,                 /* the same and a plain CRC32C of the header and piece
                                    checked: the floor of --verify full (--ref crc) */
};

/* What one capacity run measures. */
struct cap_opts {
    int io;                      /* enum cap_ref: not 0, a reference instead of the SFC */
    unsigned frag_size;          /* fragment payload bytes per source */
    unsigned sources;
    double seconds;              /* measuring time (wall): --ms / 1000 */
    uint16_t mtu;                /* pieces of at most ebf_piece_max(mtu) */
    uint8_t verify;              /* the SFC's enum sfc_verify */
    uint32_t verify_every;
    unsigned workers;            /* SFC workers, each with a lane of its own (1) */
    int shared;                  /* 1: one readout port and one node port for all workers */
    unsigned batch_frames;       /* frames per round (CAP_BATCH_FRAMES; --frames) */
};

/* The pools every lane shares (as the SFC's workers share the daemon's). */
struct cap_pools {
    struct rte_mempool *pool, *hdr_pool, *clone_pool;
    unsigned mbufs;              /* in each */
};

/*
 * One lane of the rig (one per SFC worker): r_in feeds the worker's
 * readout port (harness -> SFC), r_void takes
 * what the SFC sends back on it (throttle frames), r_down carries event
 * frames to the emulated nodes, r_up their credit frames back. The frames of
 * one round are built once and reused: the rig holds a reference on each,
 * so that the SFC's free after the ack hands them back; between rounds only
 * the header (event id, sequence, CRC) is rewritten. A lane and its worker
 * run on one lcore; only the cycles inside the worker's poll (or the io
 * forward) count. Lane w sends event ids w, w + W, ... (those the readouts
 * send worker w of a W-worker SFC) to its 2 nodes, ids 2w and 2w + 1.
 *
 * Shared (o->shared, W > 1): one readout port and one node port for all
 * workers (sfc_dist.h). Every lane feeds the one input ring (its frames to
 * worker w's MAC: the port's + w in the fourth byte) and its nodes' credit
 * frames into the one credit ring; the node port's tx queue w is lane w's
 * r_down, so each lane still sees its own events; its nodes are ids w and
 * W + w (node i to worker i % W).
 */
struct cap_rig {
    struct cap_opts o;
    unsigned lane;
    struct rte_ring *r_in, *r_void, *r_down, *r_up;
    uint16_t sfc_rx, sfc_node;
    struct rte_mempool *pool, *hdr_pool, *clone_pool;
    struct rte_mempool *frame_pool; /* the lane's frames, exactly n_frames (cap_rig_feed) */
    int held;                    /* the rig holds frame[] (before a round is fed) */
    struct sfc_dp *dp;           /* the lane's worker (io: NULL) */
    uint8_t sfc_rx_mac[6], sfc_node_mac[6];
    uint32_t pieces;             /* frames per fragment */
    uint32_t per_event;          /* frames per event: sources x pieces */
    uint32_t batch_events;       /* events per round */
    uint32_t n_frames;           /* per_event x batch_events */
    struct rte_mbuf **frame;     /* the round's frames, in send order */
    uint64_t next_event;
    uint32_t seq[CAP_SOURCES_MAX];
    uint32_t credit_seq[CAP_NODES];
    uint64_t acked;              /* events acked by the emulated nodes */
    uint64_t node_frames;        /* frames that reached the node port */
    uint64_t fed_events, fed_frames;
};

/* The shared pools for o->workers lanes, after rte_eal_init. 0, or -1
 * with a message on stderr. */
int cap_pools_up(struct cap_pools *p, const struct cap_opts *o);

/* Set up lane's ports and frames. Returns 0, or -1 with a message on
 * stderr. */
int cap_rig_up(struct cap_rig *g, const struct cap_opts *o, unsigned lane,
               const struct cap_pools *p);

/* Unless o->io: the SFC of o->workers workers over the n lanes' ports
 * (sfc_workers.h: lane w's readout port is worker w's, its node port too),
 * each lane's dp its worker's, and the nodes' first credits. Returns the
 * workers, or NULL with a message on stderr. */
struct sfc_workers *cap_sfc_up(struct cap_rig *const *lanes, unsigned n,
                               const struct cap_pools *p);

/* Free the lane's frames (its worker is the SFC's: sfc_workers_destroy). */
void cap_rig_down(struct cap_rig *g);

/* Rewrite the round's frames as the next batch_events events and put them
 * on r_in. */
void cap_rig_feed(struct cap_rig *g);

/* The emulated nodes: take every frame at the node port, free it, ack each
 * complete event with one credit back (per node, one credit frame).
 * Returns the frames taken. */
unsigned cap_rig_nodes(struct cap_rig *g);

/* The reference's work on n frames of a burst (o->io): nothing, their
 * headers parsed, or those and their CRC checked, with the data of frames
 * two ahead prefetched as the SFC's intake does; a frame that fails is an
 * error (exit 1: the rig's frames are all valid). */
void cap_ref_pass(struct cap_rig *g, struct rte_mbuf **m, uint16_t n);

/* Whether the round is through: the SFC took the acks of every event fed
 * (and so let go of their frames), or with io every frame reached the node
 * port. Counters only: no walk over the frames between polls. */
int cap_rig_round_done(const struct cap_rig *g);

#endif /* CAP_RIG_H */
