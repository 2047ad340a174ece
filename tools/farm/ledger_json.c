/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger_json.c - the ledger as the run summary's JSON object "ledger". */
#include "ledger_json.h"

#include "sfc_stats.h"
#include "sumtable.h"

/* The ids as a JSON array. */
static json_t *ids_json(const uint64_t *ids, unsigned n)
{
    json_t *a = json_array();

    for (unsigned i = 0; a && i < n; i++)
        if (jout_append(a, jout_u64(ids[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* The readouts lost (their ids closed over what the survivors saw), or
 * the events generated; and the SFCs gone (with a failover, the replays
 * built incomplete: replay_unsound). */
static int ledger_source(json_t *o, const struct ledger *l)
{
    json_t *lost = json_array();
    int rc = 0;

    for (unsigned i = 0; lost && i < l->n_ro_lost; i++)
        rc |= jout_append(lost, json_pack("{s:o, s:o}", "name", jout_str(l->ro_lost[i]),
                                          "from_event", jout_u64(l->ro_lost_from[i])));
    if (!l->readouts_gone)
        rc |= jout_set(o, "generated", jout_u64(l->generated));
    else
        rc |= jout_merge(o, json_pack("{s:{s:o, s:o, s:i}, s:O, s:s, s:n, s:o}", "readout_lost",
                                      "name", jout_str(l->readout_gone), "from_event",
                                      jout_u64(l->n_ro_lost ? l->ro_lost_from[0] : l->gone_from),
                                      "readouts", (int)l->readouts_gone, "readouts_lost", lost,
                                      "over", "survivors", "generated", "seen",
                                      jout_u64(l->generated)));
    json_decref(lost);
    if (l->failover)
        rc |= jout_set(o, "sfc_gone",
                       json_pack("{s:o, s:i, s:i, s:o, s:b, s:o, s:o, s:o, s:b, s:o}", "name",
                                 jout_str(l->sfc_gone), "sfcs", (int)l->sfcs_gone,
                                 "sfcs_restarted", (int)l->sfcs_restarted,
                                 "decided_by_its_nodes", jout_u64(l->gone_decided), "failover", 1,
                                 "release_mark", jout_u64(l->release_mark),
                                 "replayed", jout_u64(l->replayed), "redecided",
                                 jout_u64(l->redecided), "record_complete", !l->mark_evicted,
                                 "replay_unsound", jout_u64(l->replay_unsound)));
    else if (l->sfcs_gone)
        rc |= jout_set(o, "sfc_gone", json_pack("{s:o, s:i, s:o, s:o}", "name",
                                                jout_str(l->sfc_gone), "sfcs", (int)l->sfcs_gone,
                                                "decided_by_its_nodes", jout_u64(l->gone_decided),
                                                "sfc_lost", jout_u64(l->sfc_lost)));
    return rc;
}

/* The decided, lost and unaccounted events and the id checks. */
static int ledger_counts(json_t *o, const struct ledger *l)
{
    json_t *lost = json_object();
    int rc = !lost;

    for (unsigned i = 0; !rc && i < l->n_lost; i++)
        rc = l->lost[i] ? jout_set(lost, l->lost_name[i], jout_u64(l->lost[i])) : 0;
    rc |= jout_merge(o, json_pack("{s:o, s:o, s:o, s:O, s:o, s:I, s:b, s:{s:o, s:o}, s:b}",
                                  "accepted", jout_u64(l->accepted), "rejected",
                                  jout_u64(l->rejected), "incomplete", jout_u64(l->incomplete),
                                  "lost", lost, "lost_total", jout_u64(l->lost_total),
                                  "unaccounted", (json_int_t)l->unaccounted, "id_digest_match",
                                  l->digest_match, "id_range", "lo", jout_u64(l->id_lo), "n",
                                  jout_u64(l->generated), "ids_match", l->ids_match));
    json_decref(lost);
    /* The ids lost as replay_full are the ones the peeling listed: named
     * exactly, so that a reader of the stored events can tell them. */
    if (l->replay_full)
        rc |= jout_set(o, "lost_ids", json_pack("{s:o}", "replay_full",
                                                ids_json(l->missing, l->n_missing)));
    if (!l->ids_match)
        rc |= jout_set(o, "mismatch", json_pack("{s:o, s:o, s:b}", "missing",
                                                ids_json(l->missing, l->n_missing), "extra",
                                                ids_json(l->extra, l->n_extra), "complete",
                                                l->ids_listed));
    return rc;
}

/* Incomplete events by missing source, storage, and the nodes' side. */
static int ledger_nodes(json_t *o, const struct farm_result *r, const struct ledger *l)
{
    int rc = jout_set(o, "incomplete_by_missing_source",
                      sum_values_json(SFC_NAME(MISSING_SOURCE), &r->sfc));

    rc |= ledger_store_json(o, &l->store);
    return rc | jout_merge(o, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:b}",
                                        "nodes_dead", jout_u64(l->nodes_dead), "redispatched",
                                        jout_u64(l->redispatched), "late_acks",
                                        jout_u64(l->late_acks), "late_accepted",
                                        jout_u64(l->late_accepted), "rejoins", jout_u64(l->rejoins),
                                        "revived", jout_u64(l->revived), "nodes_silent",
                                        (int)l->nodes_silent, "nodes_agree",
                                        l->nodes_reported ? json_boolean(l->nodes_agree)
                                                          : json_null(),
                                        "closed", l->closed));
}

json_t *ledger_json(const struct farm_result *r, const struct ledger *l)
{
    json_t *o = json_object();

    if (o && (ledger_source(o, l) | ledger_counts(o, l) | ledger_nodes(o, r, l)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}
