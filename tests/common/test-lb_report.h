/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_report.h - a small loopback report with known values, for the exact-output tests of its writers. */
#ifndef TEST_LB_REPORT_H
#define TEST_LB_REPORT_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lb_reason.h"
#include "lb_report.h"

/*
 * Two frame sizes of a throughput run on a 10 Gbit/s link: 64 B found
 * 1 Mfps (trial 0, with latency: 30 frames at 260 ns, 10 at 1040 ns), 1518 B
 * found nothing (trial 1 at 812743.8 fps, invalid, lost 5, no latency, a
 * loss burst without a time). The CPU model holds characters that JSON, CSV
 * and XML must escape. Free with lb_report_free().
 */
static inline void known_report(struct lb_report *r)
{
    struct lb_trial_rec t;

    memset(r, 0, sizeof(*r));
    struct lb_meta *m = &r->meta;
    snprintf(m->date, sizeof(m->date), "2026-01-02T03:04:05Z");
    snprintf(m->dpdk_version, sizeof(m->dpdk_version), "DPDK 22.11.1");
    snprintf(m->cpu_model, sizeof(m->cpu_model), "Test \"CPU\" \\ 2\tGHz <&>");
    m->cpu_mhz = 2600;
    m->tsc_hz = 2.6e9;
    snprintf(m->hostname, sizeof(m->hostname), "host1");
    snprintf(m->kernel, sizeof(m->kernel), "Linux 6.1");
    snprintf(m->tx_driver, sizeof(m->tx_driver), "net_ring");
    snprintf(m->rx_driver, sizeof(m->rx_driver), "net_memif");
    m->link_mbps = 10000;
    m->link_mtu = 1500;
    m->trial_s = 1;
    m->tolerance = 0.01;
    m->loss_ratio = 0;
    m->resolution_pct = 1;
    m->pacing = "constant";
    m->idle = "spin";
    m->tx_port = "net_ring0";
    m->rx_port = "net_ring1";
    m->mode = "throughput";
    m->tsc_read_ns = 12.5;
    m->compare_kernel = 0;
    m->burst = 32;
    m->tx_hold_us = 50;
    m->probe_margin = 0.05;
    r->n_sizes = 2;
    r->size[0] = (struct lb_size_result){.frame_size = 64, .tput = {1, 1e6, 3, 1}, .lat_trial = 0,
                                         .kernel_lat_trial = -1};
    r->size[1] = (struct lb_size_result){.frame_size = 1518, .tput = {0, 0, 2, 0}, .lat_trial = -1,
                                         .kernel_lat_trial = -1};
    memset(&t, 0, sizeof(t));
    t.path = "dpdk";
    t.mode = "throughput";
    t.frame_size = 64;
    t.requested_fps = 1e6;
    t.achieved_fps = 999000;
    t.valid = 1;
    t.duration_s = 1;
    t.intended_s = 1;
    t.sent = t.tx_accepted = t.rx = t.unique = 1000000;
    t.bursts = 0;
    t.lat = (struct lb_latency){1, 1000000, 100, 200, 300, 400, 500, 600, 700, 250.5};
    ebf_hist_init(&t.lat_hist);
    for (int i = 0; i < 30; i++)
        ebf_hist_add(&t.lat_hist, 260);
    for (int i = 0; i < 10; i++)
        ebf_hist_add(&t.lat_hist, 1040);
    t.ns_per_unit = 1;
    t.tx_lag_p99_ns = 50;
    t.tx_hold_p99_ns = 60;
    t.rx_loop_p99_ns = 70;
    ck_assert_int_eq(lb_report_add(r, &t), 0);
    memset(&t, 0, sizeof(t));
    t.path = "dpdk";
    t.mode = "throughput";
    t.frame_size = 1518;
    t.requested_fps = 812743.8;
    t.achieved_fps = 800000;
    t.valid = 0;
    t.invalid_reason = LB_INVALID_TX_PREEMPTED;
    t.stall_ms = 250.5;
    t.retried = 1;
    t.phase = "mlr g0 pre2";
    t.intended_s = 1;
    r->n_searches = 2;           /* trial 1 in the second search */
    t.duration_s = 1.02;
    t.sent = 812744;
    t.tx_accepted = 812740;
    t.tx_refused = 4;
    t.rx = 812741;
    t.unique = 812739;
    t.lost = 5;
    t.dup = 2;
    t.reordered = 1;
    t.late = 1;
    t.bursts = 2;
    t.max_burst = 3;
    t.foreign = 7;
    t.stale = 1;
    t.imissed = 1;
    t.unattributed = 0;
    t.ierrors = 1;
    t.oerrors = 2;
    t.loss_ratio = 5.0 / 812744;
    t.tx_lag_p99_ns = NAN;
    t.n_bursts_shown = 2;
    t.burst[0].first_seq = 10;
    t.burst[0].len = 3;
    t.burst[0].t_ms = 1.5;
    t.burst[1].first_seq = 400000;
    t.burst[1].len = 2;
    t.burst[1].t_ms = -1;
    ck_assert_int_eq(lb_report_add(r, &t), 1);
}

#endif /* TEST_LB_REPORT_H */
