/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_modes.c - run the chosen RFC 2544 mode over every frame size, through the DPDK runner or the kernel reference. */
#include "lb_modes.h"

#include <stdio.h>
#include <string.h>

#include "lb_kernel.h"
#include "lb_rate.h"
#include "lb_search.h"

static const unsigned default_sizes[] = {64, 128, 256, 512, 1024, 1280, 1518, 9000};

/* One search of the mode on one path; fills the size's result. */
static int run_mode(const struct lb_opts *o, lb_trial_fn fn, void *ctx, int *last_trial,
                    double max_fps, struct lb_size_result *s, struct lb_search_result *res,
                    int *lat_trial, int kernel)
{
    struct lb_search_conf c = {.max_fps = max_fps, .resolution_fps = max_fps * o->resolution_pct / 100,
                               .loss_ratio = o->loss_ratio, .max_trials = o->max_trials};
    int rc;
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
        return lb_search_b2b(&c, max, max / 1000 + 1, fn, ctx, res);
    }
    rc = lb_search_throughput(&c, fn, ctx, res);
    if (rc || !res->found)
        return rc;
    if (!strcmp(o->mode, "latency")) {
        struct lb_trial_req req = {.fps = res->fps};
        struct lb_trial_out out;
        rc = fn(ctx, &req, &out);
        *lat_trial = *last_trial;
        return rc;
    }
    return 0;
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

/* Frame sizes: the ones asked for, or the defaults the MTUs allow. */
static void pick_sizes(const struct lb_opts *o, struct lb_report *r, unsigned max_frame)
{
    if (o->n_sizes) {
        for (unsigned i = 0; i < o->n_sizes; i++)
            r->size[r->n_sizes++].frame_size = o->sizes[i];
        return;
    }
    for (unsigned i = 0; i < sizeof(default_sizes) / sizeof(default_sizes[0]); i++)
        if (default_sizes[i] <= max_frame)
            r->size[r->n_sizes++].frame_size = default_sizes[i];
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
        .stop = stop, .mode = o->mode, .report = r,
    };
    int rc = lb_kernel_open(&k, o->tx_netns, o->rx_netns);
    for (unsigned i = 0; rc == 0 && i < r->n_sizes; i++) {
        struct lb_size_result *s = &r->size[i];
        k.frame_size = s->frame_size;
        if (!o->quiet)
            fprintf(stderr, "loopback: kernel reference, %u-byte frames\n", s->frame_size);
        rc = run_mode(o, lb_kernel_trial, &k, &k.last_trial, max_rate(o, r, s->frame_size), s,
                      &s->kernel, &s->kernel_lat_trial, 1);
        if (rc == 0 && s->kernel_lat_trial < 0 && s->kernel.found)
            s->kernel_lat_trial = trial_at_rate(r, "kernel", s->frame_size, s->kernel.fps);
    }
    lb_kernel_close(&k);
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
        rc = run_mode(o, lb_run_trial, run, &run->last_trial, max_rate(o, r, s->frame_size), s,
                      &s->tput, &s->lat_trial, 0);
        if (rc == 0 && s->lat_trial < 0 && s->tput.found && strcmp(o->mode, "back-to-back"))
            s->lat_trial = trial_at_rate(r, "dpdk", s->frame_size, s->tput.fps);
    }
    return rc;
}
