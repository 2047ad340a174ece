/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_fo_view.c - what a farm's failover looks like from its counters: the live SFCs and their shares, deaths, replays, replay buffers. */
#include "farm_fo_view.h"

#include <inttypes.h>
#include <string.h>

#include "ebf_pb.h"
#include "ebfarm.pb-c.h"
#include "jsonout.h"
#include "ledger_failover.h"
#include "ledger_replay.h"
#include "sumtable.h"

void farm_fo_view_init(struct farm_fo_view *v)
{
    memset(v, 0, sizeof(*v));
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* A readout's part: its deaths seen (fo.deaths, or release.deaths before
 * it was renamed) and recoveries, replays and drops, summed; its buffer's
 * level and times to recover, the largest. */
static void add_readout(struct farm_fo_view *v, const struct ebf_kv *kv)
{
    v->n_readouts++;
    v->on |= ebf_kv_u64(kv, "release.frames", 0) > 0;
    v->deaths += ebf_kv_u64(kv, "fo.deaths", 0) + ebf_kv_u64(kv, "release.deaths", 0);
    v->replayed += ebf_kv_u64(kv, "replay.replayed", 0);
    v->dropped += ebf_kv_u64(kv, "replay.dropped", 0);
    v->held_bytes = max_u64(v->held_bytes, ebf_kv_u64(kv, "replay.held_bytes", 0));
    v->peak_bytes = max_u64(v->peak_bytes, ebf_kv_u64(kv, "replay.peak_bytes", 0));
    v->false_deaths += ebf_kv_u64(kv, "fo.false_deaths", 0);
    v->recoveries += ebf_kv_u64(kv, "fo.recoveries", 0);
    v->recover_ns = max_u64(v->recover_ns, ebf_kv_u64(kv, "fo.recover_ns", 0));
    v->recover_max_ns = max_u64(v->recover_max_ns, ebf_kv_u64(kv, "fo.recover_max_ns", 0));
}

/* The ids an id record of kv under prefix holds (0 when absent). */
static uint64_t record_count(const struct ebf_kv *kv, const char *prefix)
{
    struct ebf_idset s;

    ledger_kv_idset(kv, prefix, &s);
    return ledger_fo_count(&s);
}

void farm_fo_view_add(struct farm_fo_view *v, enum farm_role role, const char *name,
                      const struct ebf_kv *kv, double leave_at)
{
    if (role == FARM_READOUT && kv) {
        add_readout(v, kv);
        return;
    }
    if (role == FARM_NODE && kv) {
        v->redecided_marked += record_count(kv, "ledger.acks_after_release");
        return;
    }
    if (role != FARM_SFC || v->n_sfcs == FF_MAX_SFCS)
        return;
    unsigned k = v->n_sfcs++;
    snprintf(v->sfc[k].name, sizeof(v->sfc[k].name), "%s", name);
    v->sfc[k].state = !kv ? FARM_FO_GONE : leave_at > 0 ? FARM_FO_DRAINED : FARM_FO_LIVE;
    v->sfc[k].leave_at = leave_at > 0 ? (uint64_t)leave_at : 0;
    if (!kv)
        return;
    v->on |= ebf_kv_u64(kv, "release.frames", 0) > 0;
    v->joins += ebf_kv_u64(kv, "release.joins", 0);
    v->leaves += ebf_kv_u64(kv, "release.leaves", 0);
    v->redecided_marked += record_count(kv, LEDGER_SFC_FENCE_ACKED);
    v->partial += ebf_kv_u64(kv, "replay.partial", 0);
    v->ended += ebf_kv_u64(kv, "replay.ended", 0);
    v->wait_cap += ebf_kv_u64(kv, "replay.wait_cap", 0);
    v->waits += ebf_kv_u64(kv, "replay.waits", 0);
    v->ends += ebf_kv_u64(kv, "replay.ends", 0);
    v->unsound += ebf_kv_u64(kv, "replay.unsound", 0);
}

void farm_fo_view_end(struct farm_fo_view *v)
{
    v->n_live = 0;
    for (unsigned k = 0; k < v->n_sfcs; k++)
        v->n_live += v->sfc[k].state == FARM_FO_LIVE;
    for (unsigned k = 0; k < v->n_sfcs; k++)
        v->sfc[k].share = v->sfc[k].state == FARM_FO_LIVE ? 1.0 / v->n_live : 0;
}

void farm_fo_view_snapshot(struct farm_fo_view *v, enum farm_role role, const char *name,
                           const struct Ebfarm__Snapshot *m)
{
    struct ebf_kv kv;
    int have = m && ebf_pb_snapshot_kv(m, &kv) == 0;

    farm_fo_view_add(v, role, name, have ? &kv : NULL,
                     m ? ebf_pb_gauge(m, "leave_at", NULL, 0) : 0);
    if (have)
        ebf_kv_free(&kv);
}

void farm_fo_view_replies(struct farm_fo_view *v, const struct farm_state *st,
                          struct Ebfarm__Reply **rep)
{
    farm_fo_view_init(v);
    for (unsigned i = 0; i < st->n; i++)
        farm_fo_view_snapshot(v, st->proc[i].role, st->proc[i].name,
                              rep[i] && rep[i]->status ? rep[i]->status->metrics : NULL);
    farm_fo_view_end(v);
}

void farm_fo_view_result(struct farm_fo_view *v, const struct farm_result *r)
{
    farm_fo_view_init(v);
    for (unsigned i = 0; i < r->n_ro; i++)
        farm_fo_view_add(v, FARM_READOUT, r->ro[i].name, r->ro[i].gone ? NULL : &r->ro[i].kv, 0);
    for (unsigned k = 0; k < r->n_sfcs; k++)
        farm_fo_view_add(v, FARM_SFC, r->sfcs[k].name, r->sfcs[k].gone ? NULL : &r->sfcs[k].kv,
                         0);
    for (unsigned i = 0; i < r->n_nodes; i++)
        if (!r->node[i].gone)
            farm_fo_view_add(v, FARM_NODE, r->node[i].name, &r->node[i].kv, 0);
    farm_fo_view_end(v);
}

static const char *state_name(enum farm_fo_state s)
{
    return s == FARM_FO_LIVE ? "live" : s == FARM_FO_DRAINED ? "drained" : "gone";
}

/* The view's items ("SFCs live 2 of 2 (sfc0 50%, sfc1 50%)", "deaths seen 0", ...)
 * into it[], each at most FO_ITEM bytes. Returns how many. */
#define FO_ITEM (32 + FF_MAX_SFCS * (FF_NAME_MAX + 40))
#define FO_ITEMS 9
static unsigned items(const struct farm_fo_view *v, char it[FO_ITEMS][FO_ITEM])
{
    int o = snprintf(it[0], FO_ITEM, "SFCs live %u of %u (", v->n_live, v->n_sfcs);

    for (unsigned k = 0; k < v->n_sfcs && o > 0 && o < FO_ITEM; k++) {
        const char *sep = k ? ", " : "";
        if (v->sfc[k].state == FARM_FO_LIVE)
            o += snprintf(it[0] + o, FO_ITEM - (size_t)o, "%s%s %.0f%%", sep, v->sfc[k].name,
                          v->sfc[k].share * 100);
        else if (v->sfc[k].state == FARM_FO_DRAINED)
            o += snprintf(it[0] + o, FO_ITEM - (size_t)o, "%s%s drained from event %" PRIu64,
                          sep, v->sfc[k].name, v->sfc[k].leave_at);
        else
            o += snprintf(it[0] + o, FO_ITEM - (size_t)o, "%s%s gone", sep, v->sfc[k].name);
    }
    if (o > 0 && o < FO_ITEM)
        snprintf(it[0] + o, FO_ITEM - (size_t)o, ")");
    snprintf(it[1], FO_ITEM, "deaths seen %" PRIu64 ", recovered %" PRIu64 " (sums over %u "
             "readouts; %" PRIu64 " heard alive after)", v->deaths, v->recoveries,
             v->n_readouts, v->false_deaths);
    snprintf(it[2], FO_ITEM, "time to recover last %.1f ms, longest %.1f ms (slowest readout)",
             (double)v->recover_ns / 1e6, (double)v->recover_max_ns / 1e6);
    snprintf(it[3], FO_ITEM, "joins %" PRIu64 ", leaves %" PRIu64, v->joins, v->leaves);
    snprintf(it[4], FO_ITEM, "replayed %" PRIu64 ", replay dropped %" PRIu64, v->replayed,
             v->dropped);
    snprintf(it[5], FO_ITEM, "redecided so far %" PRIu64 " (fences, restarts)",
             v->redecided_marked);
    snprintf(it[6], FO_ITEM, "replay buffer %.1f MB, peak %.1f MB (largest readout)",
             (double)v->held_bytes / 1e6, (double)v->peak_bytes / 1e6);
    snprintf(it[7], FO_ITEM, "partial replays dropped %" PRIu64 " (%" PRIu64 " proven by "
             "%" PRIu64 " replay ends, %" PRIu64 " at the 5 s cap), kept %" PRIu64, v->partial,
             v->ended, v->ends, v->wait_cap, v->waits);
    snprintf(it[8], FO_ITEM, "replays built incomplete %" PRIu64 " (replay.unsound: pieces lost "
             "on the way; decided, in the ledger)", v->unsound);
    return FO_ITEMS;
}

void farm_fo_view_text(FILE *out, const struct farm_fo_view *v, const char *lead)
{
    static char it[FO_ITEMS][FO_ITEM];
    unsigned n;

    if (!v->on)
        return;
    n = items(v, it);
    fputs(lead, out);
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? "; " : "", it[i]);
    fputc('\n', out);
}

void farm_fo_view_summary(FILE *out, const struct farm_fo_view *v)
{
    static char it[FO_ITEMS][FO_ITEM];
    struct sum_line ln;
    unsigned n;

    if (!v->on)
        return;
    n = items(v, it);
    sum_begin(&ln, out, "failover");
    for (unsigned i = 0; i < n; i++)
        sum_item(&ln, it[i]);
    sum_end(&ln);
}

/* [{"name", "state", "share", "leave_at"}, ...] */
static json_t *sfcs_json(const struct farm_fo_view *v)
{
    json_t *a = json_array();

    for (unsigned k = 0; a && k < v->n_sfcs; k++)
        if (jout_append(a, json_pack("{s:o, s:s, s:o, s:o}", "name", jout_str(v->sfc[k].name),
                                     "state", state_name(v->sfc[k].state), "share",
                                     jout_sig(v->sfc[k].share, 6), "leave_at",
                                     jout_u64(v->sfc[k].leave_at))) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *farm_fo_view_json(const struct farm_fo_view *v)
{
    if (!v->on)
        return json_null();
    json_t *j = json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "live", (int)v->n_live, "sfcs", sfcs_json(v), "deaths",
                     jout_u64(v->deaths), "false_deaths", jout_u64(v->false_deaths), "recovered", jout_u64(v->recoveries),
                     "recover_ns", jout_u64(v->recover_ns), "recover_max_ns",
                     jout_u64(v->recover_max_ns), "joins", jout_u64(v->joins), "leaves",
                     jout_u64(v->leaves), "replayed", jout_u64(v->replayed), "replay_dropped",
                     jout_u64(v->dropped), "redecided_marked", jout_u64(v->redecided_marked),
                     "replay_held_bytes", jout_u64(v->held_bytes), "replay_peak_bytes",
                     jout_u64(v->peak_bytes));
    json_t *r = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "replay_partial",
                          jout_u64(v->partial), "replay_ended", jout_u64(v->ended),
                          "replay_wait_cap", jout_u64(v->wait_cap), "replay_waits",
                          jout_u64(v->waits), "replay_ends", jout_u64(v->ends),
                          "replay_unsound", jout_u64(v->unsound));

    if (!j || !r || json_object_update(j, r) != 0) {
        json_decref(j);
        j = NULL;
    }
    json_decref(r);
    return j;
}

/* One farm-wide gauge: its HELP, TYPE and value. */
static void prom_gauge(FILE *out, const char *name, const char *help, const char *farm,
                       uint64_t v)
{
    fprintf(out, "# HELP ebfarm_farm_%s %s\n# TYPE ebfarm_farm_%s gauge\n"
            "ebfarm_farm_%s{farm=\"%s\"} %" PRIu64 "\n", name, help, name, name, farm, v);
}

void farm_fo_view_prom(FILE *out, const struct farm_fo_view *v, const char *farm)
{
    if (!v->on)
        return;
    prom_gauge(out, "sfcs_live", "SFCs that take a share of the events now (failover on).",
               farm, v->n_live);
    fprintf(out, "# HELP ebfarm_farm_sfc_share The share of the events each SFC takes now: "
            "1/live for a live one, 0 for one drained or gone.\n"
            "# TYPE ebfarm_farm_sfc_share gauge\n");
    for (unsigned k = 0; k < v->n_sfcs; k++)
        fprintf(out, "ebfarm_farm_sfc_share{farm=\"%s\",sfc=\"%s\",state=\"%s\"} %.6g\n", farm,
                v->sfc[k].name, state_name(v->sfc[k].state), v->sfc[k].share);
    prom_gauge(out, "replay_held_bytes", "The largest readout's replay buffer level, bytes.",
               farm, v->held_bytes);
    prom_gauge(out, "replay_peak_bytes", "The largest readout's replay buffer peak, bytes.",
               farm, v->peak_bytes);
    prom_gauge(out, "sfc_deaths_seen", "SFC deaths the readouts declared, summed over them.",
               farm, v->deaths);
    prom_gauge(out, "sfc_false_deaths", "SFC deaths by silence after which the SFC was heard "
               "again at the same epoch (alive), summed over the readouts.", farm, v->false_deaths);
    prom_gauge(out, "replayed_events", "Events the readouts replayed to live SFCs, summed.",
               farm, v->replayed);
    prom_gauge(out, "failovers_recovered", "Failovers the readouts recovered (a dead SFC's "
               "unreleased events all replayed), summed over them like sfc_deaths_seen.", farm,
               v->recoveries);
    fprintf(out, "# HELP ebfarm_farm_recover_seconds Time to recover from an SFC death: from "
            "its last release frame to the end of its replay, the slowest readout's.\n"
            "# TYPE ebfarm_farm_recover_seconds gauge\n"
            "ebfarm_farm_recover_seconds{farm=\"%s\",which=\"last\"} %.6f\n"
            "ebfarm_farm_recover_seconds{farm=\"%s\",which=\"longest\"} %.6f\n", farm,
            (double)v->recover_ns / 1e9, farm, (double)v->recover_max_ns / 1e9);
    prom_gauge(out, "redecided_marked", "Events decided twice as known so far: fenced SFCs' "
               "replayed acks and restarted SFCs' nodes' marked records (the stop adds the "
               "places still dead).", farm, v->redecided_marked);
}
