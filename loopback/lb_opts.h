/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_opts.h - ebfarm-loopback's options: parsed before EAL starts, so that main() can build EAL's arguments. */
#ifndef LB_OPTS_H
#define LB_OPTS_H

#include <stdint.h>

#include "ebf_idle.h"
#include "lb_rate.h"
#include "lb_report.h"

/* The --goal-* lists: loss, exceed, duration, duration-sum, width. */
#define LB_GOAL_FIELDS 5

enum lb_role { LB_ROLE_BOTH, LB_ROLE_TX, LB_ROLE_RX };

struct lb_opts {
    const char *tx, *rx;                 /* port specs */
    const char *tx_netns, *rx_netns;
    /* The --goal-* lists: loss, exceed, duration, duration-sum, width. */
#define LB_GOAL_FIELDS 5

enum lb_role role;
    const char *control;
    const char *mode;
    unsigned sizes[LB_MAX_SIZES];
    unsigned n_sizes;                    /* 0: the defaults the MTU allows */
    int have_rate;
    struct lb_rate rate;                 /* the highest rate tried */
    double trial_s, resolution_pct, loss_ratio, tolerance, drain_ms;
    double probe_margin;                 /* --probe-margin (lb_mlr_probe) */
    unsigned max_trials;
    int poisson;
    uint64_t seed;
    unsigned burst, streams;
    double hold_us;                      /* --tx-hold */
    unsigned retries;                    /* --retries */
    unsigned queues;                     /* --queues: TX and RX queues and lcores (1) */
    int trials_stdin;                    /* --trials-stdin (lb_modes_serve) */
    int max_trials_set;                  /* --max-trials given */
    enum ebf_idle_mode idle;
    int idle_auto;                       /* --idle auto: backoff unless lcores are named */
    int check_crc;
    int json, quiet, loss_all;
    const char *csv, *plot;
    int compare_kernel;
    uint32_t kernel_dst;
    unsigned kernel_port;
    const char *eal;
    unsigned mem_mb;
    int huge;
    unsigned link_timeout_ms;
    uint64_t b2b_max;
    int mlr;                             /* --search mlr (else binary, RFC 2544) */
    unsigned repeat;                     /* --repeat: RFC 2544 repetitions (1) */
    unsigned n_goals;                    /* --search mlr: goals built from the lists */
    struct lb_mlr_goal goal[LB_MLR_MAX_GOALS];
    unsigned goal_n[LB_GOAL_FIELDS];     /* values given per --goal-* list */
    double goal_v[LB_GOAL_FIELDS][LB_MLR_MAX_GOALS];
};

void lb_opts_default(struct lb_opts *o);

/* Parse argv; returns 0, 1 after --help, or -EINVAL after a message naming
 * the option and the value. */
int lb_opts_parse(int argc, char **argv, struct lb_opts *o);

/* Whether --eal names the lcores (-l, --lcores): cores set aside for the
 * run, rather than lcores floating over every CPU of a shared machine. */
int lb_opts_own_lcores(const struct lb_opts *o);

/* --queues, at least 1. */
static inline unsigned n_queues(const struct lb_opts *o)
{
    return o->queues > 1 ? o->queues : 1;
}

/* Whether a port spec is a PCI address (else a vdev string). */
int lb_is_pci(const char *spec);

#endif /* LB_OPTS_H */
