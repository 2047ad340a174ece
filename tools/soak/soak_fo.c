/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_fo.c - the soak's builder faults: an SFC killed and restarted, an SFC drained and undrained, the SFCs in turn. */
#include "soak_fo.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "farm_restart.h"

#define DRAIN_WAIT_S 60.0        /* for a drain, then for its undrain */

void soak_fo_init(struct soak_fo *f, double kill_every_s, double drain_every_s)
{
    memset(f, 0, sizeof(*f));
    f->kill_every_s = kill_every_s;
    f->drain_every_s = drain_every_s;
    f->next_kill = kill_every_s;
    f->next_drain = drain_every_s;
}

int soak_fo_check(const struct soak_fo *f, struct farm_spec *spec, char *err, size_t len)
{
    const char *opt = f->kill_every_s > 0 ? "--kill-sfc-every" : "--drain-sfc-every";

    if (f->kill_every_s <= 0 && f->drain_every_s <= 0)
        return 0;
    if (spec->n_sfcs < 2) {
        snprintf(err, len, "%s needs a farm of two SFCs at least ('%s' has %u)", opt,
                 spec->name, spec->n_sfcs);
        return -1;
    }
    if (!spec->run.replay_mb) {
        spec->run.replay_mb = SOAK_FO_REPLAY_MB;
        fprintf(stderr, "ebfarm soak: %s turns failover on (run.replay_mb %u: farm '%s' has "
                "none)\n", opt, SOAK_FO_REPLAY_MB, spec->name);
    }
    return 0;
}

/* The acks acc last sampled from the process named name of st. */
static uint64_t sampled_acks(const struct farm_state *st, const struct soak_acc *acc,
                             const char *name)
{
    const struct farm_proc *p = farm_proc_named(st, name);
    unsigned i = p ? (unsigned)(p - st->proc) : FARM_MAX_PROCS;

    if (!acc || i >= acc->n)
        return 0;
    return soak_counts_get(&acc->p[i].last, "accepted") +
           soak_counts_get(&acc->p[i].last, "rejected");
}

/* SFC k restarted; 1 when done. */
static unsigned kill_one(struct soak_fo *f, struct farm_state *st, const struct farm_spec *spec,
                         const char *build, unsigned k, double t, const struct soak_acc *acc)
{
    uint64_t acked = sampled_acks(st, acc, spec->sfc[k].p.name);
    struct farm_restart_info info;
    char err[1024];

    if (farm_restart(st, spec, build, spec->sfc[k].p.name, &info, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm soak: SFC kill at %.0f s: %s\n", t, err);
        return 0;
    }
    if (info.marked && k < FF_MAX_SFCS) {
        f->decided += (int64_t)(info.below - f->below[k]) - (int64_t)acked;
        f->below[k] = info.below;
    }
    fprintf(stderr, "ebfarm soak: %s killed at %.0f s (every readout declared it dead %.2f s "
            "after its freeze) and restarted, rejoins at event %" PRIu64 " (%.1f s)\n",
            spec->sfc[k].p.name, t, info.dead_after_s, info.from_event, info.took_s);
    return 1;
}

/* SFC k drained, then undrained; 1 when both were done. */
static unsigned drain_one(const struct farm_state *st, const struct farm_spec *spec, unsigned k,
                          double t, const struct farm_idle *idle)
{
    const char *name = spec->sfc[k].p.name;
    struct farm_drain_info out, back;
    char err[1024];

    if (farm_drain(st, spec, name, 1, DRAIN_WAIT_S, idle, &out, err, sizeof(err)) != 0 ||
        farm_drain(st, spec, name, 0, DRAIN_WAIT_S, idle, &back, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm soak: SFC drain at %.0f s: %s\n", t, err);
        return 0;
    }
    fprintf(stderr, "ebfarm soak: %s drained at %.0f s from event %" PRIu64 " (%.1f s), back "
            "from event %" PRIu64 " (%.1f s)\n", name, t, out.at, out.took_s, back.at,
            back.took_s);
    return 1;
}

unsigned soak_fo_faults(struct soak_fo *f, struct farm_state *st, const struct farm_spec *spec,
                        const char *build, double t, const struct soak_acc *acc,
                        const struct farm_idle *idle)
{
    unsigned done = 0, n = spec->n_sfcs;

    if (f->kill_every_s > 0 && t >= f->next_kill && n) {
        unsigned k = kill_one(f, st, spec, build, f->kill_sfc++ % n, t, acc);
        f->kills += k;
        done += k;
        f->next_kill += f->kill_every_s;
    }
    if (f->drain_every_s > 0 && t >= f->next_drain && n) {
        f->drains += drain_one(st, spec, f->drain_sfc++ % n, t, idle);
        f->next_drain += f->drain_every_s;
    }
    return done;
}
