/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_emu_main.c - ebfarm-loopback-emu: the emulated device's trial function, searched by lb_mlr or served to another search over stdin/stdout. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lb_emu.h"
#include "lb_mlr.h"

/*
 * ebfarm-loopback-emu --capacity FPS [--sender FPS] --serve
 *     reads "LOAD DURATION" lines, runs lb_emu_trial for each and writes
 *     "SENT LOST ACHIEVED VALID" lines: the trial function for a search
 *     written elsewhere (tests/farm/test-lb_mlr_xcheck.py drives CSIT's).
 * ebfarm-loopback-emu --capacity FPS [--sender FPS] --min FPS --max FPS
 *         [--tolerance R] [--probe-margin R] [--goal-loss R --goal-exceed R --goal-duration S
 *          --goal-duration-sum S --goal-width W]...
 *     runs lb_mlr_probe (tolerance 0.01, margin 0) and lb_mlr_search over it, as
 *     ebfarm-loopback --search mlr does, and prints one JSON object: the
 *     probe, the max load the search used, each goal's bounds, conditional
 *     throughput and what bounds it, and the trials. Each --goal-loss
 *     starts a goal; the other --goal-* set the current one.
 */

static int serve(struct lb_emu *e)
{
    char line[256];
    double fps, d;

    while (fgets(line, sizeof(line), stdin)) {
        if (sscanf(line, "%lf %lf", &fps, &d) != 2) {
            fprintf(stderr, "ebfarm-loopback-emu: bad request line: %s", line);
            return 2;
        }
        struct lb_trial_req req = {.fps = fps, .duration_s = d};
        struct lb_trial_out out;
        if (lb_emu_trial(e, &req, &out) != 0) {
            fprintf(stderr, "ebfarm-loopback-emu: load %g is not positive\n", fps);
            return 2;
        }
        printf("%llu %llu %.17g %d\n", (unsigned long long)out.sent,
               (unsigned long long)out.lost, out.achieved_fps, out.valid);
        fflush(stdout);
    }
    return 0;
}

static int search(struct lb_emu *e, struct lb_mlr_conf *c, double tolerance, double margin)
{
    struct lb_mlr_result r;
    struct lb_mlr_probe p;
    int rc = lb_mlr_probe(c, tolerance, margin, lb_emu_trial, e, &p);
    if (rc == 0)
        rc = lb_mlr_search(c, lb_emu_trial, e, &r);

    if (rc) {
        fprintf(stderr, "ebfarm-loopback-emu: search failed: %s\n", strerror(-rc));
        return 1;
    }
    json_t *goals = json_array(), *trials = json_array();
    for (unsigned g = 0; g < c->n_goals; g++)
        json_array_append_new(
            goals, json_pack("{s:b s:f s:f s:f s:f s:s}", "found", r.goal[g].found, "lower_fps",
                             r.goal[g].lower_fps, "upper_fps", r.goal[g].upper_fps,
                             "loss_quantile", r.goal[g].loss_quantile, "conditional_fps",
                             r.goal[g].conditional_fps, "bound_by",
                             lb_mlr_bound_name((unsigned)r.goal[g].bound_by)));
    for (unsigned i = 0; i < r.n_trials; i++)
        json_array_append_new(trials, json_pack("{s:f s:f s:f s:b s:i s:i}", "fps", r.trial[i].fps,
                                                "duration_s", r.trial[i].duration, "loss_ratio",
                                                r.trial[i].loss_ratio, "valid", r.trial[i].valid,
                                                "goal", r.trial[i].goal, "target",
                                                r.trial[i].target));
    json_t *probe = json_pack("{s:f s:f s:b s:f s:b}", "requested_fps", p.fps, "achieved_fps",
                              p.achieved_fps, "valid", p.valid, "max_fps", p.max_fps, "capped",
                              p.capped);
    json_t *doc = json_pack("{s:o s:f s:o s:o s:b s:f}", "probe", probe, "max_fps", c->max_fps,
                            "goals", goals, "trials", trials, "timed_out", r.timed_out,
                            "seconds", e->seconds);
    json_dumpf(doc, stdout, JSON_REAL_PRECISION(17));
    putchar('\n');
    json_decref(doc);
    lb_mlr_free(&r);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"capacity", 1, 0, 'c'}, {"sender", 1, 0, 's'}, {"serve", 0, 0, 'S'},
        {"min", 1, 0, 'm'}, {"max", 1, 0, 'M'}, {"max-trials", 1, 0, 'T'},
        {"goal-loss", 1, 0, 'l'}, {"goal-exceed", 1, 0, 'e'}, {"goal-duration", 1, 0, 'd'},
        {"goal-duration-sum", 1, 0, 'u'}, {"goal-width", 1, 0, 'w'}, {"tolerance", 1, 0, 't'},
        {"probe-margin", 1, 0, 'g'}, {0, 0, 0, 0},
    };
    struct lb_emu e = {.default_s = 1};
    struct lb_mlr_conf c = {.min_fps = 1000, .max_fps = 1e6, .max_trials = 1000};
    struct lb_mlr_goal *g = &c.goal[0];
    double tolerance = 0.01, margin = 0;
    int ch, do_serve = 0;

    lb_mlr_goal_default(g, 1);
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        double v = optarg ? atof(optarg) : 0;
        switch (ch) {
        case 'c': e.capacity_fps = v; break;
        case 's': e.sender_fps = v; break;
        case 'S': do_serve = 1; break;
        case 'm': c.min_fps = v; break;
        case 'M': c.max_fps = v; break;
        case 'T': c.max_trials = (unsigned)v; break;
        case 'l':
            if (c.n_goals == LB_MLR_MAX_GOALS)
                return 2;
            g = &c.goal[c.n_goals++];
            lb_mlr_goal_default(g, 1);
            g->loss_ratio = v;
            break;
        case 'e': g->exceed_ratio = v; break;
        case 'd': g->final_duration = v; g->initial_duration = v / 4;
                  if (g->duration_sum < v) g->duration_sum = v;
                  break;
        case 'u': g->duration_sum = v; break;
        case 'w': g->width = v; break;
        case 't': tolerance = v; break;
        case 'g': margin = v; break;
        default: return 2;
        }
    }
    if (c.n_goals == 0)
        c.n_goals = 1;
    if (!(e.capacity_fps > 0)) {
        fprintf(stderr, "ebfarm-loopback-emu: --capacity FPS is needed\n");
        return 2;
    }
    return do_serve ? serve(&e) : search(&e, &c, tolerance, margin);
}
