/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_throttle.c - when the SFC asks its readouts to hold: hysteresis, refresh, the workers' shared want. */
#include "sfc_throttle.h"

#include <string.h>

void sfc_throttle_init(struct sfc_throttle *t, const struct sfc_throttle_conf *c)
{
    double on = c->on > 0 ? c->on : 0.75;
    double off = c->off > 0 ? c->off : 0.5;

    if (off > on)
        off = on;
    memset(t, 0, sizeof(*t));
    t->on_events = (uint32_t)(on * c->capacity);
    t->off_events = (uint32_t)(off * c->capacity);
    t->on_records = (uint32_t)(on * c->max_frames);
    t->off_records = (uint32_t)(off * c->max_frames);
    t->capacity = c->capacity;
    t->max_frames = c->max_frames;
    t->refresh_tsc = c->refresh_tsc;
    t->worker = c->worker;
    t->quiet = c->quiet;
    t->share = c->share;
}

/* The throttle the readouts hear: this data plane's want, or with workers
 * on while any worker wants it (each publishes its own). */
static int heard(struct sfc_throttle *t, int want)
{
    struct sfc_share *s = t->share;

    if (!s)
        return want;
    __atomic_store_n(&s->want[t->worker], (uint8_t)want, __ATOMIC_RELAXED);
    for (uint16_t i = 0; i < s->n; i++)
        if (__atomic_load_n(&s->want[i], __ATOMIC_RELAXED))
            return 1;
    return 0;
}

unsigned sfc_throttle_poll(struct sfc_throttle *t, uint32_t held, uint32_t recs, uint64_t now,
                           struct sfc_throttle_step *s)
{
    if (!t->want && (held >= t->on_events || recs >= t->on_records))
        t->want = 1;
    else if (t->want && held <= t->off_events && recs <= t->off_records)
        t->want = 0;
    int on = heard(t, t->want);
    memset(s, 0, sizeof(*s));
    if (on != t->on) {
        t->on = on;
        s->turned_on = (uint8_t)(on && t->worker == 0);
        s->turned_off = (uint8_t)(!on && t->worker == 0);
    } else if (!on || now - t->sent_tsc < t->refresh_tsc) {
        return 0;
    }
    t->sent_tsc = now;
    if (t->quiet)
        return 1;               /* a shared readout port: worker 0 sends for all */
    /* The fill, per mille, for the frame only: the divisions are paid
     * when a frame goes out, not on every pass. */
    uint32_t f1 = (uint32_t)((uint64_t)held * 1000 / t->capacity);
    uint32_t f2 = (uint32_t)((uint64_t)recs * 1000 / t->max_frames);
    s->send = 1;
    s->on = (uint8_t)on;
    s->fill = (uint16_t)(f1 > f2 ? f1 : f2);
    s->seq = t->share ? __atomic_fetch_add(&t->share->throttle_seq, 1, __ATOMIC_RELAXED)
                      : t->seq++;
    return 1;
}
