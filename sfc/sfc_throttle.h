/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_throttle.h - when the SFC asks its readouts to hold: hysteresis on the table's fill, the refresh, the workers' shared want; no DPDK. */
#ifndef SFC_THROTTLE_H
#define SFC_THROTTLE_H

#include <stdint.h>

#define SFC_WORKERS_MAX 16       /* data planes of one SFC, an lcore each (--workers) */

/* What the W data planes of one SFC share, explicitly: the throttle the
 * readouts hear is on while any of them wants it, numbered by one
 * sequence. Each worker writes only its own want. */
struct sfc_share {
    uint8_t want[SFC_WORKERS_MAX];
    uint32_t throttle_seq;       /* atomic: the next throttle frame's number */
    uint16_t n;                  /* workers */
};

struct sfc_throttle_conf {
    double on, off;              /* fills that turn it on and off (<= 0: 0.75, 0.5) */
    uint32_t capacity;           /* events the table holds */
    uint32_t max_frames;         /* frame records */
    uint64_t refresh_tsc;        /* "on" repeated this often */
    uint16_t worker;             /* this data plane's place: worker 0 counts the turns */
    uint8_t quiet;               /* another worker sends the frames (a shared readout port) */
    struct sfc_share *share;     /* NULL: a data plane alone */
};

/* One data plane's throttle; one lcore only (the share's wants atomic). */
struct sfc_throttle {
    uint32_t on_events, off_events, on_records, off_records;
    uint32_t capacity, max_frames;
    int want;                    /* this data plane's own fill asks for it */
    int on;                      /* the readouts are asked to hold (with workers: by any) */
    uint32_t seq;                /* the next frame's number, alone */
    uint64_t sent_tsc, refresh_tsc;
    uint16_t worker;
    uint8_t quiet;
    struct sfc_share *share;
};

/* What one look at the fill decided. */
struct sfc_throttle_step {
    uint8_t send;                /* send frames now (on or off), numbered seq */
    uint8_t on;
    uint16_t fill;               /* per mille, the higher of events and records */
    uint32_t seq;
    uint8_t turned_on, turned_off;      /* transitions to count (worker 0 only) */
};

/* The thresholds: on at conf->on of the table or the records, off at
 * conf->off (at most conf->on) of both. */
void sfc_throttle_init(struct sfc_throttle *t, const struct sfc_throttle_conf *c);

/*
 * Hysteresis on the fill: held events (building, ready, unacked) against
 * the table, records in use against all records. Wanted when either
 * reaches the "on" threshold, no longer when both are at or below the
 * "off" one; with workers, on while any worker wants it. On a change, and
 * while on every refresh_tsc, s says what to send. Returns 1 then (the
 * work done), else 0 (s all zero).
 */
unsigned sfc_throttle_poll(struct sfc_throttle *t, uint32_t held, uint32_t recs, uint64_t now,
                           struct sfc_throttle_step *s);

static inline int sfc_throttle_is_on(const struct sfc_throttle *t)
{
    return t->on;
}

#endif /* SFC_THROTTLE_H */
