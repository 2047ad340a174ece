/* SPDX-License-Identifier: BSD-3-Clause */
/* node_store_private.h - the storage's state, shared by the lcore side (node_store.c) and the writer thread (node_store_writer.c). */
#ifndef NODE_STORE_PRIVATE_H
#define NODE_STORE_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>

#include "node_store.h"

/* A block: records of one stream, back to back, written by one write(). */
struct node_blk {
    uint8_t *buf;
    uint32_t used;
    uint32_t n_rec;
    uint16_t stream;
    uint64_t since_ns;           /* its first record (monotonic) */
};

/* A ring of block pointers: one producer, one consumer. */
struct node_sring {
    _Atomic unsigned head;       /* producer */
    char pad[60];
    _Atomic unsigned tail;       /* consumer */
    unsigned cap;
    struct node_blk **slot;
};

int node_sring_push(struct node_sring *r, struct node_blk *b);
struct node_blk *node_sring_pop(struct node_sring *r);
unsigned node_sring_count(const struct node_sring *r);

/* A stream's open file (writer thread only). */
struct node_sfile {
    int fd;                      /* -1: none open */
    uint32_t seq;                /* the next file's number */
    uint64_t off;                /* bytes written */
    uint64_t opened_ns;          /* monotonic */
    char path[NODE_STORE_DIR_LEN + 64];
    struct ebf_store_idx *idx;   /* one per record */
    uint64_t n_idx, cap_idx;
};

/* Descriptors the storage holds in reserve from its creation (a run's
 * configure) on: when the process is out of descriptors (a flood of
 * connections on the control socket), one is closed to open a file, and
 * taken again when a file is closed. */
#define NODE_STORE_FD_RESERVE 4
#define NODE_STORE_SEQ_SKIP_MAX 100000  /* existing file numbers skipped at most (a restarted node's) */

struct node_store {
    struct node_store_conf c;
    struct node_store_id id;
    uint32_t blk_bytes;
    unsigned n_blk;
    uint64_t max_bytes;
    struct node_blk *blk;
    struct node_sring full;      /* lcore -> writer */
    struct node_sring free;      /* writer -> lcore */
    /* lcore only */
    struct node_blk *cur[NODE_STORE_STREAMS];
    struct node_store_stats l;   /* accepted, lost, waits */
    /* writer only */
    struct node_sfile file[NODE_STORE_STREAMS];
    int reserve[NODE_STORE_FD_RESERVE];  /* /dev/null, given up for a file at EMFILE */
    uint64_t synced_ns;
    uint64_t paced_ns;           /* max_mbs: when the bytes written so far are due */
    /* shared */
    pthread_t thread;
    _Atomic int stop, done, failed;
    pthread_mutex_t mu;          /* guards w and why */
    struct node_store_stats w;   /* events, bytes, files, blocks, lost, write_ns */
    char why[NODE_STORE_DIR_LEN + 160];
};

/* The writer thread's body (node_store_writer.c). */
void *node_store_writer(void *arg);

#endif /* NODE_STORE_PRIVATE_H */
