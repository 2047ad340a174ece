/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_port.h - a link or an output-queued switch port: rate, latency, a finite buffer, drops. */
#ifndef SIM_PORT_H
#define SIM_PORT_H

#include <stdint.h>

/*
 * A port serialises frames first in, first out at rate_bps and delivers
 * each latency_ps after its last bit left. A frame holds buffer space from
 * its arrival until its last bit has left; a frame that does not fit in
 * what is left of `buffer` bytes is dropped and counted (tail drop). A
 * port with buffer 0 is a link that never drops (a NIC's own queue).
 * Times are ps of virtual time; a port must be offered frames in order of
 * time (the event queue does that). Single-threaded.
 */

struct sim_port_q {              /* a frame in the buffer */
    uint64_t done;               /* its last bit leaves */
    uint32_t len;
};

struct sim_port {
    uint64_t rate_bps;
    uint64_t latency_ps;
    uint32_t buffer;             /* bytes; 0: unbounded */
    uint32_t occ;                /* bytes held now */
    uint64_t busy_until;         /* the last queued frame's last bit leaves */
    struct sim_port_q *q;        /* ring of frames held (bounded ports only) */
    uint32_t head, n, cap;
    uint64_t frames, bytes;      /* taken */
    uint64_t drops, drop_bytes;  /* refused for lack of buffer */
    uint32_t peak_occ;           /* most bytes held at once */
};

/* A port; 0 or -ENOMEM. */
int sim_port_init(struct sim_port *p, uint64_t rate_bps, uint64_t latency_ps, uint32_t buffer);
void sim_port_fini(struct sim_port *p);

/* Serialisation time of len bytes at the port's rate, ps. */
static inline uint64_t sim_port_ser(const struct sim_port *p, uint32_t len)
{
    return (uint64_t)len * 8000000000000ull / p->rate_bps;
}

/*
 * A frame of len bytes arrives at time now. Returns 0 and sets *arrive to
 * when its last bit reaches the far end, or -ENOBUFS when it did not fit
 * (dropped, counted), or -ENOMEM when the ring could not grow (dropped,
 * counted too).
 */
int sim_port_send(struct sim_port *p, uint64_t now, uint32_t len, uint64_t *arrive);

#endif /* SIM_PORT_H */
