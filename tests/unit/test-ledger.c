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

static void put(struct ebf_kv *kv, const char *key, uint64_t v)
{
    kv->pair = realloc(kv->pair, (kv->n + 1) * sizeof(kv->pair[0]));
    ck_assert_ptr_nonnull(kv->pair);
    snprintf(kv->pair[kv->n].key, sizeof(kv->pair[0].key), "%s", key);
    snprintf(kv->pair[kv->n].val, sizeof(kv->pair[0].val), "%llu", (unsigned long long)v);
    kv->n++;
}

static void put_idset(struct ebf_kv *kv, const char *prefix, const struct ebf_idset *r)
{
    char key[96];
    for (unsigned c = 0; c < EBF_IDSET_CELLS; c++) {
        snprintf(key, sizeof(key), "%s.count.%u", prefix, c);
        put(kv, key, r->count[c]);
        snprintf(key, sizeof(key), "%s.id_sum.%u", prefix, c);
        put(kv, key, r->id_sum[c]);
        snprintf(key, sizeof(key), "%s.hash_sum.%u", prefix, c);
        put(kv, key, r->hash_sum[c]);
    }
}

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
    f = open_memstream(&buf, &len);
    ledger_store_json(f, &s);
    fclose(f);
    ck_assert_str_eq(buf, ", \"stored\": 89, \"store\": {\"accepted\": 99, \"stored\": 89, "
                          "\"lost_total\": 10, \"lost\": {\"store_failed\": 10}, \"by_stream\": "
                          "{\"0\": {\"accepted\": 94, \"stored\": 84, \"lost\": 10}, \"2\": "
                          "{\"accepted\": 5, \"stored\": 5, \"lost\": 0}}, \"bytes\": 840000, "
                          "\"files\": 3, \"waits\": 7, \"backpressure_ns\": 250000000, "
                          "\"failed_nodes\": 1, \"write_ns\": {\"count\": 0, \"p50\": 0, "
                          "\"p99\": 0, \"max\": 0}, \"balanced\": true}");
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
    f = open_memstream(&buf, &len);
    ledger_store_json(f, &s);
    fclose(f);
    ck_assert_str_eq(buf, ", \"stored\": null, \"store\": null");
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
                                  "\"from_event\": 1000, \"readouts\": 1}, \"over\": "
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

Suite *ledger_suite(void);

Suite *ledger_suite(void)
{
    Suite *s = suite_create("summary");
    TCase *tc = tcase_create("summary");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_ledger_closes_by_id);
    tcase_add_test(tc, test_ledger_mismatch_lists_ids);
    tcase_add_test(tc, test_ledger_readout_gone);
    tcase_add_test(tc, test_ledger_store);
    suite_add_tcase(s, tc);
    return s;
}
