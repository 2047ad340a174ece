/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ledger.c - the ledger from final counters: closes by id, or names the ids that differ. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_idset.h"
#include "farm_collect.h"
#include "farm_demo.h"
#include "ledger.h"
#include "summary.h"
#include "test-kv.h"

/*
 * 1000 events generated. The SFC acked 0..999 except 42 and 500, acked 7
 * twice (a bug the counts would hide: 999 acks + 1 lost = 1000) and lost
 * 500. Node 1 was killed, so only the SFC's records count.
 */
static void farm_of(struct farm_result *r, int bug)
{
    struct ebf_idset acked, lost;
    uint64_t acc = 0, rej = 0, dig = 0;

    memset(r, 0, sizeof(*r));
    ebf_idset_init(&acked);
    ebf_idset_init(&lost);
    uint64_t id_digest = 0;
    for (uint64_t id = 0; id < 1000; id++) {
        id_digest += ebf_mix64(id);
        if (id == 500) {
            ebf_idset_add(&lost, id);
            continue;
        }
        if (bug && id == 42)
            continue;
        ebf_idset_add(&acked, id);
        dig += ebf_mix64(id);
        *(id % 10 ? &rej : &acc) += 1;
    }
    if (bug) {
        ebf_idset_add(&acked, 7);
        dig += ebf_mix64(7);
        rej++;
    }
    put(&r->readout, "events", 1000);
    put(&r->readout, "first_event", 0);
    put(&r->readout, "id_digest", id_digest);
    put(&r->sfc, "ack.accept", acc);
    put(&r->sfc, "ack.reject", rej);
    put(&r->sfc, "lost.no_node", 1);
    put(&r->sfc, "lost_digest", ebf_mix64(500));
    put(&r->sfc, "acked_digest", dig);
    put(&r->sfc, "node.declared_dead", 1);
    put_idset(&r->sfc, "ledger.acked", &acked);
    put_idset(&r->sfc, "ledger.lost", &lost);
    r->n_nodes = 1;
    r->nodes_silent = 1;
}

START_TEST(test_ledger_closes_by_id)
{
    struct farm_result r;
    struct ledger l;

    farm_of(&r, 0);
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.generated, 1000);
    ck_assert_uint_eq(l.accepted + l.rejected, 999);
    ck_assert_uint_eq(l.lost_total, 1);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(!l.nodes_reported);
    ck_assert(l.closed);
    farm_result_free(&r);
}
END_TEST

START_TEST(test_ledger_mismatch_lists_ids)
{
    struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char *buf = NULL;
    size_t len = 0;

    farm_of(&r, 1);
    ledger_close(&r, &l);
    ck_assert_int_eq(l.unaccounted, 0);     /* the counts balance... */
    ck_assert(!l.digest_match);             /* ...the ids do not */
    ck_assert(!l.ids_match);
    ck_assert(l.ids_listed);
    ck_assert_uint_eq(l.n_missing, 1);
    ck_assert_uint_eq(l.missing[0], 42);
    ck_assert_uint_eq(l.n_extra, 1);
    ck_assert_uint_eq(l.extra[0], 7);
    ck_assert(!l.closed);

    farm_conf_default(&c);
    FILE *f = open_memstream(&buf, &len);
    summary_text(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "ledger.mismatch: ids generated but in no bucket: 42; "
                              "ids counted twice or never generated: 7") != NULL, "%s", buf);
    free(buf);
    f = open_memstream(&buf, &len);
    summary_json(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "\"mismatch\": {\"missing\": [42], \"extra\": [7], "
                              "\"complete\": true}") != NULL, "%s", buf);
    ck_assert(strstr(buf, "\"closed\": false") != NULL);
    free(buf);
    farm_result_free(&r);
}
END_TEST

/* The storage members of s in an object of their own, as the summary
 * writes it (spaced), into *buf (malloc'd). */
static void store_json_text(const struct ledger_store *s, char **buf)
{
    size_t len = 0;
    FILE *f = open_memstream(buf, &len);
    json_t *o = json_object();

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ledger_store_json(o, s), 0);
    ck_assert_int_eq(jout_write(f, o, JOUT_SPACED), 0);
    fclose(f);
}

/* Storage: node 0 lost 10 of stream 0 to a write error and stored 5 of
 * stream 2; node 1 stored 34; node 2 stores nothing. Balanced against 99
 * accepted at the SFC, not against 100, nor with a stream off by one. */
START_TEST(test_ledger_store)
{
    struct farm_result r;
    struct ledger_store s;
    char *buf = NULL;
    size_t len = 0;

    memset(&r, 0, sizeof(r));
    r.n_nodes = 3;
    put(&r.node[0].kv, "store.on", 1);
    put(&r.node[0].kv, "store.accepted.0", 60);
    put(&r.node[0].kv, "store.events.0", 50);
    put(&r.node[0].kv, "store.lost_stream.0", 10);
    put(&r.node[0].kv, "store.lost.store_failed", 10);
    put(&r.node[0].kv, "store.accepted.2", 5);
    put(&r.node[0].kv, "store.events.2", 5);
    put(&r.node[0].kv, "store.bytes.0", 500000);
    put(&r.node[0].kv, "store.files", 2);
    put(&r.node[0].kv, "store.failed", 1);
    put(&r.node[0].kv, "store.waits", 7);
    put(&r.node[0].kv, "store.backpressure_ns", 250000000);
    put(&r.node[1].kv, "store.on", 1);
    put(&r.node[1].kv, "store.accepted.0", 34);
    put(&r.node[1].kv, "store.events.0", 34);
    put(&r.node[1].kv, "store.bytes.0", 340000);
    put(&r.node[1].kv, "store.files", 1);
    put(&r.node[2].kv, "accepted", 3);
    ledger_store_close(&r, 99, &s);
    ck_assert(s.on && s.balanced);
    ck_assert_uint_eq(s.accepted, 99);
    ck_assert_uint_eq(s.stored, 89);
    ck_assert_uint_eq(s.lost_total, 10);
    ck_assert_uint_eq(s.failed_nodes, 1);
    FILE *f = open_memstream(&buf, &len);
    ledger_store_text(f, &s);
    fclose(f);
    ck_assert_str_eq(buf, "  store    accepted 99 = stored 89 + lost at storage 10 (balanced); 3 "
                          "files, 0.8 MB; back-pressure 0.250 s (7 waits)\n"
                          "           writes 0, p50 0.0 us p99 0.0 us max 0.0 us\n"
                          "           by stream (accepted/stored/lost): 0 94/84/10 2 5/5/0\n"
                          "           lost at storage by reason: store_failed 10; storage "
                          "FAILED on 1 node(s)\n");
    free(buf);
    store_json_text(&s, &buf);
    ck_assert_str_eq(buf, "{\"stored\": 89, \"store\": {\"accepted\": 99, \"stored\": 89, "
                          "\"lost_total\": 10, \"lost\": {\"store_failed\": 10}, \"by_stream\": "
                          "{\"0\": {\"accepted\": 94, \"stored\": 84, \"lost\": 10}, \"2\": "
                          "{\"accepted\": 5, \"stored\": 5, \"lost\": 0}}, \"bytes\": 840000, "
                          "\"files\": 3, \"waits\": 7, \"backpressure_ns\": 250000000, "
                          "\"failed_nodes\": 1, \"write_ns\": {\"count\": 0, \"p50\": 0, "
                          "\"p99\": 0, \"max\": 0}, \"balanced\": true}}\n");
    free(buf);
    ledger_store_close(&r, 100, &s);
    ck_assert(!s.balanced);
    r.node[1].kv.pair[2].val[1] = '3';      /* store.events.0 33: stream 0 short by one */
    ledger_store_close(&r, 98, &s);
    ck_assert_uint_eq(s.accepted, 99);
    ck_assert(!s.balanced);
    farm_result_free(&r);
    memset(&r, 0, sizeof(r));
    r.n_nodes = 1;
    ledger_store_close(&r, 5, &s);
    ck_assert(!s.on);
    store_json_text(&s, &buf);
    ck_assert_str_eq(buf, "{\"stored\": null, \"store\": null}\n");
    free(buf);
}
END_TEST

/* The readout was killed: its counters are gone, so the ledger closes
 * over the ids the SFC saw (0..999, acked or lost) and says from which
 * event on the readout was lost; a duplicate ack still shows. */
START_TEST(test_ledger_readout_gone)
{
    struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char *buf = NULL;
    size_t len = 0;

    farm_conf_default(&c);
    for (int bug = 0; bug < 2; bug++) {
        farm_of(&r, bug);
        ebf_kv_free(&r.readout);
        r.readouts_gone = 1;
        snprintf(r.readout_gone, sizeof(r.readout_gone), "ro0");
        ledger_close(&r, &l);
        ck_assert_uint_eq(l.readouts_gone, 1);
        ck_assert_uint_eq(l.generated, 1000);
        ck_assert_uint_eq(l.accepted + l.rejected + l.lost_total, 1000);
        ck_assert_int_eq(l.closed, !bug);
        ck_assert_int_eq(l.ids_match, !bug);
        ck_assert_int_eq(l.digest_match, !bug);
        if (bug) {
            farm_result_free(&r);
            continue;
        }
        ck_assert_uint_eq(l.id_lo, 0);
        ck_assert_uint_eq(l.gone_from, 1000);
        FILE *f = open_memstream(&buf, &len);
        summary_text(f, &c, &r, &l);
        fclose(f);
        ck_assert_msg(strstr(buf, "  ledger   readout ro0 lost from event 1000 on (1 readout(s) "
                                  "gone, their generated count unknown): closed over what the "
                                  "survivors saw\n           seen 1000 = accepted 99 + rejected "
                                  "900 + lost 1; incomplete 0\n") != NULL, "%s", buf);
        ck_assert_msg(strstr(buf, "\n           CLOSED\n") != NULL, "%s", buf);
        ck_assert_msg(strstr(buf, "\n  readout  ro0 gone: no final counters\n  sfc ") != NULL,
                      "%s", buf);
        free(buf);
        f = open_memstream(&buf, &len);
        summary_json(f, &c, &r, &l);
        fclose(f);
        ck_assert_msg(strstr(buf, "\"ledger\": {\"readout_lost\": {\"name\": \"ro0\", "
                                  "\"from_event\": 1000, \"readouts\": 1}, \"readouts_lost\": "
                                  "[], \"over\": "
                                  "\"survivors\", \"generated\": null, \"seen\": 1000, "
                                  "\"accepted\": 99, \"rejected\": 900,") != NULL, "%s", buf);
        ck_assert(strstr(buf, "\"closed\": true") != NULL);
        ck_assert_msg(strstr(buf, " \"readout\": {\"gone\": \"ro0\", \"readouts_gone\": 1},\n")
                      != NULL, "%s", buf);
        free(buf);
        farm_result_free(&r);
    }
}
END_TEST

/*
 * A farm of 2 readouts (generating 1000 and 990 events), 2 SFCs (events
 * e % 2), 2 nodes (node0 of sfc0, node1 of sfc1). SFC k acked its ids of
 * 0..999 but, with sfc1 gone, sfc0 alone reports: its even ids acked; node1
 * decided the odd ids below 600 (150 accepted).
 */
static void multi_of(struct farm_result *r, int sfc1_gone)
{
    struct ebf_idset acked[2], node[2];
    uint64_t dig[2] = {0, 0}, acc[2] = {0, 0}, rej[2] = {0, 0};

    memset(r, 0, sizeof(*r));
    for (unsigned k = 0; k < 2; k++) {
        ebf_idset_init(&acked[k]);
        ebf_idset_init(&node[k]);
    }
    for (uint64_t id = 0; id < 1000; id++) {
        unsigned k = (unsigned)(id % 2);
        if (sfc1_gone && k == 1 && id >= 600)
            continue;               /* sfc1 died holding these */
        ebf_idset_add(&acked[k], id);
        ebf_idset_add(&node[k], id);
        dig[k] += ebf_mix64(id);
        *(id % 4 == k ? &acc[k] : &rej[k]) += 1;
    }
    uint64_t digest[2] = {0, 0};
    for (uint64_t id = 0; id < 1000; id++)
        digest[0] += ebf_mix64(id);
    for (uint64_t id = 0; id < 990; id++)
        digest[1] += ebf_mix64(id);
    for (unsigned i = 0; i < 2; i++) {
        struct farm_part_result *x = &r->ro[i];
        snprintf(x->name, sizeof(x->name), "ro%u", i);
        x->place = -1;
        put(&x->kv, "events", i ? 990 : 1000);
        put(&x->kv, "first_event", 0);
        put(&x->kv, "id_digest", digest[i]);
        put(&r->readout, "events", i ? 990 : 1000);  /* the summed ones: not the ledger's */
    }
    r->n_ro = 2;
    for (unsigned k = 0; k < 2; k++) {
        struct farm_part_result *x = &r->sfcs[k];
        struct farm_node_result *n = &r->node[k];
        snprintf(x->name, sizeof(x->name), "sfc%u", k);
        x->place = (int)k;
        snprintf(n->name, sizeof(n->name), "node%u", k);
        r->node_place[k] = (int)k;
        put(&n->kv, "events", acc[k] + rej[k]);
        put(&n->kv, "accepted", acc[k]);
        put(&n->kv, "rejected", rej[k]);
        put_idset(&n->kv, "ledger.acks", &node[k]);
        if (sfc1_gone && k == 1) {
            x->gone = 1;
            r->sfcs_gone = 1;
        }
    }
    /* the SFCs' summed counters */
    unsigned live = sfc1_gone ? 1 : 2;
    put(&r->sfc, "ack.accept", acc[0] + (live > 1 ? acc[1] : 0));
    put(&r->sfc, "ack.reject", rej[0] + (live > 1 ? rej[1] : 0));
    put(&r->sfc, "acked_digest", dig[0] + (live > 1 ? dig[1] : 0));
    r->n_sfcs = 2;
    r->n_places = 2;
    r->n_nodes = 2;
    /* the SFCs' summed id records */
    struct ebf_idset all = acked[0];
    if (!sfc1_gone)
        ebf_idset_merge(&all, &acked[1], 1);
    put_idset(&r->sfc, "ledger.acked", &all);
    ebf_idset_init(&all);
    put_idset(&r->sfc, "ledger.lost", &all);
    put_idset(&r->sfc, "ledger.late", &all);
}

/* Several readouts each generate the same ids: the ledger takes the
 * longest range once, not the sum of their events. */
START_TEST(test_ledger_several_readouts)
{
    struct farm_result r;
    struct ledger l;

    multi_of(&r, 0);
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.generated, 1000);
    ck_assert_uint_eq(l.accepted + l.rejected, 1000);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert(l.withheld_agree);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.nodes_agree);
    ck_assert(l.closed);
    farm_result_free(&r);
}
END_TEST

/* sfc1 gone: its ids (the odd ones) are decided where node1's own counters
 * say (300, the odd ids below 600) and sfc_lost otherwise (200); the id
 * records of the survivor are checked against the even ids alone. */
START_TEST(test_ledger_sfc_gone)
{
    struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char *buf = NULL;
    size_t len = 0;

    multi_of(&r, 1);
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.generated, 1000);
    ck_assert_uint_eq(l.sfcs_gone, 1);
    ck_assert_str_eq(l.sfc_gone, "sfc1");
    ck_assert_uint_eq(l.gone_decided, 300);
    ck_assert_uint_eq(l.sfc_lost, 200);
    ck_assert_uint_eq(l.lost_total, 200);
    ck_assert_uint_eq(l.accepted + l.rejected, 800);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.nodes_agree);           /* node0 against sfc0 only */
    ck_assert(l.closed);
    farm_conf_default(&c);
    FILE *f = open_memstream(&buf, &len);
    summary_json(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "\"ledger\": {\"generated\": 1000, \"sfc_gone\": {\"name\": "
                              "\"sfc1\", \"sfcs\": 1, \"decided_by_its_nodes\": 300, "
                              "\"sfc_lost\": 200}, ") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "\"lost\": {\"sfc_lost\": 200}") != NULL, "%s", buf);
    free(buf);
    /* one ack more at the survivor than its ids: unaccounted, not closed */
    for (unsigned i = 0; i < r.sfc.n; i++)
        if (strcmp(r.sfc.pair[i].key, "ack.accept") == 0)
            snprintf(r.sfc.pair[i].val, sizeof(r.sfc.pair[i].val), "%llu",
                     strtoull(r.sfc.pair[i].val, NULL, 10) + 1);
    ledger_close(&r, &l);
    ck_assert_int_eq(l.unaccounted, -1);
    ck_assert(!l.closed);
    farm_result_free(&r);
}
END_TEST

/* Two readouts gone: each named with 1 + the highest id an SFC heard from
 * its sources. */
START_TEST(test_ledger_readouts_gone_named)
{
    struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char *buf = NULL;
    size_t len = 0;

    multi_of(&r, 0);
    r.n_ro = 3;
    snprintf(r.ro[2].name, sizeof(r.ro[2].name), "ro2");
    for (unsigned i = 0; i < 3; i++) {
        r.ro[i].first_source = (uint16_t)(2 * i);
        r.ro[i].n_sources = 2;
    }
    r.ro[1].gone = r.ro[2].gone = 1;
    r.readouts_gone = 2;
    snprintf(r.readout_gone, sizeof(r.readout_gone), "ro1");
    put(&r.sfcs[0].kv, "source.next_event.2", 400);
    put(&r.sfcs[1].kv, "source.next_event.3", 401);
    put(&r.sfcs[0].kv, "source.next_event.4", 700);
    put(&r.sfcs[1].kv, "source.next_event.5", 699);
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.n_ro_lost, 2);
    ck_assert_str_eq(l.ro_lost[0], "ro1");
    ck_assert_uint_eq(l.ro_lost_from[0], 401);
    ck_assert_str_eq(l.ro_lost[1], "ro2");
    ck_assert_uint_eq(l.ro_lost_from[1], 700);
    ck_assert(l.closed);
    farm_conf_default(&c);
    FILE *f = open_memstream(&buf, &len);
    summary_text(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "  ledger   readout ro1 lost from event 401 on, readout ro2 lost "
                              "from event 700 on (2 readout(s) gone, their generated count "
                              "unknown): closed over what the survivors saw\n") != NULL, "%s", buf);
    free(buf);
    f = open_memstream(&buf, &len);
    summary_json(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "\"readouts_lost\": [{\"name\": \"ro1\", \"from_event\": 401}, "
                              "{\"name\": \"ro2\", \"from_event\": 700}]") != NULL, "%s", buf);
    free(buf);
    farm_result_free(&r);
}
END_TEST

Suite *ledger_suite(void);

Suite *ledger_suite(void)
{
    Suite *s = suite_create("summary");
    TCase *tc = tcase_create("summary");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_ledger_closes_by_id);
    tcase_add_test(tc, test_ledger_mismatch_lists_ids);
    tcase_add_test(tc, test_ledger_readout_gone);
    tcase_add_test(tc, test_ledger_several_readouts);
    tcase_add_test(tc, test_ledger_sfc_gone);
    tcase_add_test(tc, test_ledger_readouts_gone_named);
    tcase_add_test(tc, test_ledger_store);
    suite_add_tcase(s, tc);
    return s;
}
