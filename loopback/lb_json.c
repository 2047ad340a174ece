/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_json.c - loopback results as JSON (schema ebfarm-loopback/1, docs/loopback.md) and CSV. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lb_rate.h"
#include "lb_report.h"

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A number, or null when it is not finite (JSON has no NaN). */
static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fprintf(f, "null");
}

static void jlat(FILE *f, const struct lb_latency *l)
{
    if (!l->valid) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{\"count\": %" PRIu64 ", \"min\": ", l->count);
    jnum(f, l->min);
    fprintf(f, ", \"p50\": "), jnum(f, l->p50);
    fprintf(f, ", \"p90\": "), jnum(f, l->p90);
    fprintf(f, ", \"p99\": "), jnum(f, l->p99);
    fprintf(f, ", \"p99_9\": "), jnum(f, l->p999);
    fprintf(f, ", \"p99_99\": "), jnum(f, l->p9999);
    fprintf(f, ", \"max\": "), jnum(f, l->max);
    fprintf(f, ", \"mean\": "), jnum(f, l->mean);
    fprintf(f, "}");
}

static void jmeta(FILE *f, const struct lb_meta *m)
{
    fprintf(f, "  \"meta\": {\n    \"date\": "), jstr(f, m->date);
    fprintf(f, ",\n    \"dpdk_version\": "), jstr(f, m->dpdk_version);
    fprintf(f, ",\n    \"cpu_model\": "), jstr(f, m->cpu_model);
    fprintf(f, ",\n    \"cpu_mhz\": "), jnum(f, m->cpu_mhz);
    fprintf(f, ",\n    \"tsc_hz\": "), jnum(f, m->tsc_hz);
    fprintf(f, ",\n    \"hostname\": "), jstr(f, m->hostname);
    fprintf(f, ",\n    \"kernel\": "), jstr(f, m->kernel);
    fprintf(f, ",\n    \"tx_port\": "), jstr(f, m->tx_port);
    fprintf(f, ",\n    \"rx_port\": "), jstr(f, m->rx_port);
    fprintf(f, ",\n    \"tx_driver\": "), jstr(f, m->tx_driver);
    fprintf(f, ",\n    \"rx_driver\": "), jstr(f, m->rx_driver);
    fprintf(f, ",\n    \"link_mbps\": "), jnum(f, m->link_mbps);
    fprintf(f, ",\n    \"link_mtu\": %u", m->link_mtu);
    fprintf(f, ",\n    \"mode\": "), jstr(f, m->mode);
    fprintf(f, ",\n    \"trial_s\": "), jnum(f, m->trial_s);
    fprintf(f, ",\n    \"tolerance\": "), jnum(f, m->tolerance);
    fprintf(f, ",\n    \"loss_ratio_allowed\": "), jnum(f, m->loss_ratio);
    fprintf(f, ",\n    \"resolution_pct\": "), jnum(f, m->resolution_pct);
    fprintf(f, ",\n    \"pacing\": "), jstr(f, m->pacing);
    fprintf(f, ",\n    \"idle\": "), jstr(f, m->idle);
    fprintf(f, ",\n    \"tsc_read_ns\": "), jnum(f, m->tsc_read_ns);
    fprintf(f, ",\n    \"compare_kernel\": %s\n  }", m->compare_kernel ? "true" : "false");
}

static void jsearch(FILE *f, const struct lb_report *r, unsigned fs,
                    const struct lb_search_result *x, int lat_i, int b2b)
{
    fprintf(f, "{\"found\": %s, \"trials\": %u, \"invalid_trials\": %u", x->found ? "true" : "false",
            x->trials, x->invalid);
    if (b2b) {
        fprintf(f, ", \"burst_frames\": %.0f", x->found ? x->fps : 0);
    } else {
        double fps = x->found ? x->fps : 0;
        fprintf(f, ", \"fps\": "), jnum(f, fps);
        fprintf(f, ", \"l1_bps\": "), jnum(f, lb_l1_bps(fps, fs));
        fprintf(f, ", \"l2_bps\": "), jnum(f, lb_l2_bps(fps, fs));
        fprintf(f, ", \"pct_line\": ");
        jnum(f, r->meta.link_mbps > 0 ? 100.0 * fps / lb_line_fps(r->meta.link_mbps, fs) : NAN);
    }
    fprintf(f, ", \"latency_ns\": ");
    if (lat_i >= 0 && (unsigned)lat_i < r->n_trials)
        jlat(f, &r->trial[lat_i].lat);
    else
        fprintf(f, "null");
    fprintf(f, "}");
}

static void jresult(FILE *f, const struct lb_report *r, const struct lb_size_result *s)
{
    int b2b = !strcmp(r->meta.mode, "back-to-back");
    fprintf(f, "    {\"frame_size\": %u, \"dpdk\": ", s->frame_size);
    jsearch(f, r, s->frame_size, &s->tput, s->lat_trial, b2b);
    if (r->meta.compare_kernel) {
        fprintf(f, ", \"kernel\": ");
        jsearch(f, r, s->frame_size, &s->kernel, s->kernel_lat_trial, 0);
    }
    fprintf(f, ", \"loss\": [");
    for (int k = 0; k < s->n_loss; k++) {
        fprintf(f, "%s{\"pct\": %.0f, \"fps\": ", k ? ", " : "", s->loss[k].pct);
        jnum(f, s->loss[k].fps);
        fprintf(f, ", \"loss_ratio\": "), jnum(f, s->loss[k].loss_ratio);
        fprintf(f, ", \"valid\": %s}", s->loss[k].valid ? "true" : "false");
    }
    fprintf(f, "]}");
}

#define JU(k) fprintf(f, ", \"" #k "\": %" PRIu64, t->k)

static void jtrial(FILE *f, const struct lb_trial_rec *t)
{
    fprintf(f, "    {\"path\": \"%s\", \"mode\": \"%s\", \"frame_size\": %u, \"requested_fps\": ",
            t->path, t->mode, t->frame_size);
    jnum(f, t->requested_fps);
    fprintf(f, ", \"achieved_fps\": "), jnum(f, t->achieved_fps);
    fprintf(f, ", \"valid\": %s, \"duration_s\": ", t->valid ? "true" : "false");
    jnum(f, t->duration_s);
    JU(sent); JU(tx_accepted); JU(rx); JU(unique); JU(lost); JU(dup); JU(reordered); JU(late);
    JU(bursts); JU(max_burst); JU(foreign); JU(stale);
    fprintf(f, ", \"loss_ratio\": "), jnum(f, t->loss_ratio);
    fprintf(f, ", \"loss_attribution\": {\"tx_refused\": %" PRIu64 ", \"tx_nombuf\": %" PRIu64
               ", \"imissed\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64 ", \"bad_checksum\": %" PRIu64
               ", \"bad_frame\": %" PRIu64 ", \"unattributed\": %" PRIu64 "}",
            t->tx_refused, t->tx_nombuf, t->imissed, t->rx_nombuf, t->bad_checksum, t->bad_frame,
            t->unattributed);
    JU(ierrors); JU(oerrors);
    fprintf(f, ", \"latency_ns\": "), jlat(f, &t->lat);
    fprintf(f, ", \"overhead_ns\": {\"tx_lag_p99\": "), jnum(f, t->tx_lag_p99_ns);
    fprintf(f, ", \"tx_hold_p99\": "), jnum(f, t->tx_hold_p99_ns);
    fprintf(f, ", \"rx_loop_p99\": "), jnum(f, t->rx_loop_p99_ns);
    fprintf(f, "}, \"loss_bursts\": [");
    for (unsigned b = 0; b < t->n_bursts_shown; b++) {
        fprintf(f, "%s{\"first_seq\": %" PRIu64 ", \"len\": %" PRIu64 ", \"t_ms\": ", b ? ", " : "",
                t->burst[b].first_seq, t->burst[b].len);
        jnum(f, t->burst[b].t_ms >= 0 ? t->burst[b].t_ms : NAN);
        fprintf(f, "}");
    }
    fprintf(f, "]}");
}

#undef JU

void lb_write_json(FILE *f, const struct lb_report *r)
{
    fprintf(f, "{\n  \"schema\": \"ebfarm-loopback/1\",\n");
    jmeta(f, &r->meta);
    fprintf(f, ",\n  \"results\": [\n");
    for (unsigned i = 0; i < r->n_sizes; i++) {
        jresult(f, r, &r->size[i]);
        fprintf(f, "%s\n", i + 1 < r->n_sizes ? "," : "");
    }
    fprintf(f, "  ],\n  \"trials\": [\n");
    for (unsigned i = 0; i < r->n_trials; i++) {
        jtrial(f, &r->trial[i]);
        fprintf(f, "%s\n", i + 1 < r->n_trials ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}

/* A CSV field in double quotes, a quote inside doubled (RFC 4180). */
static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void lb_write_csv(FILE *f, const struct lb_report *r)
{
    fprintf(f, "date,dpdk_version,cpu_model,tx_driver,rx_driver,link_mbps,trial_s,path,mode,"
               "frame_size,requested_fps,achieved_fps,valid,sent,rx,unique,lost,dup,reordered,"
               "late,bursts,max_burst,loss_ratio,tx_refused,tx_nombuf,imissed,rx_nombuf,"
               "bad_checksum,unattributed,lat_min_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,"
               "lat_p99_9_ns,lat_p99_99_ns,lat_max_ns\n");
    for (unsigned i = 0; i < r->n_trials; i++) {
        const struct lb_trial_rec *t = &r->trial[i];
        const struct lb_latency *l = &t->lat;
        fprintf(f, "%s,%s,", r->meta.date, r->meta.dpdk_version);
        csv_quoted(f, r->meta.cpu_model);
        fprintf(f, ",%s,%s,%.0f,%g,%s,%s,%u,%.1f,%.1f,%d,%" PRIu64 ",%" PRIu64
                   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%" PRIu64 ",%.6e,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%" PRIu64,
                r->meta.tx_driver, r->meta.rx_driver, r->meta.link_mbps, r->meta.trial_s,
                t->path, t->mode,
                t->frame_size, t->requested_fps, t->achieved_fps, t->valid, t->sent, t->rx,
                t->unique, t->lost, t->dup, t->reordered, t->late, t->bursts, t->max_burst,
                t->loss_ratio, t->tx_refused, t->tx_nombuf, t->imissed, t->rx_nombuf,
                t->bad_checksum, t->unattributed);
        if (l->valid)
            fprintf(f, ",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", l->min, l->p50, l->p90, l->p99,
                    l->p999, l->p9999, l->max);
        else
            fprintf(f, ",,,,,,,\n");
    }
}
