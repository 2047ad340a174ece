/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_fo.h - the soak's builder faults: an SFC killed and restarted, an SFC drained and undrained, the SFCs in turn. */
#ifndef SOAK_FO_H
#define SOAK_FO_H

#include <stddef.h>

#include "farm_restart.h"
#include "farm_types.h"
#include "soak_sample.h"

/* When the next of each fault is due and which SFC it takes. */
struct soak_fo {
    double kill_every_s, drain_every_s;  /* 0: never */
    double next_kill, next_drain;        /* seconds since the soak began */
    unsigned kill_sfc, drain_sfc;        /* the SFC the next one takes (in turn) */
    unsigned kills, drains;              /* done */
    uint64_t below[FF_MAX_SFCS];         /* each SFC's nodes' decisions below its marks at
                                          * its last restart (farm_restart_info.below) */
    int64_t decided;                     /* what the killed incarnations decided that
                                          * their last samples did not show (SOAK_FO_DECIDED) */
};

/* The sample count that carries soak_fo.decided into the intervals. */
#define SOAK_FO_DECIDED "fo.decided"

/* Set f up for the two periods (the first of each is due one period in). */
void soak_fo_init(struct soak_fo *f, double kill_every_s, double drain_every_s);

#define SOAK_FO_REPLAY_MB 64u    /* failover's buffer when the farm file gives none */

/*
 * Whether spec can take the faults f asks for: at least two SFCs, and
 * failover on: a farm file without run.replay_mb gets SOAK_FO_REPLAY_MB
 * (said on stderr), as ebfarm demo does when it kills an SFC. 0, or -1
 * with err naming the option and what is missing.
 */
int soak_fo_check(const struct soak_fo *f, struct farm_spec *spec, char *err, size_t len);

/*
 * The faults due at t (seconds since the soak began) on st (brought up
 * from spec, daemons in build): an SFC restarted (farm_restart: frozen,
 * killed once every readout declared it dead, started again and joined),
 * an SFC drained then undrained (farm_drain, which calls idle while it
 * waits: the soak samples through a drain). Each failure is said on
 * stderr; the soak goes on. Returns the number of SFC restarts done now:
 * the soak takes no sample while it restarts one.
 *
 * A killed SFC's acks after the soak's last sample of it are gone with it,
 * and its incarnation's decisions are its nodes' (docs/protocol.md 13.6):
 * f->decided gains its nodes' decisions below the mark since its last
 * restart less the acks acc last sampled from it (acc->p[i] is st->proc[i]'s).
 */
unsigned soak_fo_faults(struct soak_fo *f, struct farm_state *st, const struct farm_spec *spec,
                        const char *build, double t, const struct soak_acc *acc,
                        const struct farm_idle *idle);

#endif /* SOAK_FO_H */
