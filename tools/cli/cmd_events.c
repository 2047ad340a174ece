/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_events.c - ebfarm events verify|dump|stats FILE...: read the nodes' event storage files (docs/storage.md). */
#include "cmd_events.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_pattern.h"
#include "ebf_store_dup.h"
#include "ebf_store_read.h"
#include "jsonout.h"

#define EV "ebfarm events"
#define STREAMS 65536
#define SOURCES EBF_STORE_MAX_SOURCES

struct ev_opts {
    int json, ids, pattern;
    unsigned bytes;              /* dump: fragment bytes shown in hex */
};

/* What stats counts, over every file. */
struct ev_stats {
    uint64_t files, whole, cut, damaged;
    uint64_t events, incomplete, record_bytes, payload_bytes;
    uint64_t *stream;            /* STREAMS entries */
    uint64_t present[SOURCES], missing[SOURCES], src_bytes[SOURCES];
    struct ebf_store_dups dups;  /* every record's id: copies across files */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ebfarm events verify|dump|stats [options] FILE...\n"
            "  read the event files that trigger nodes store (docs/storage.md)\n"
            "  verify   check every record (CRC32C, fragments), the trailer and its index,\n"
            "           a line per file and the total of events; exit 1 when a file is\n"
            "           damaged or cut short\n"
            "  dump     print each event: file, id, flags, sources present and missing,\n"
            "           fragment lengths\n"
            "  stats    count events and bytes, by stream and by source (present, missing)\n"
            "options:\n"
            "  --json      stats: one JSON object\n"
            "  --ids       dump: only the event ids, one a line\n"
            "  --bytes N   dump: the first N bytes of every fragment in hex (0)\n"
            "  --pattern   verify: also check every fragment byte against the emulated\n"
            "              readout's pattern (proto/ebf_pattern.h)\n");
}

/* A record's fragments against the pattern: 0, or -1 with err set. */
static int check_pattern(const struct ebf_store_rec *r, char *err, size_t len)
{
    struct ebf_store_frag f;
    size_t pos = 0;

    while (ebf_store_frag_next(r, &pos, &f)) {
        long bad = ebf_pattern_check(f.data, f.len, f.source,
                                     ebf_pattern_id(r->event_id, f.flags), 0);
        if (bad >= 0) {
            snprintf(err, len, "event %" PRIu64 ": source %u byte %ld is not the readout's "
                     "pattern", r->event_id, f.source, bad);
            return -1;
        }
    }
    return 0;
}

/* The trailer's index against the records read: same count, ids, offsets.
 * ids/offs: the records in file order. */
static int check_index(const struct ebf_store_file *f, const uint64_t *ids, const uint64_t *offs,
                       uint64_t n, char *err, size_t len)
{
    if (f->trl.n_records != n) {
        snprintf(err, len, "the trailer lists %" PRIu64 " records, the file holds %" PRIu64,
                 f->trl.n_records, n);
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        struct ebf_store_idx x = ebf_store_trailer_idx(&f->trl, i);
        if (x.event_id != ids[i] || x.offset != offs[i]) {
            snprintf(err, len, "index entry %" PRIu64 ": event %" PRIu64 " at %" PRIu64
                     ", the record there is event %" PRIu64 " at %" PRIu64, i, x.event_id,
                     x.offset, ids[i], offs[i]);
            return -1;
        }
    }
    return 0;
}

/* Verify one file (its events counted into *events, their ids noted in
 * dups); 0 when whole and sound. */
static int verify_file(const char *path, const struct ev_opts *o, uint64_t *events,
                       struct ebf_store_dups *dups)
{
    struct ebf_store_file f;
    struct ebf_store_rec r;
    char err[512];
    uint64_t cap = 1024, n = 0, bad = 0;
    int rc;

    if (ebf_store_open(&f, path, err, sizeof(err))) {
        printf("%s\n", err);
        return 1;
    }
    uint64_t *ids = malloc(cap * sizeof(*ids)), *offs = malloc(cap * sizeof(*offs));
    while (ids && offs && (rc = ebf_store_next(&f, &r, err, sizeof(err))) != 0) {
        if (rc < 0 || (o->pattern && check_pattern(&r, err, sizeof(err)))) {
            printf("%s: %s\n", path, err);
            bad++;
            continue;
        }
        if (n == cap) {
            cap *= 2;
            uint64_t *a = realloc(ids, cap * sizeof(*ids));
            if (a)
                ids = a;
            uint64_t *b = a ? realloc(offs, cap * sizeof(*offs)) : NULL;
            if (b)
                offs = b;
            if (!a || !b) {
                printf("%s: out of memory for the index of %" PRIu64 " records\n", path, n);
                bad++;
                break;
            }
        }
        ids[n] = r.event_id;
        offs[n++] = ebf_store_last_offset(&f, &r);
        if (ebf_store_dups_add(dups, r.event_id, r.flags)) {
            printf("%s: out of memory for the ids of %" PRIu64 " records\n", path, n);
            bad++;
            break;
        }
    }
    int status = bad != 0 || !ids || !offs;
    if (f.truncated) {
        printf("%s: %s\n", path, err);
        status = 1;
    } else if (f.trl_err != EBF_STORE_E_OK) {
        printf("%s: %s\n", path, f.trl_why);
        status = 1;
    } else if (!bad && ids && offs && check_index(&f, ids, offs, n, err, sizeof(err))) {
        printf("%s: %s\n", path, err);
        status = 1;
    }
    printf("%s: %s: run %" PRIu32 " node %u stream %u file %" PRIu32 ", %" PRIu64
           " events%s\n", path, status ? "BAD" : "ok", f.hdr.run, f.hdr.node, f.hdr.stream,
           f.hdr.seq, n, f.truncated ? " (cut short)" : "");
    *events += n;
    free(ids);
    free(offs);
    ebf_store_close(&f);
    return status;
}

static void dump_record(const char *path, const struct ebf_store_rec *r, const struct ev_opts *o)
{
    struct ebf_store_frag g;
    size_t pos = 0;

    if (o->ids) {
        printf("%" PRIu64 "\n", r->event_id);
        return;
    }
    printf("%s event %" PRIu64 " flags 0x%04x sources %u missing", path, r->event_id, r->flags,
           r->n_sources);
    unsigned missing = 0;
    for (unsigned s = 0; s < r->n_sources; s++)
        if (!(r->present[s / 64] >> (s % 64) & 1u)) {
            printf(" %u", s);
            missing++;
        }
    printf("%s fragments", missing ? "" : " none");
    while (ebf_store_frag_next(r, &pos, &g)) {
        printf(" %u:%" PRIu32, g.source, g.len);
        if (o->bytes) {
            printf("[");
            for (uint32_t i = 0; i < g.len && i < o->bytes; i++)
                printf("%02x", g.data[i]);
            printf("]");
        }
    }
    printf("\n");
}

static void stats_record(struct ev_stats *st, const struct ebf_store_file *f,
                         const struct ebf_store_rec *r)
{
    struct ebf_store_frag g;
    size_t pos = 0;

    st->events++;
    st->incomplete += (r->flags & EBF_STORE_REC_INCOMPLETE) != 0;
    if (ebf_store_dups_add(&st->dups, r->event_id, r->flags))
        st->damaged++;          /* out of memory: the counts below are short */
    st->record_bytes += r->len;
    st->stream[f->hdr.stream]++;
    for (unsigned s = 0; s < r->n_sources; s++)
        if (!(r->present[s / 64] >> (s % 64) & 1u))
            st->missing[s]++;
    while (ebf_store_frag_next(r, &pos, &g)) {
        st->present[g.source]++;
        st->src_bytes[g.source] += g.len;
        st->payload_bytes += g.len;
    }
}

/* Dump or count one file's readable records; 0, or 1 when it is damaged
 * or cut short (said on stderr). */
static int read_file(const char *path, int dump, struct ev_stats *st, const struct ev_opts *o)
{
    struct ebf_store_file f;
    struct ebf_store_rec r;
    char err[512];
    int rc, status = 0;

    if (ebf_store_open(&f, path, err, sizeof(err))) {
        fprintf(stderr, EV ": %s\n", err);
        st->damaged++;
        return 1;
    }
    while ((rc = ebf_store_next(&f, &r, err, sizeof(err))) != 0) {
        if (rc < 0) {
            fprintf(stderr, EV ": %s: %s\n", path, err);
            status = 1;
        } else if (dump) {
            dump_record(path, &r, o);
        } else {
            stats_record(st, &f, &r);
        }
    }
    if (f.truncated)
        fprintf(stderr, EV ": %s: %s\n", path, err);
    st->files++;
    st->cut += f.truncated || f.trl_err == EBF_STORE_E_SHORT;
    st->damaged += status;
    st->whole += !f.truncated && !status && f.trl_err == EBF_STORE_E_OK;
    ebf_store_close(&f);
    return status || f.truncated || f.trl_err != EBF_STORE_E_OK;
}

/* {"N": {"present": N, "missing": N, "bytes": N}, ...} of the sources seen. */
static json_t *sources_json(const struct ev_stats *st)
{
    json_t *o = json_object();
    char k[16];

    for (unsigned s = 0; o && s < SOURCES; s++) {
        if (!st->present[s] && !st->missing[s])
            continue;
        snprintf(k, sizeof(k), "%u", s);
        if (jout_set(o, k, json_pack("{s:o, s:o, s:o}", "present", jout_u64(st->present[s]),
                                     "missing", jout_u64(st->missing[s]), "bytes",
                                     jout_u64(st->src_bytes[s]))) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* The copies line of verify and stats, said only when a record is marked
 * replayed or an id is stored more than once (docs/storage.md, "Copies");
 * 1 when some id is stored twice with neither copy marked. */
static int dups_text(struct ebf_store_dups *dups)
{
    struct ebf_store_dup_count d;

    ebf_store_dups_count(dups, &d);
    if (!d.replayed && d.records == d.distinct)
        return 0;
    printf("replayed %" PRIu64 " records; events %" PRIu64 " once each: %" PRIu64
           " replayed copies dropped", d.replayed, d.distinct, d.dropped);
    if (d.unmarked)
        printf(", %" PRIu64 " copies stored twice unmarked (first: event %" PRIu64 ")",
               d.unmarked, d.first_unmarked);
    printf("\n");
    return d.unmarked != 0;
}

/* stats as one JSON object (python/ebfarm_events.py prints the same). */
static json_t *stats_json(struct ev_stats *st)
{
    json_t *streams = json_object();
    char k[16];

    for (unsigned i = 0; streams && i < STREAMS; i++) {
        if (!st->stream[i])
            continue;
        snprintf(k, sizeof(k), "%u", i);
        if (jout_set(streams, k, jout_u64(st->stream[i])) != 0) {
            json_decref(streams);
            return NULL;
        }
    }
    struct ebf_store_dup_count d;
    ebf_store_dups_count(&st->dups, &d);
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "replayed", jout_u64(d.replayed), "distinct_events", jout_u64(d.distinct),
                     "dropped_copies", jout_u64(d.dropped), "unmarked_copies",
                     jout_u64(d.unmarked), "files",
                     jout_u64(st->files), "whole", jout_u64(st->whole), "cut_short",
                     jout_u64(st->cut), "damaged", jout_u64(st->damaged), "events",
                     jout_u64(st->events), "incomplete", jout_u64(st->incomplete),
                     "record_bytes", jout_u64(st->record_bytes), "payload_bytes",
                     jout_u64(st->payload_bytes), "streams", streams, "sources",
                     sources_json(st));
}

static void stats_print(struct ev_stats *st, int json)
{
    if (json) {
        if (jout_write(stdout, stats_json(st), JOUT_SPACED) != 0)
            fprintf(stderr, EV ": the JSON could not be written\n");
        return;
    }
    dups_text(&st->dups);
    printf("files %" PRIu64 " (%" PRIu64 " whole, %" PRIu64 " cut short, %" PRIu64
           " damaged)\nevents %" PRIu64 " (%" PRIu64 " incomplete), record bytes %" PRIu64
           ", payload bytes %" PRIu64 "\nby stream:", st->files, st->whole, st->cut, st->damaged,
           st->events, st->incomplete, st->record_bytes, st->payload_bytes);
    for (unsigned k = 0; k < STREAMS; k++)
        if (st->stream[k])
            printf(" %u %" PRIu64, k, st->stream[k]);
    printf("\nsource   present   missing   payload bytes\n");
    for (unsigned s = 0; s < SOURCES; s++)
        if (st->present[s] || st->missing[s])
            printf("%6u %9" PRIu64 " %9" PRIu64 " %15" PRIu64 "\n", s, st->present[s],
                   st->missing[s], st->src_bytes[s]);
}

/* Options after the action; returns optind, or -1 (usage said). */
static int parse(int argc, char **argv, struct ev_opts *o)
{
    static const struct option lo[] = {
        {"json", 0, 0, 'j'}, {"ids", 0, 0, 'i'}, {"bytes", 1, 0, 'b'},
        {"pattern", 0, 0, 'p'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    int ch;
    char *end;

    optind = 1;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'j': o->json = 1; break;
        case 'i': o->ids = 1; break;
        case 'p': o->pattern = 1; break;
        case 'b':
            o->bytes = (unsigned)strtoul(optarg, &end, 10);
            if (*end || !*optarg || o->bytes > 65536) {
                fprintf(stderr, EV ": --bytes %s: not a count in 0..65536\n", optarg);
                return -1;
            }
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    return optind;
}

int cmd_events(int argc, char **argv)
{
    struct ev_opts o = {0};
    struct ev_stats st = {0};
    int status = 0;

    if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (argc < 2 || (strcmp(argv[1], "verify") && strcmp(argv[1], "dump") &&
                     strcmp(argv[1], "stats"))) {
        usage(stderr);
        return 2;
    }
    const char *act = argv[1];
    int first = parse(argc - 1, argv + 1, &o);
    if (first < 0)
        return 2;
    first += 1;
    if (first >= argc) {
        fprintf(stderr, EV " %s: no FILE given\n", act);
        return 2;
    }
    st.stream = calloc(STREAMS, sizeof(st.stream[0]));
    if (!st.stream)
        return 1;
    unsigned bad = 0;
    for (int i = first; i < argc; i++) {
        if (strcmp(act, "verify") == 0) {
            int rc = verify_file(argv[i], &o, &st.events, &st.dups);
            bad += rc != 0;
            status |= rc;
        } else {
            status |= read_file(argv[i], strcmp(act, "dump") == 0, &st, &o);
        }
    }
    if (strcmp(act, "verify") == 0)
        status |= dups_text(&st.dups);
    if (strcmp(act, "verify") == 0)
        printf("files %d: %d ok, %u bad; events %" PRIu64 "\n", argc - first,
               argc - first - (int)bad, bad, st.events);
    if (strcmp(act, "stats") == 0)
        stats_print(&st, o.json);
    free(st.stream);
    ebf_store_dups_free(&st.dups);
    return status;
}
