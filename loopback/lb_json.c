/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_json.c - loopback results as JSON through jansson (schema ebfarm-loopback/1, docs/loopback.md) and CSV. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "lb_rate.h"
#include "lb_reason.h"
#include "lb_report.h"

/* A number: null when not finite (JSON has no NaN), an integer when it is
 * one (frame counts, rates in whole fps), else a real. */
static json_t *jnum(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == floor(v) && fabs(v) < 1e15)
        return json_integer((json_int_t)v);
    return json_real(v);
}

static json_t *ju64(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *jstr(const char *s)
{
    return json_string(s ? s : "");
}

static json_t *jlat(const struct lb_latency *l)
{
    if (!l->valid)
        return json_null();
    return json_pack("{s:o s:o s:o s:o s:o s:o s:o s:o s:o}", "count", ju64(l->count),
                     "min", jnum(l->min), "p50", jnum(l->p50), "p90", jnum(l->p90),
                     "p99", jnum(l->p99), "p99_9", jnum(l->p999), "p99_99", jnum(l->p9999),
                     "max", jnum(l->max), "mean", jnum(l->mean));
}

static json_t *jgoal(const struct lb_mlr_goal *g)
{
    return json_pack("{s:o s:o s:o s:o s:o s:o}", "loss_ratio", jnum(g->loss_ratio),
                     "exceed_ratio", jnum(g->exceed_ratio), "duration_s", jnum(g->final_duration),
                     "duration_sum_s", jnum(g->duration_sum), "width", jnum(g->width),
                     "initial_duration_s", jnum(g->initial_duration));
}

static json_t *jmeta(const struct lb_meta *m)
{
    json_t *o = json_pack(
        "{s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:I s:o s:o s:o s:o s:o s:o s:o s:o s:b}",
        "date", jstr(m->date), "dpdk_version", jstr(m->dpdk_version), "cpu_model",
        jstr(m->cpu_model), "cpu_mhz", jnum(m->cpu_mhz), "tsc_hz", jnum(m->tsc_hz), "hostname",
        jstr(m->hostname), "kernel", jstr(m->kernel), "tx_port", jstr(m->tx_port), "rx_port",
        jstr(m->rx_port), "tx_driver", jstr(m->tx_driver), "rx_driver", jstr(m->rx_driver),
        "link_mbps", jnum(m->link_mbps), "link_mtu", (json_int_t)m->link_mtu, "mode",
        jstr(m->mode), "trial_s", jnum(m->trial_s), "tolerance", jnum(m->tolerance),
        "loss_ratio_allowed", jnum(m->loss_ratio), "resolution_pct", jnum(m->resolution_pct),
        "pacing", jstr(m->pacing), "idle", jstr(m->idle), "tsc_read_ns", jnum(m->tsc_read_ns),
        "compare_kernel", m->compare_kernel);
    json_object_set_new(o, "search", jstr(m->search ? m->search : "binary"));
    json_object_set_new(o, "repeat", json_integer(m->repeat ? m->repeat : 1));
    json_object_set_new(o, "burst", json_integer(m->burst));
    json_object_set_new(o, "probe_margin", jnum(m->probe_margin));
    json_object_set_new(o, "tx_hold_us", jnum(m->tx_hold_us));
    json_object_set_new(o, "interrupted", json_boolean(m->interrupted));
    json_t *goals = json_array();
    for (unsigned g = 0; g < m->n_goals; g++)
        json_array_append_new(goals, jgoal(&m->goal[g]));
    json_object_set_new(o, "goals", goals);
    return o;
}

/* --search mlr: the conditional throughput of each goal. */
static json_t *jmlr(const struct lb_report *r, const struct lb_size_result *s, int p)
{
    json_t *a = json_array();
    unsigned fs = s->frame_size;
    for (unsigned g = 0; g < r->meta.n_goals; g++) {
        const struct lb_mlr_goal_result *x = &s->mlr[p][g];
        json_array_append_new(
            a, json_pack("{s:o s:b s:o s:o s:o s:o s:o s:o}", "goal", jgoal(&r->meta.goal[g]),
                         "found", x->found, "lower_fps", jnum(x->lower_fps), "upper_fps",
                         x->upper_fps > 0 ? jnum(x->upper_fps) : json_null(), "loss_quantile",
                         jnum(x->loss_quantile), "conditional_fps", jnum(x->conditional_fps),
                         "conditional_l1_bps", jnum(lb_l1_bps(x->conditional_fps, fs)),
                         "conditional_l2_bps", jnum(lb_l2_bps(x->conditional_fps, fs))));
        json_object_set_new(json_array_get(a, g), "bound_by",
                            json_string(lb_mlr_bound_name((unsigned)x->bound_by)));
    }
    return a;
}

/* --search mlr: the sender probe before the search. */
static json_t *jprobe(const struct lb_mlr_probe *p)
{
    if (!p->ran)
        return json_null();
    return json_pack("{s:o s:o s:o s:o s:o s:b s:o s:o s:o s:b}", "requested_fps", jnum(p->fps),
                     "duration_s", jnum(p->duration), "achieved_fps", jnum(p->achieved_fps),
                     "stall_ms", jnum(p->stall_s * 1e3), "reach_fps", jnum(p->reach_fps),
                     "valid", p->valid, "invalid_reason",
                     p->valid ? json_null() : json_string(lb_invalid_name((unsigned)p->reason)),
                     "margin", jnum(p->margin), "max_fps", jnum(p->max_fps), "capped", p->capped);
}

/* --repeat: the figure of every repetition and their spread. */
static json_t *jrepeat(const struct lb_repeat *x, const double *v)
{
    json_t *vals = json_array();
    for (unsigned i = 0; v && i < x->n; i++)
        json_array_append_new(vals, jnum(v[i]));
    return json_pack("{s:I s:I s:I s:I s:o s:o s:o s:o s:o}", "n", (json_int_t)x->n, "found",
                     (json_int_t)x->found, "trials", (json_int_t)x->trials, "invalid_trials",
                     (json_int_t)x->invalid, "mean", jnum(x->mean), "stddev", jnum(x->stddev),
                     "min", jnum(x->min), "max", jnum(x->max), "values", vals);
}

static json_t *jsearch(const struct lb_report *r, const struct lb_size_result *s,
                       const struct lb_search_result *x, int lat_i, int b2b, int p)
{
    unsigned fs = s->frame_size;
    json_t *o = json_pack("{s:b s:I s:I}", "found", x->found, "trials", (json_int_t)x->trials,
                          "invalid_trials", (json_int_t)x->invalid);
    if (b2b) {
        json_object_set_new(o, "burst_frames", jnum(x->found ? round(x->fps) : 0));
    } else {
        double fps = x->found ? x->fps : 0;
        json_object_set_new(o, "fps", jnum(fps));
        json_object_set_new(o, "l1_bps", jnum(lb_l1_bps(fps, fs)));
        json_object_set_new(o, "l2_bps", jnum(lb_l2_bps(fps, fs)));
        double line = r->meta.link_mbps > 0 ? lb_line_fps(r->meta.link_mbps, fs) : 0;
        json_object_set_new(o, "pct_line", jnum(line > 0 ? 100.0 * fps / line : NAN));
    }
    json_object_set_new(o, "latency_ns", lat_i >= 0 && (unsigned)lat_i < r->n_trials &&
                                                 r->trial[lat_i].frame_size == fs
                                             ? jlat(&r->trial[lat_i].lat)
                                             : json_null());
    if (s->mlr_ran[p]) {
        json_object_set_new(o, "mlr", jmlr(r, s, p));
        json_object_set_new(o, "mlr_timed_out", json_boolean(s->mlr_timed_out[p]));
        json_object_set_new(o, "mlr_probe", jprobe(&s->mlr_probe[p]));
    }
    if (s->rep[p].n > 1)
        json_object_set_new(o, "repeat", jrepeat(&s->rep[p], s->rep_values[p]));
    return o;
}

static json_t *jresult(const struct lb_report *r, const struct lb_size_result *s)
{
    int b2b = !strcmp(r->meta.mode, "back-to-back");
    json_t *o = json_pack("{s:I}", "frame_size", (json_int_t)s->frame_size);
    json_object_set_new(o, "dpdk", jsearch(r, s, &s->tput, s->lat_trial, b2b, 0));
    if (r->meta.compare_kernel)
        json_object_set_new(o, "kernel", jsearch(r, s, &s->kernel, s->kernel_lat_trial, 0, 1));
    json_t *loss = json_array();
    for (int k = 0; k < s->n_loss; k++) {
        const struct lb_loss_point *x = &s->loss[k];
        json_array_append_new(loss, json_pack("{s:o s:o s:o s:b}", "pct", jnum(round(x->pct)),
                                              "fps", jnum(x->fps), "loss_ratio",
                                              jnum(x->loss_ratio), "valid", x->valid));
    }
    json_object_set_new(o, "loss", loss);
    return o;
}

static json_t *jtrial(const struct lb_trial_rec *t)
{
    json_t *o = json_pack("{s:s s:s s:I s:o s:o s:b}", "path", t->path, "mode", t->mode,
                          "frame_size", (json_int_t)t->frame_size, "requested_fps",
                          jnum(t->requested_fps), "achieved_fps", jnum(t->achieved_fps), "valid",
                          t->valid);
    const char *why = lb_invalid_name((unsigned)t->invalid_reason);
    json_object_set_new(o, "invalid_reason", t->valid ? json_null() : jstr(why));
    json_object_set_new(o, "stall_ms", jnum(t->stall_ms));
    json_object_set_new(o, "search", json_integer(t->search));
    json_object_set_new(o, "phase", jstr(t->phase ? t->phase : "search"));
    json_object_set_new(o, "retried", json_boolean(t->retried));
    json_object_set_new(o, "intended_s", jnum(t->intended_s));
    json_object_set_new(o, "duration_s", jnum(t->duration_s));
#define JU(k) json_object_set_new(o, #k, ju64(t->k))
    JU(sent); JU(tx_accepted); JU(rx); JU(unique); JU(lost); JU(dup); JU(reordered); JU(late);
    JU(bursts); JU(max_burst); JU(foreign); JU(stale);
    json_object_set_new(o, "loss_ratio", jnum(t->loss_ratio));
    json_object_set_new(o, "loss_attribution",
                        json_pack("{s:o s:o s:o s:o s:o s:o s:o}", "tx_refused",
                                  ju64(t->tx_refused), "tx_nombuf", ju64(t->tx_nombuf),
                                  "imissed", ju64(t->imissed),
                                  "rx_nombuf", ju64(t->rx_nombuf), "bad_checksum",
                                  ju64(t->bad_checksum), "bad_frame", ju64(t->bad_frame),
                                  "unattributed", ju64(t->unattributed)));
    JU(ierrors); JU(oerrors);
#undef JU
    json_object_set_new(o, "latency_ns", jlat(&t->lat));
    json_object_set_new(o, "overhead_ns",
                        json_pack("{s:o s:o s:o}", "tx_lag_p99", jnum(t->tx_lag_p99_ns),
                                  "tx_hold_p99", jnum(t->tx_hold_p99_ns), "rx_loop_p99",
                                  jnum(t->rx_loop_p99_ns)));
    json_t *b = json_array();
    for (unsigned k = 0; k < t->n_bursts_shown; k++) {
        double ms = t->burst[k].t_ms >= 0 ? t->burst[k].t_ms : NAN;
        json_array_append_new(b, json_pack("{s:o s:o s:o}", "first_seq",
                                           ju64(t->burst[k].first_seq), "len",
                                           ju64(t->burst[k].len), "t_ms", jnum(ms)));
    }
    json_object_set_new(o, "loss_bursts", b);
    if (t->n_queues > 1) {
        json_t *qs = json_array();
        for (unsigned q = 0; q < t->n_queues; q++)
            json_array_append_new(qs, json_pack("{s:I s:o s:o s:o}", "queue", (json_int_t)q,
                                                "tx_sent", ju64(t->queue[q].tx_sent),
                                                "tx_accepted", ju64(t->queue[q].tx_accepted),
                                                "rx", ju64(t->queue[q].rx)));
        json_object_set_new(o, "queues", qs);
        json_object_set_new(o, "queue_split", ju64(t->queue_split));
    }
    return o;
}

json_t *lb_json_report(const struct lb_report *r)
{
    json_t *results = json_array(), *trials = json_array();
    for (unsigned i = 0; i < r->n_sizes; i++)
        json_array_append_new(results, jresult(r, &r->size[i]));
    for (unsigned i = 0; i < r->n_trials; i++)
        json_array_append_new(trials, jtrial(&r->trial[i]));
    return json_pack("{s:s s:o s:o s:o}", "schema", "ebfarm-loopback/1", "meta", jmeta(&r->meta),
                     "results", results, "trials", trials);
}

void lb_write_json(FILE *f, const struct lb_report *r)
{
    json_t *doc = lb_json_report(r);
    if (!doc || json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0)
        fprintf(stderr, "loopback: could not write the JSON report (out of memory)\n");
    else
        fputc('\n', f);
    json_decref(doc);
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
