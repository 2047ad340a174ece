/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_ledger.c - the simulated run's ledger, closed with the farm ledger's arithmetic (tools/farm/ledger.c). */
#include "sim_farm_private.h"

#include "ebf_mix.h"

/*
 * The same rules as ledger_close(), on the model's counters rather than
 * on the processes' stats files (that code reads a struct farm_result of
 * key-value stats; the model has no processes): the SFCs' acks are the
 * decisions of record; a dead SFC's ids (e % sfcs == its place) are
 * decided where its nodes' own counters say and lost as sfc_lost
 * otherwise; generated == accepted + rejected + lost; the sum of
 * ebf_mix64(id) and the id records (ebf_idset) of acked plus lost plus the
 * dead SFCs' ids equal those of the generated range; the nodes' records of
 * the acks they sent (nodes of live SFCs) equal the SFCs' acked plus late.
 */

/* A dead SFC k: its ids into g and their digest into *digest, its nodes'
 * decisions into the ledger, the rest lost as sfc_lost. */
static void dead_sfc(struct sim_farm *f, uint32_t k, struct ebf_idset *g, uint64_t *digest)
{
    struct sim_ledger *l = &f->r->l;
    uint32_t nps = f->c->nodes_per_sfc;
    uint64_t ids = 0, decided = 0;

    for (uint64_t id = k; id < f->next_id; id += f->c->sfcs) {
        ebf_idset_add(g, id);
        *digest += ebf_mix64(id);
        ids++;
    }
    for (uint32_t n = k * nps; n < (k + 1) * nps; n++) {
        l->accepted += f->node[n].accepted;
        l->rejected += f->node[n].rejected;
        decided += f->node[n].accepted + f->node[n].rejected;
    }
    l->gone_decided += decided;
    l->lost[SIM_LOST_SFC] += ids >= decided ? ids - decided : 0;
}

/* A live SFC k: its acks and losses into the ledger and the records. */
static void live_sfc(struct sim_farm *f, uint32_t k, struct ebf_idset *d, struct ebf_idset *a,
                     uint64_t *digest)
{
    struct sim_ledger *l = &f->r->l;
    struct sim_sfc *s = &f->sfc[k];

    l->accepted += s->accepted;
    l->rejected += s->rejected;
    l->incomplete += s->incomplete;
    l->late_acks += s->late;
    for (int i = 0; i < SIM_LOST_MAX; i++)
        l->lost[i] += s->lost[i];
    *digest += s->acked_digest + s->lost_digest;
    ebf_idset_merge(d, &s->acked_ids, -1);
    ebf_idset_merge(d, &s->lost_ids, -1);
    ebf_idset_merge(a, &s->acked_ids, -1);
    ebf_idset_merge(a, &s->late_ids, -1);
    for (uint32_t n = k * f->c->nodes_per_sfc; n < (k + 1) * f->c->nodes_per_sfc; n++)
        ebf_idset_merge(a, &f->node[n].ack_ids, 1);
}

void sim_ledger_close(struct sim_farm *f)
{
    struct sim_ledger *l = &f->r->l;
    struct ebf_idset d, a, g;
    uint64_t digest = 0;

    l->generated = f->next_id;
    ebf_idset_init(&d);
    ebf_idset_init(&a);
    ebf_idset_add_range(&d, 0, f->next_id);
    for (uint32_t k = 0; k < f->c->sfcs; k++) {
        if (!f->sfc[k].dead) {
            live_sfc(f, k, &d, &a, &digest);
            continue;
        }
        ebf_idset_init(&g);
        dead_sfc(f, k, &g, &digest);
        ebf_idset_merge(&d, &g, -1);
    }
    for (int i = 0; i < SIM_LOST_MAX; i++)
        l->lost_total += l->lost[i];
    l->digest_match = digest == f->gen_digest;
    l->ids_match = ebf_idset_empty(&d);
    l->nodes_agree = ebf_idset_empty(&a);
    l->unaccounted = (int64_t)(l->generated - (l->accepted + l->rejected + l->lost_total));
    l->closed = l->unaccounted == 0 && l->digest_match && l->ids_match && l->nodes_agree;
}
