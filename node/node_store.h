/* SPDX-License-Identifier: BSD-3-Clause */
/* node_store.h - the node's storage of accepted events: records packed into blocks on the lcore, written to files by a writer thread (docs/storage.md). */
#ifndef NODE_STORE_H
#define NODE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_store_fmt.h"
#include "ebfarm/trigger.h"
#include "node_store_stats.h"

enum node_fsync {
    NODE_FSYNC_NONE,             /* never: the page cache decides */
    NODE_FSYNC_CLOSE,            /* each file when it is closed */
    NODE_FSYNC_INTERVAL,         /* every second, and at close */
};

#define NODE_STORE_DIR_LEN 256

/* The storage parameters of a node (a part of struct node_conf). */
struct node_store_conf {
    char dir[NODE_STORE_DIR_LEN];    /* "": storage off */
    uint32_t max_file_mb;        /* a file is closed before it passes this (256) */
    double max_file_s;           /* ... or once it is this old; 0: no limit (300) */
    uint8_t fsync;               /* enum node_fsync */
    uint32_t buffer_mb;          /* all blocks: being filled, queued, being written (32);
                                  * max(8, buffer / 2 MiB) blocks, the largest record one */
    double max_mbs;              /* write at most this many MB/s; 0: no limit */
    uint32_t max_record;         /* blocks hold a record this large (at least 4
                                  * blocks, past buffer_mb if need be); 0: none */
    uint16_t sfc;                /* the node's SFC's id (--sfc-id), in the file names */
};

/* What the file names and headers carry. */
struct node_store_id {
    uint32_t run;
    uint16_t sfc;                /* nodes of different SFCs share ids: the SFC tells them apart */
    uint16_t node;
    char farm[EBF_STORE_FARM_LEN + 1];
};

/* Results of node_store_put. */
enum node_store_put {
    NODE_STORE_OK,               /* in a block: it will be written */
    NODE_STORE_AGAIN,            /* no free block: the writer is behind; try again later */
    NODE_STORE_LOST,             /* will never be stored: counted under its reason */
};

struct node_store;

/* CLOCK_MONOTONIC in ns (node_store_tick's clock). */
uint64_t node_store_mono_ns(void);

/* "none", "close", "interval" into *f: 0, or -EINVAL. */
int node_fsync_parse(const char *s, uint8_t *f);
const char *node_fsync_name(uint8_t f);

/* The file name of (run, sfc, node, stream, seq), without the directory:
 * "run000042-sfc01-node03-s0-000001.ebfev". */
void node_store_file_name(char *buf, size_t len, const struct node_store_id *id, uint16_t stream,
                          uint32_t seq);

/*
 * Start storage into c->dir for run id (blocks allocated, the writer
 * thread started; files are opened when their first block is written).
 * NULL with errno set and err saying why. Main or lcore, at a run's start.
 */
struct node_store *node_store_create(const struct node_store_conf *c,
                                     const struct node_store_id *id, char *err, size_t len);

/* Stop the writer (what is queued is written first) and free everything. */
void node_store_destroy(struct node_store *s);

/*
 * Lcore: copy the event (h: id, flags, n_sources, present; frags: n_sources
 * entries, pieces in order) into the block of stream. No syscall, no
 * allocation: the record goes into a block the writer gave back. AGAIN
 * when that block is full and no other is free; LOST when the stream is
 * out of range, the record larger than a block, or the writer failed.
 */
enum node_store_put node_store_put(struct node_store *s, uint16_t stream,
                                   const struct ebf_store_rec *h,
                                   const struct ebf_trigger_fragment *frags,
                                   const uint16_t *frag_flags);

/* Lcore: hand partly filled blocks older than age_ns to the writer
 * (now_ns: a monotonic clock). */
void node_store_tick(struct node_store *s, uint64_t now_ns, uint64_t age_ns);

/* Lcore: the run ends: hand every block to the writer, which writes them,
 * closes every file with its trailer and stops. Then node_store_done
 * tells when it has. */
void node_store_finish(struct node_store *s);
int node_store_done(const struct node_store *s);

/* 1 with why (may be NULL: "storage: write /d/f: No space left on device
 * (errno 28)") once the writer failed; 0 while it has not. Any thread. */
int node_store_failed(struct node_store *s, char *why, size_t len);

/* Copy the counters (the lcore's and the writer's) and gauges into out.
 * Lcore. */
void node_store_stats_read(struct node_store *s, struct node_store_stats *out);

#endif /* NODE_STORE_H */
