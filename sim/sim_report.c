/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_report.c - the simulated run's summary as text and as JSON (jansson). */
#include "sim_report.h"

#include <errno.h>
#include <jansson.h>

const char *sim_lost_name(enum sim_lost l)
{
    static const char *const names[SIM_LOST_MAX] = {
        "event_table_full", "stopped_building", "no_node", "stopped_unacked", "sfc_lost",
    };
    return (unsigned)l < SIM_LOST_MAX ? names[l] : "?";
}

static double ms(const struct sim_result *r, double q)
{
    return (double)ebf_hist_quantile(&r->latency_ns, q) / 1e6;
}

static const char *yes(int b)
{
    return b ? "agree" : "DISAGREE";
}

static void text_ledger(FILE *out, const struct sim_ledger *l)
{
    fprintf(out, "  events    %ju generated: %ju accepted, %ju rejected (%ju incomplete), %ju lost\n",
            (uintmax_t)l->generated, (uintmax_t)l->accepted, (uintmax_t)l->rejected,
            (uintmax_t)l->incomplete, (uintmax_t)l->lost_total);
    fprintf(out, "  lost     ");
    for (int i = 0; i < SIM_LOST_MAX; i++)
        fprintf(out, " %s %ju%s", sim_lost_name((enum sim_lost)i), (uintmax_t)l->lost[i],
                i + 1 < SIM_LOST_MAX ? "," : "\n");
    fprintf(out, "  faults    nodes declared dead %ju, events sent again %ju, late acks %ju, "
            "nodes revived %ju, nodes restarted %ju, decided by a dead SFC's nodes %ju\n",
            (uintmax_t)l->nodes_dead, (uintmax_t)l->redispatched, (uintmax_t)l->late_acks,
            (uintmax_t)l->revived, (uintmax_t)l->rejoins, (uintmax_t)l->gone_decided);
    fprintf(out, "  ledger    %s: generated %ju = accepted %ju + rejected %ju + lost %ju "
            "(unaccounted %jd); id digests %s, id records %s, nodes' acks %s\n",
            l->closed ? "closed" : "NOT CLOSED", (uintmax_t)l->generated,
            (uintmax_t)l->accepted, (uintmax_t)l->rejected, (uintmax_t)l->lost_total,
            (intmax_t)l->unaccounted, yes(l->digest_match), yes(l->ids_match),
            yes(l->nodes_agree));
}

void sim_report_text(FILE *out, const char *farm, const struct sim_conf *c,
                     const struct sim_result *r)
{
    double decided = (double)(r->l.accepted + r->l.rejected);

    fprintf(out, "ebfarm sim: farm '%s', seed %ju: %u sources, %u SFCs, %u nodes, %.0f Hz "
            "(%s) for %g s; %.3f s of farm time simulated\n", farm, (uintmax_t)c->seed,
            c->sources, c->sfcs, c->sfcs * c->nodes_per_sfc, c->rate_hz,
            c->poisson ? "poisson" : "fixed", c->duration_s, r->farm_s);
    fprintf(out, "  network   %g Gbit/s links of %g us, switch ports of %g KiB: %ju fragment "
            "frames, %ju dropped at a switch port, %ju lost on a link down, %ju not sent "
            "(SFC given up), %ju reached a dead SFC\n", c->link_gbps, c->link_latency_us,
            c->switch_buffer_kb, (uintmax_t)r->frames, (uintmax_t)r->switch_drops,
            (uintmax_t)r->link_lost, (uintmax_t)r->sfc_gone_frames,
            (uintmax_t)r->dead_sfc_frames);
    fprintf(out, "  buffers   switch port toward an SFC: peak %u bytes (mean of the peaks %.0f), "
            "found by an arriving frame p50 %ju, p99 %ju, p99.9 %ju bytes; event table: peak "
            "%u events held of %u; busiest SFC lcore %.1f%% busy\n", r->port_peak,
            c->sfcs ? (double)r->port_peak_sum / c->sfcs : 0.0,
            (uintmax_t)ebf_hist_quantile(&r->port_occ, 0.5),
            (uintmax_t)ebf_hist_quantile(&r->port_occ, 0.99),
            (uintmax_t)ebf_hist_quantile(&r->port_occ, 0.999), r->evtab_peak, c->capacity,
            100 * r->sfc_busy_max);
    fprintf(out, "  throttle  on %ju times, readouts held %.3f s; %ju events timed out building, "
            "%ju pieces older than the done window; intake paused %ju times (receive ring "
            "peak %u of %u frames, %ju missed)\n", (uintmax_t)r->throttle_on, r->held_s,
            (uintmax_t)r->timed_out, (uintmax_t)r->stale_pieces, (uintmax_t)r->intake_pauses,
            r->rx_ring_peak, c->rx_ring, (uintmax_t)r->rx_missed);
    fprintf(out, "  latency   trigger to ack: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms "
            "(%ju events)\n", ms(r, 0.5), ms(r, 0.9), ms(r, 0.99),
            (double)r->latency_ns.max / 1e6, (uintmax_t)r->latency_ns.count);
    fprintf(out, "  rate      %.1f events/s decided over %g s of triggers\n",
            decided / c->duration_s, c->duration_s);
    if (c->failover)
        fprintf(out, "  failover  release every %g ms, dead after %g ms: %ju release frames, %ju "
                "SFCs declared dead (first died %.3f s, detected %.3f s), %ju events replayed, "
                "%ju decided by a survivor (last at %.3f s), %ju decided twice; replay buffer "
                "per source: peak %ju bytes (%ju events) of %g MiB, held %.3f s, %ju dropped\n",
                c->release_ms, c->sfc_dead_ms, (uintmax_t)r->release_frames,
                (uintmax_t)r->sfc_deaths, r->died_s, r->detected_s, (uintmax_t)r->replayed,
                (uintmax_t)r->l.replay_acked, r->recovered_s, (uintmax_t)r->l.redecided,
                (uintmax_t)r->replay_peak_bytes, (uintmax_t)r->replay_peak_events, c->replay_mb,
                r->replay_held_s, (uintmax_t)r->replay_dropped);
    if (c->failover && r->sfc_deaths)
        fprintf(out, "  replay    last readout detected at %.3f s; %ju replay ends sent, %ju "
                "taken (%ju refused); replayed events dropped as decided %ju (%ju proven by "
                "the ends, %ju at the 5 s cap), kept for a late readout %ju; built incomplete for a "
                "piece lost on the way %ju (the SFC daemon's rule drops or keeps them); %ju duplicate "
                "replayed pieces; %ju dead notices sent; %ju release frames lost\n",
                r->detected_last_s, (uintmax_t)r->replay_ends_sent, (uintmax_t)r->replay_ends,
                (uintmax_t)r->replay_end_refused, (uintmax_t)r->replay_partial,
                (uintmax_t)r->replay_ended, (uintmax_t)r->replay_wait_cap,
                (uintmax_t)r->replay_waits, (uintmax_t)r->replay_unsound,
                (uintmax_t)r->replay_dup,
                (uintmax_t)r->notices_due, (uintmax_t)r->release_lost);
    if (c->failover && (r->notices_due || r->release_muted))
        fprintf(out, "  fence     %ju release rounds muted; %ju dead notices taken; %ju fences on "
                "them (13.4 rule 4): %ju building events dropped, %ju acks decided "
                "twice (in redecided), %ju rounds' low held\n",
                (uintmax_t)r->release_muted, (uintmax_t)r->notices_taken, (uintmax_t)r->fences,
                (uintmax_t)r->replay_fenced, (uintmax_t)r->fence_acked,
                (uintmax_t)r->fence_held);
    if (c->failover && (r->sfc_restarts || r->joins || r->leaves))
        fprintf(out, "  join      %ju SFCs restarted (%ju events sent before freed unreplayed "
                "by a new incarnation); %ju leaves and %ju joins applied (last leave id %ju, "
                "join id %ju), %ju events decided by an SFC from its join id on, %ju pieces "
                "refused below it\n",
                (uintmax_t)r->sfc_restarts, (uintmax_t)r->freed_by_restart,
                (uintmax_t)r->leaves, (uintmax_t)r->joins, (uintmax_t)r->leave_at,
                (uintmax_t)r->join_at, (uintmax_t)r->joined_decided,
                (uintmax_t)r->prejoin_pieces);
    if (c->idle_sleep_us > 0)
        fprintf(out, "  idle      back-off: sleeps up to %g us, each %g us longer, after %g us of "
                "polling: %ju frames found their SFC or node asleep, %.1f us late on average\n",
                c->idle_sleep_us, c->idle_extra_us, c->idle_spin_us, (uintmax_t)r->wakes,
                r->wakes ? (double)r->wake_ps / (double)r->wakes / 1e6 : 0.0);
    if (c->readouts > 1 && c->ro_skew_us > 0)
        fprintf(out, "  readouts  %u, started %g us apart from the first to the last: each "
                "event's last fragment leaves that long after its first\n", c->readouts,
                c->ro_skew_us);
    if (c->ack_port)
        fprintf(out, "  acks      through the SFCs' switch ports: %ju dropped\n",
                (uintmax_t)r->ack_drops);
    text_ledger(out, &r->l);
    fprintf(out, "  model     %ju simulator events, queue peak %ju\n", (uintmax_t)r->sim_events,
            (uintmax_t)r->queue_peak);
}

static json_t *json_ledger(const struct sim_ledger *l)
{
    json_t *lost = json_object();

    for (int i = 0; i < SIM_LOST_MAX; i++)
        json_object_set_new(lost, sim_lost_name((enum sim_lost)i), json_integer((json_int_t)l->lost[i]));
    return json_pack("{s:I,s:I,s:I,s:I,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:b,s:b,"
                     "s:b}",
                     "generated", (json_int_t)l->generated, "accepted", (json_int_t)l->accepted,
                     "rejected", (json_int_t)l->rejected, "incomplete", (json_int_t)l->incomplete,
                     "lost", lost, "lost_total", (json_int_t)l->lost_total,
                     "unaccounted", (json_int_t)l->unaccounted,
                     "nodes_dead", (json_int_t)l->nodes_dead,
                     "redispatched", (json_int_t)l->redispatched,
                     "late_acks", (json_int_t)l->late_acks, "revived", (json_int_t)l->revived,
                     "rejoins", (json_int_t)l->rejoins,
                     "gone_decided", (json_int_t)l->gone_decided,
                     "replay_acked", (json_int_t)l->replay_acked,
                     "redecided", (json_int_t)l->redecided,
                     "digest_match", l->digest_match, "ids_match", l->ids_match,
                     "nodes_agree", l->nodes_agree, "closed", l->closed);
}

static json_t *json_farm(const char *farm, const struct sim_conf *c, const struct sim_result *r)
{
    return json_pack("{s:s,s:I,s:i,s:i,s:i,s:f,s:s,s:f,s:f,s:f,s:f,s:f}", "farm", farm,
                     "seed", (json_int_t)c->seed, "sources", (int)c->sources,
                     "sfcs", (int)c->sfcs, "nodes", (int)(c->sfcs * c->nodes_per_sfc),
                     "rate_hz", c->rate_hz, "arrivals", c->poisson ? "poisson" : "fixed",
                     "duration_s", c->duration_s, "farm_s", r->farm_s,
                     "link_gbps", c->link_gbps, "link_latency_us", c->link_latency_us,
                     "switch_buffer_kb", c->switch_buffer_kb);
}

static json_t *json_net(const struct sim_result *r)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:I,s:i,s:I,s:f,s:I,s:I,s:I,s:I,s:i}",
                     "frames", (json_int_t)r->frames, "switch_drops", (json_int_t)r->switch_drops,
                     "link_lost", (json_int_t)r->link_lost,
                     "sfc_gone_frames", (json_int_t)r->sfc_gone_frames,
                     "dead_sfc_frames", (json_int_t)r->dead_sfc_frames,
                     "dead_node_events", (json_int_t)r->dead_node_events,
                     "port_peak_bytes", (int)r->port_peak,
                     "port_peak_sum_bytes", (json_int_t)r->port_peak_sum,
                     "evtab_peak", (int)r->evtab_peak, "throttle_on", (json_int_t)r->throttle_on,
                     "held_s", r->held_s, "timed_out", (json_int_t)r->timed_out,
                     "stale_pieces", (json_int_t)r->stale_pieces,
                     "intake_pauses", (json_int_t)r->intake_pauses,
                     "rx_missed", (json_int_t)r->rx_missed, "rx_ring_peak", (int)r->rx_ring_peak);
}

static json_t *json_fo(const struct sim_conf *c, const struct sim_result *r)
{
    return json_pack("{s:f,s:f,s:I,s:I,s:f,s:f,s:I,s:I,s:f,s:I,s:I,s:I,s:f,s:f,s:I,s:I,s:I,"
                     "s:I,s:I,s:I,s:I,s:I,s:I}",
                     "release_ms", c->release_ms, "sfc_dead_ms", c->sfc_dead_ms,
                     "release_frames", (json_int_t)r->release_frames,
                     "sfc_deaths", (json_int_t)r->sfc_deaths, "died_s", r->died_s,
                     "detected_s", r->detected_s, "replayed", (json_int_t)r->replayed,
                     "replay_acked", (json_int_t)r->l.replay_acked, "recovered_s", r->recovered_s,
                     "redecided", (json_int_t)r->l.redecided,
                     "replay_peak_bytes", (json_int_t)r->replay_peak_bytes,
                     "replay_peak_events", (json_int_t)r->replay_peak_events,
                     "replay_mb", c->replay_mb, "replay_held_s", r->replay_held_s,
                     "replay_dropped", (json_int_t)r->replay_dropped,
                     "sfc_restarts", (json_int_t)r->sfc_restarts,
                     "freed_by_restart", (json_int_t)r->freed_by_restart,
                     "joins", (json_int_t)r->joins, "leaves", (json_int_t)r->leaves,
                     "join_at", (json_int_t)r->join_at, "leave_at", (json_int_t)r->leave_at,
                     "joined_decided", (json_int_t)r->joined_decided,
                     "prejoin_pieces", (json_int_t)r->prejoin_pieces);
}

/* The readouts' replay ends and the survivors' verdicts (13.4, 13.4.1),
 * named as the daemons' counters. */
static json_t *json_ends(const struct sim_result *r)
{
    return json_pack("{s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
                     "s:I}",
                     "detected_last_s", r->detected_last_s,
                     "ends_sent", (json_int_t)r->replay_ends_sent,
                     "ends", (json_int_t)r->replay_ends,
                     "end_refused", (json_int_t)r->replay_end_refused,
                     "dup", (json_int_t)r->replay_dup,
                     "partial", (json_int_t)r->replay_partial,
                     "ended", (json_int_t)r->replay_ended,
                     "waits", (json_int_t)r->replay_waits,
                     "wait_cap", (json_int_t)r->replay_wait_cap,
                     "unsound", (json_int_t)r->replay_unsound,
                     "notices_due", (json_int_t)r->notices_due,
                     "release_lost", (json_int_t)r->release_lost,
                     "release_muted", (json_int_t)r->release_muted,
                     "notices_taken", (json_int_t)r->notices_taken,
                     "fences", (json_int_t)r->fences,
                     "fenced", (json_int_t)r->replay_fenced,
                     "fence_acked", (json_int_t)r->fence_acked,
                     "fence_held", (json_int_t)r->fence_held);
}

int sim_report_json(FILE *out, const char *farm, const struct sim_conf *c,
                    const struct sim_result *r)
{
    json_t *lat = json_pack("{s:I,s:f,s:f,s:f,s:f,s:f}", "events", (json_int_t)r->latency_ns.count,
                            "p50_ms", ms(r, 0.5), "p90_ms", ms(r, 0.9), "p99_ms", ms(r, 0.99),
                            "max_ms", (double)r->latency_ns.max / 1e6,
                            "mean_ms", r->latency_ns.count ? (double)r->latency_ns.sum /
                                       (double)r->latency_ns.count / 1e6 : 0.0);
    json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:f,s:{s:I,s:I}}", "farm", json_farm(farm, c, r),
                          "network", json_net(r), "latency", lat, "ledger", json_ledger(&r->l),
                          "events_per_s", (double)(r->l.accepted + r->l.rejected) / c->duration_s,
                          "model", "sim_events", (json_int_t)r->sim_events,
                          "queue_peak", (json_int_t)r->queue_peak);

    if (o && c->failover) {
        json_object_set_new(o, "failover", json_fo(c, r));
        json_object_set_new(o, "replay", json_ends(r));
    }
    if (o) {
        json_object_set_new(o, "sfc_busy_max", json_real(r->sfc_busy_max));
        json_object_set_new(o, "port_occ_bytes", json_pack(
            "{s:I,s:I,s:I,s:I}", "p50", (json_int_t)ebf_hist_quantile(&r->port_occ, 0.5),
            "p99", (json_int_t)ebf_hist_quantile(&r->port_occ, 0.99),
            "p999", (json_int_t)ebf_hist_quantile(&r->port_occ, 0.999),
            "max", (json_int_t)r->port_occ.max));
    }
    if (o && c->ack_port)
        json_object_set_new(o, "ack_drops", json_integer((json_int_t)r->ack_drops));
    if (o && c->idle_sleep_us > 0)
        json_object_set_new(o, "idle", json_pack(
            "{s:f,s:f,s:f,s:I,s:f}", "sleep_us", c->idle_sleep_us, "extra_us", c->idle_extra_us,
            "spin_us", c->idle_spin_us, "wakes", (json_int_t)r->wakes,
            "wake_mean_us", r->wakes ? (double)r->wake_ps / (double)r->wakes / 1e6 : 0.0));
    if (o && c->readouts > 1 && c->ro_skew_us > 0)
        json_object_set_new(o, "readouts", json_pack("{s:I,s:f}", "count",
                                                     (json_int_t)c->readouts, "skew_us",
                                                     c->ro_skew_us));
    if (!o)
        return -ENOMEM;
    json_dumpf(o, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    json_decref(o);
    return 0;
}

void sim_report_self(FILE *out, const struct sim_result *r, long max_rss_kb, int json)
{
    double eps = r->wall_s > 0 ? (double)r->sim_events / r->wall_s : 0;

    if (json)
        fprintf(out, "{\"sim_events\": %ju, \"wall_s\": %.3f, \"sim_events_per_s\": %.0f, "
                "\"max_rss_kb\": %ld}\n", (uintmax_t)r->sim_events, r->wall_s, eps, max_rss_kb);
    else
        fprintf(out, "ebfarm sim: %ju simulator events in %.2f s of wall time (%.2fM events/s), "
                "max RSS %.1f MiB\n", (uintmax_t)r->sim_events, r->wall_s, eps / 1e6,
                (double)max_rss_kb / 1024);
}
