/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_intake.c - a simulated SFC's back-pressure: the SFC's own sfc_throttle toward the readouts, and the intake pause that leaves frames in its receive ring. */
#include "sim_farm_private.h"

#include <errno.h>
#include <stdlib.h>

/*
 * The throttle is sfc_throttle (sfc/sfc_throttle.c, linked): hysteresis
 * on the events held and the frame records in use, on at throttle_on of
 * either, off at throttle_off of both; its frames only on a change (the
 * model's frames never drop, so the daemon's refresh is not needed). The
 * intake pause is sfc_dp.c's intake_allowed rule, restated (a static
 * function of the data plane, which needs DPDK): the SFC stops reading
 * its port while complete and unacked events fill 7/8 of the table, or
 * fewer free slots than a burst (at most a quarter of the table) or
 * fewer than 1/8 of the frame records are left; frames then wait in its
 * receive ring of rx_ring descriptors, and a frame that finds the ring
 * full is missed (the NIC's rx_missed), its event built incomplete.
 */

#define SIM_SFC_BURST 32         /* the SFC's --burst default (sfc/main.c) */

int sim_intake_init(struct sim_farm *f, uint32_t k, uint32_t max_frames)
{
    struct sim_sfc *s = &f->sfc[k];
    struct sfc_throttle_conf tc = {
        .on = f->c->throttle_on, .off = f->c->throttle_off, .capacity = f->c->capacity,
        .max_frames = max_frames, .refresh_tsc = UINT64_MAX,
    };

    sfc_throttle_init(&s->thr, &tc);
    s->max_frames = max_frames;
    if (f->c->rx_ring && !s->rxq) {
        s->rxq = calloc(f->c->rx_ring, sizeof(*s->rxq));
        if (!s->rxq)
            return -ENOMEM;
    }
    return 0;
}

void sim_intake_fini(struct sim_farm *f, uint32_t k)
{
    free(f->sfc[k].rxq);
}

/* Whether SFC k reads its port now (sfc_dp.c's intake_allowed). */
int sim_intake_allowed(const struct sim_farm *f, uint32_t k)
{
    const struct sim_sfc *s = &f->sfc[k];
    uint32_t cap = f->c->capacity;
    uint32_t burst = SIM_SFC_BURST < cap / 4 ? SIM_SFC_BURST : cap / 4;
    struct sfc_evtab_counts n;

    if (!f->c->rx_ring)
        return 1;
    sfc_evtab_counts(s->tab, &n);
    return !(n.ready + n.sent >= cap - cap / 8 || n.free_slots < burst ||
             n.free_records < s->max_frames / 8);
}

/* A piece SFC k does not read now: into its ring, or missed when full. */
void sim_intake_hold(struct sim_farm *f, uint32_t k, const struct sim_ev *ev)
{
    struct sim_sfc *s = &f->sfc[k];

    if (s->rxq_n == f->c->rx_ring) {
        f->r->rx_missed++;
        f->in_flight--;
        return;
    }
    if (s->rxq_n == 0)
        f->r->intake_pauses++;
    s->rxq[(s->rxq_head + s->rxq_n++) % f->c->rx_ring] = *ev;
    if (s->rxq_n > f->r->rx_ring_peak)
        f->r->rx_ring_peak = s->rxq_n;
}

/* The oldest piece in SFC k's ring into *ev when it reads again; 1, or 0. */
int sim_intake_next(struct sim_farm *f, uint32_t k, struct sim_ev *ev)
{
    struct sim_sfc *s = &f->sfc[k];

    if (!s->rxq_n || !sim_intake_allowed(f, k))
        return 0;
    *ev = s->rxq[s->rxq_head];
    s->rxq_head = (s->rxq_head + 1) % f->c->rx_ring;
    s->rxq_n--;
    return 1;
}

/* SFC k died or restarted: what its ring held is gone with it. */
void sim_intake_flush(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc *s = &f->sfc[k];

    f->r->dead_sfc_frames += s->rxq_n;
    f->in_flight -= s->rxq_n;
    s->rxq_n = s->rxq_head = 0;
}

/* SFC k's throttle after a change of its fill (sfc_throttle_poll): the
 * readouts hear a turn a link later. */
void sim_intake_throttle(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc *s = &f->sfc[k];
    struct sfc_evtab_counts n;
    struct sfc_throttle_step st;

    sfc_evtab_counts(s->tab, &n);
    uint32_t held = n.building + n.ready + n.sent;
    if (held > f->r->evtab_peak)
        f->r->evtab_peak = held;
    if (!sfc_throttle_poll(&s->thr, held, s->max_frames - n.free_records, f->now, &st))
        return;
    f->r->throttle_on += st.turned_on;
    sim_push(f, f->now + f->ack_delay, EV_THROTTLE, k, st.on, 0, 0);
}
