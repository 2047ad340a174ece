/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_modes.c - run the chosen RFC 2544 mode over every frame size, through the DPDK runner or the kernel reference. */
#include "lb_modes.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_kernel.h"
#include "lb_mlr.h"
#include "lb_rate.h"
#include "lb_search.h"

static const unsigned default_sizes[] = {64, 128, 256, 512, 1024, 1280, 1518, 9000};

static void search_started(void *arg)
{
    ((struct lb_report *)arg)->n_searches++;
}

/* --search mlr on path p: the sender probe (lb_mlr_probe: the max load
 * becomes the sender's reach when it cannot offer max_fps), then the goals'
 * conditional throughputs into s; goal 0's stands in res (found, fps) for
 * the table and the latency trial. */
static int run_mlr(const struct lb_opts *o, lb_trial_fn fn, void *ctx, double max_fps,
                   struct lb_report *r, struct lb_size_result *s, int p,
                   struct lb_search_result *res)
{
    struct lb_mlr_conf c = {.min_fps = fmax(1, floor(max_fps / 1000)), .max_fps = round(max_fps),
                            .n_goals = o->n_goals, .max_trials = o->max_trials};
    struct lb_mlr_result m;

    memcpy(c.goal, o->goal, sizeof(c.goal));
    r->n_searches++;
    int rc = lb_mlr_probe(&c, o->tolerance, o->probe_margin, fn, ctx, &s->mlr_probe[p]);
    if (rc)
        return rc;
    rc = lb_mlr_search(&c, fn, ctx, &m);
    s->mlr_ran[p] = 1;
    s->mlr_trials[p] = m.n_trials;
    s->mlr_invalid[p] = m.invalid;
    s->mlr_timed_out[p] = m.timed_out;
    memcpy(s->mlr[p], m.goal, sizeof(m.goal));
    *res = (struct lb_search_result){.found = m.goal[0].found, .fps = m.goal[0].conditional_fps,
                                     .trials = m.n_trials, .invalid = m.invalid};
    lb_mlr_free(&m);
    return rc;
}

/* --repeat N > 1 of a throughput or back-to-back search: the mean stands in
 * res, every figure in s->rep_values[p]. */
static int run_repeat(const struct lb_opts *o, const struct lb_search_conf *c,
                      enum lb_repeat_kind kind, uint64_t b2b_max, lb_trial_fn fn, void *ctx,
                      struct lb_size_result *s, int p, struct lb_search_result *res)
{
    free(s->rep_values[p]);
    s->rep_values[p] = calloc(o->repeat, sizeof(double));
    if (!s->rep_values[p])
        return -ENOMEM;
    int rc = lb_search_repeat(c, kind, o->repeat, b2b_max, b2b_max / 1000 + 1, fn, ctx,
                              s->rep_values[p], &s->rep[p]);
    if (kind != LB_REPEAT_LATENCY)
        *res = (struct lb_search_result){.found = s->rep[p].found > 0, .fps = s->rep[p].mean,
                                         .trials = s->rep[p].trials,
                                         .invalid = s->rep[p].invalid};
    return rc;
}

/* One search of the mode on one path (p: 0 dpdk, 1 kernel); fills the
 * size's result. */
static int run_mode(const struct lb_opts *o, lb_trial_fn fn, void *ctx, int *last_trial,
                    double max_fps, struct lb_report *r, struct lb_size_result *s, int p,
                    struct lb_search_result *res, int *lat_trial)
{
    struct lb_search_conf c = {.max_fps = max_fps, .resolution_fps = max_fps * o->resolution_pct / 100,
                               .loss_ratio = o->loss_ratio, .max_trials = o->max_trials,
                               .on_search = search_started, .on_search_arg = r};
    int rc, kernel = p == 1;
    *lat_trial = -1;
    if (!strcmp(o->mode, "loss") && !kernel) {
        rc = lb_search_loss(&c, o->loss_all, fn, ctx, s->loss);
        if (rc < 0)
            return rc;
        s->n_loss = rc;
        return 0;
    }
    if (!strcmp(o->mode, "back-to-back") && !kernel) {
        uint64_t max = o->b2b_max ? o->b2b_max : (uint64_t)(max_fps * o->trial_s);
        if (o->repeat > 1)
            return run_repeat(o, &c, LB_REPEAT_B2B, max, fn, ctx, s, p, res);
        return lb_search_b2b(&c, max, max / 1000 + 1, fn, ctx, res);
    }
    int lat = !strcmp(o->mode, "latency");
    if (o->mlr)
        rc = run_mlr(o, fn, ctx, max_fps, r, s, p, res);
    else if (o->repeat > 1 && !lat)
        rc = run_repeat(o, &c, LB_REPEAT_THROUGHPUT, 0, fn, ctx, s, p, res);
    else
        rc = lb_search_throughput(&c, fn, ctx, res);
    if (rc || !res->found || !lat)
        return rc;
    /* latency: one trial at the rate found, or --repeat of them */
    c.max_fps = o->mlr ? round(res->fps) : res->fps;
    rc = run_repeat(o, &c, LB_REPEAT_LATENCY, 0, fn, ctx, s, p, res);
    *lat_trial = *last_trial;
    return rc;
}

/* The trial at the found rate stands for the latency in throughput mode. */
static int trial_at_rate(const struct lb_report *r, const char *path, unsigned fs, double fps)
{
    for (int i = (int)r->n_trials - 1; i >= 0; i--)
        if (r->trial[i].frame_size == fs && !strcmp(r->trial[i].path, path) &&
            r->trial[i].requested_fps == fps)
            return i;
    return -1;
}

/* The load the search found on path p: MLRsearch's goal 0 lower bound (its
 * conditional throughput may lie below any load tried), else the rate. */
static double found_load(const struct lb_size_result *s, int p)
{
    if (s->mlr_ran[p])
        return s->mlr[p][0].lower_fps;
    return p ? s->kernel.fps : s->tput.fps;
}

/* Frame sizes: the ones asked for, or the defaults the MTUs allow. */
static void pick_sizes(const struct lb_opts *o, struct lb_report *r, unsigned max_frame)
{
    if (o->n_sizes) {
        for (unsigned i = 0; i < o->n_sizes; i++)
            r->size[r->n_sizes++].frame_size = o->sizes[i];
    } else {
        for (unsigned i = 0; i < sizeof(default_sizes) / sizeof(default_sizes[0]); i++)
            if (default_sizes[i] <= max_frame)
                r->size[r->n_sizes++].frame_size = default_sizes[i];
    }
    /* A size the run never reaches (interrupted) has no latency trial:
     * not trial 0 of another size. */
    for (unsigned i = 0; i < r->n_sizes; i++)
        r->size[i].lat_trial = r->size[i].kernel_lat_trial = -1;
}

static double max_rate(const struct lb_opts *o, const struct lb_report *r, unsigned fs)
{
    struct lb_rate all = {.value = 100, .unit = LB_UNIT_PCT};
    return lb_rate_fps(o->have_rate ? &o->rate : &all, fs, r->meta.link_mbps);
}

int lb_modes_kernel(const struct lb_opts *o, struct lb_report *r, const volatile int *stop)
{
    struct lb_kernel k = {
        .tx_fd = -1, .rx_fd = -1, .dst_ip = o->kernel_dst, .port = (uint16_t)o->kernel_port,
        .trial_s = o->trial_s, .tolerance = o->tolerance, .drain_s = o->drain_ms / 1e3,
        .poisson = o->poisson, .seed = o->seed, .live = o->quiet ? NULL : stderr,
        .stop = stop, .mode = o->mode, .report = r, .burst = o->burst,
        .hold_us = o->hold_us, .retries = o->retries,
    };
    int rc = lb_kernel_open(&k, o->tx_netns, o->rx_netns);
    for (unsigned i = 0; rc == 0 && i < r->n_sizes; i++) {
        struct lb_size_result *s = &r->size[i];
        k.frame_size = s->frame_size;
        if (!o->quiet)
            fprintf(stderr, "loopback: kernel reference, %u-byte frames\n", s->frame_size);
        rc = run_mode(o, lb_kernel_trial, &k, &k.last_trial, max_rate(o, r, s->frame_size), r, s,
                      1, &s->kernel, &s->kernel_lat_trial);
        if (rc == 0 && s->kernel_lat_trial < 0 && s->kernel.found)
            s->kernel_lat_trial = trial_at_rate(r, "kernel", s->frame_size, found_load(s, 1));
    }
    lb_kernel_close(&k);
    return rc;
}

int lb_modes_serve(const struct lb_opts *o, struct lb_runner *run, struct lb_report *r)
{
    char line[256];
    double fps, d;
    int rc = 0;

    run->frame_size = o->n_sizes ? o->sizes[0] : 64;
    r->size[r->n_sizes++].frame_size = run->frame_size;
    r->n_searches++;
    while (rc == 0 && fgets(line, sizeof(line), stdin)) {
        if (sscanf(line, "%lf %lf", &fps, &d) != 2 || !(fps > 0) || !(d > 0)) {
            fprintf(stderr, "loopback: --trials-stdin: \"%.*s\" is not LOAD_FPS DURATION_S\n",
                    (int)strcspn(line, "\n"), line);
            return -EINVAL;
        }
        struct lb_trial_req req = {.fps = fps, .duration_s = d, .phase = "served"};
        struct lb_trial_out out;
        rc = lb_run_trial(run, &req, &out);
        if (rc == 0)
            printf("%llu %llu %.17g %d\n", (unsigned long long)out.sent,
                   (unsigned long long)out.lost, out.achieved_fps, out.valid);
        fflush(stdout);
    }
    return rc;
}

int lb_modes_dpdk(const struct lb_opts *o, struct lb_runner *run, struct lb_report *r,
                  unsigned max_frame)
{
    int rc = 0;
    pick_sizes(o, r, max_frame);
    for (unsigned i = 0; rc == 0 && i < r->n_sizes; i++) {
        struct lb_size_result *s = &r->size[i];
        run->frame_size = s->frame_size;
        if (!o->quiet)
            fprintf(stderr, "loopback: %s, %u-byte frames, up to %.4f Mfps\n", o->mode,
                    s->frame_size, max_rate(o, r, s->frame_size) / 1e6);
        rc = run_mode(o, lb_run_trial, run, &run->last_trial, max_rate(o, r, s->frame_size), r, s,
                      0, &s->tput, &s->lat_trial);
        if (rc == 0 && s->lat_trial < 0 && s->tput.found && strcmp(o->mode, "back-to-back"))
            s->lat_trial = trial_at_rate(r, "dpdk", s->frame_size, found_load(s, 0));
    }
    return rc;
}
