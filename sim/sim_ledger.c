/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_ledger.c - the simulated run's ledger: totals by the farm's accounting (tools/acct), id checks as tools/farm/ledger.c makes them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "ebf_mix.h"
#include "sim_farm_private.h"
#include "sim_report.h"

/*
 * The farm's own rules on the model's counters. The totals come from
 * acct_combine() (tools/acct, linked), fed with the parts a farm of this
 * shape would give: one readout (every source generates every id), one
 * part for all live SFCs (their acks are the decisions of record, their
 * lost by reason), and for each dead SFC an SFC part that gave no
 * counters with one part for its nodes at its place, which stand in for
 * it. What a dead SFC's nodes did not decide is lost as sfc_lost, as
 * ledger.c does; generated == accepted + rejected + lost; the sum of
 * ebf_mix64(id) and the id records (ebf_idset) of acked plus lost plus the
 * dead SFCs' ids equal those of the generated range; the nodes' records of
 * the acks they sent (nodes of live SFCs) equal the SFCs' acked plus late.
 */

/* A dead SFC k: its ids into g and their digest into *digest; its nodes'
 * decisions into the part q at place k; returns its id count. */
static uint64_t dead_sfc(struct sim_farm *f, uint32_t k, struct ebf_idset *g, uint64_t *digest,
                         struct acct_part *q)
{
    uint32_t nps = f->c->nodes_per_sfc;
    uint64_t ids = 0;

    for (uint64_t id = k; id < f->next_id; id += f->c->sfcs) {
        ebf_idset_add(g, id);
        *digest += ebf_mix64(id);
        ids++;
    }
    acct_part_init(q, ACCT_NODE, "nodes", (int)k);
    q->answered = 1;
    for (uint32_t n = k * nps; n < (k + 1) * nps; n++) {
        q->accepted += f->node[n].accepted;
        q->rejected += f->node[n].rejected;
    }
    return ids;
}

/* Node n's counters and records from nothing (a new incarnation of its SFC). */
static void node_reset(struct sim_node *x)
{
    x->accepted = x->rejected = 0;
    ebf_idset_init(&x->ack_ids);
    x->ack_digest = 0;
    x->dup_accepted = x->dup_rejected = x->dup_digest = 0;
    ebf_idset_init(&x->dup_ids);
    x->n_late = 0;
}

/* SFC k's counters and records from nothing (a new process). Its
 * `incomplete` and `late` stay: they are statistics, no term. */
static void sfc_reset(struct sim_sfc *s)
{
    s->accepted = s->rejected = 0;
    memset(s->lost, 0, sizeof(s->lost));
    s->acked_digest = s->lost_digest = 0;
    ebf_idset_init(&s->acked_ids);
    ebf_idset_init(&s->lost_ids);
    ebf_idset_init(&s->late_ids);
    ebf_idset_init(&s->ackdrop_ids);
    s->fo.x_low = 0;
}

/*
 * docs/protocol.md 13.6, as tools/farm/ledger_replay.c takes it from a
 * gone SFC's nodes (dead_node there: their acks minus their record at or
 * above X), less their decisions of events their SFC had taken back from
 * them (declared dead, then awake: the event went to another node too;
 * ledger_replay.c takes every node's acks and would count it twice, unit
 * test sim_fo test_sfc_restart): X is the highest low the
 * readouts accepted from the
 * incarnation. Its nodes' decisions below X are of record (the readouts
 * released those ids: not replayed); those at or above X were replayed
 * and decided again by a survivor, or by its own next incarnation once
 * it joined: counted once there, and as redecided. Its losses by name
 * before it went stay its own. A restarted SFC goes through here twice
 * or more; a dead one at the ledger's close.
 */
void sim_ledger_retire(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc *s = &f->sfc[k];
    struct sim_gone *g = &s->fo.gone;
    uint64_t x_low = s->fo.x_low;
    struct ebf_idset redone;     /* the nodes' decisions at or above X */

    ebf_idset_init(&redone);
    if (!g->on)
        ebf_idset_init(&g->ids);
    g->on = 1;
    for (uint32_t n = k * f->c->nodes_per_sfc; n < (k + 1) * f->c->nodes_per_sfc; n++) {
        struct sim_node *x = &f->node[n];
        g->accepted += x->accepted - x->dup_accepted;
        g->rejected += x->rejected - x->dup_rejected;
        ebf_idset_merge(&g->ids, &x->ack_ids, 1);
        ebf_idset_merge(&g->ids, &x->dup_ids, -1);
        g->digest += x->ack_digest - x->dup_digest;
        for (uint32_t i = 0; i < x->n_late; i++) {
            if (x->late[i].id < x_low)
                continue;
            *(x->late[i].accept ? &g->accepted : &g->rejected) -= 1;
            ebf_idset_add(&redone, x->late[i].id);
            g->digest -= ebf_mix64(x->late[i].id);
            f->r->l.redecided++;
        }
        node_reset(x);
    }
    ebf_idset_merge(&g->ids, &redone, -1);
    for (int i = 0; i < SIM_LOST_SFC; i++)
        g->lost[i] += s->lost[i];
    g->digest += s->lost_digest;
    ebf_idset_merge(&g->ids, &s->lost_ids, 1);
    sfc_reset(s);
}

/* SFC k's gone incarnations: their decisions of record into the part q
 * at place k, their losses into the part p, their records out of d. */
static void gone_sfc(struct sim_farm *f, uint32_t k, struct ebf_idset *d, uint64_t *digest,
                     struct acct_part *q, struct acct_part *p)
{
    const struct sim_gone *g = &f->sfc[k].fo.gone;

    acct_part_init(q, ACCT_NODE, "nodes", (int)k);
    q->answered = 1;
    q->accepted = g->accepted;
    q->rejected = g->rejected;
    for (int i = 0; i < SIM_LOST_SFC; i++)
        if (g->lost[i])
            acct_part_lost(p, sim_lost_name((enum sim_lost)i), g->lost[i]);
    *digest += g->digest;
    ebf_idset_merge(d, &g->ids, -1);
}

/* A live SFC k: its acks and losses into the part p and the records. */
static void live_sfc(struct sim_farm *f, uint32_t k, struct ebf_idset *d, struct ebf_idset *a,
                     uint64_t *digest, struct acct_part *p)
{
    struct sim_sfc *s = &f->sfc[k];

    p->accepted += s->accepted;
    p->rejected += s->rejected;
    p->incomplete += s->incomplete;
    f->r->l.late_acks += s->late;
    for (int i = 0; i < SIM_LOST_SFC; i++)
        if (s->lost[i])
            acct_part_lost(p, sim_lost_name((enum sim_lost)i), s->lost[i]);
    *digest += s->acked_digest + s->lost_digest;
    ebf_idset_merge(d, &s->acked_ids, -1);
    ebf_idset_merge(d, &s->lost_ids, -1);
    ebf_idset_merge(a, &s->acked_ids, -1);
    ebf_idset_merge(a, &s->late_ids, -1);
    ebf_idset_merge(a, &s->ackdrop_ids, -1);
    f->r->l.replay_acked += s->fo.replay_acked;
    if (f->c->failover)
        sim_fence_terms(f, k, d, digest, p);
    for (uint32_t n = k * f->c->nodes_per_sfc; n < (k + 1) * f->c->nodes_per_sfc; n++)
        ebf_idset_merge(a, &f->node[n].ack_ids, 1);
}

/* The acct totals t into the ledger's counts; dead_ids: the dead SFCs'. */
static void from_totals(struct sim_ledger *l, const struct acct_totals *t, uint64_t dead_ids)
{
    l->accepted = t->accepted;
    l->rejected = t->rejected;
    l->incomplete = t->incomplete;
    l->gone_decided = t->gone_decided;
    for (unsigned i = 0; i < t->n_lost; i++)
        for (int k = 0; k < SIM_LOST_SFC; k++)
            if (!strcmp(t->lost_name[i], sim_lost_name((enum sim_lost)k)))
                l->lost[k] = t->lost_by[i];
    l->lost[SIM_LOST_SFC] = dead_ids >= t->gone_decided ? dead_ids - t->gone_decided : 0;
    l->lost_total = t->lost + l->lost[SIM_LOST_SFC];
}

/* The parts of the farm into p (2 + 2 per dead SFC) and the records;
 * returns the part count; *dead_ids: the dead SFCs' ids. */
static unsigned parts(struct sim_farm *f, struct acct_part *p, struct ebf_idset *d,
                      struct ebf_idset *a, uint64_t *digest, uint64_t *dead_ids)
{
    struct ebf_idset g;
    unsigned n = 2;

    acct_part_init(&p[0], ACCT_READOUT, "readouts", -1);
    p[0].answered = 1;
    p[0].generated = f->next_id;
    p[0].frames = f->r->frames;
    acct_part_init(&p[1], ACCT_SFC, "sfcs", -1);
    p[1].answered = 1;
    for (uint32_t k = 0; k < f->c->sfcs; k++) {
        if (f->c->failover && f->sfc[k].dead)
            sim_ledger_retire(f, k);
        if (!f->sfc[k].dead)
            live_sfc(f, k, d, a, digest, &p[1]);
        if (f->c->failover && f->sfc[k].fo.gone.on) {
            acct_part_init(&p[n++], ACCT_SFC, "sfc", (int)k);
            gone_sfc(f, k, d, digest, &p[n], &p[1]);
            n++;
        }
        if (!f->sfc[k].dead || f->c->failover)
            continue;
        acct_part_init(&p[n++], ACCT_SFC, "sfc", (int)k);
        ebf_idset_init(&g);
        *dead_ids += dead_sfc(f, k, &g, digest, &p[n++]);
        ebf_idset_merge(d, &g, -1);
    }
    return n;
}

void sim_ledger_close(struct sim_farm *f)
{
    struct sim_ledger *l = &f->r->l;
    struct acct_part *p = calloc(2 + 2 * (size_t)f->c->sfcs, sizeof(*p));
    struct acct_totals t;
    struct ebf_idset d, a;
    uint64_t digest = 0, dead_ids = 0;

    if (!p) {
        f->err = -ENOMEM;
        return;
    }
    ebf_idset_init(&d);
    ebf_idset_init(&a);
    ebf_idset_add_range(&d, 0, f->next_id);
    acct_combine(p, parts(f, p, &d, &a, &digest, &dead_ids), &t);
    free(p);
    if (f->c->failover) {        /* sfc_lost: the events no live SFC was left for */
        dead_ids = t.gone_decided + f->ro.lost_no_place;
        digest += f->ro.lost_digest;
        ebf_idset_merge(&d, &f->ro.lost_ids, -1);
    }
    l->generated = t.generated;
    from_totals(l, &t, dead_ids);
    l->digest_match = digest == f->gen_digest;
    l->ids_match = ebf_idset_empty(&d);
    l->nodes_agree = ebf_idset_empty(&a);
    l->unaccounted = (int64_t)(l->generated - (l->accepted + l->rejected + l->lost_total));
    l->closed = l->unaccounted == 0 && l->digest_match && l->ids_match && l->nodes_agree;
}
