/* SPDX-License-Identifier: BSD-3-Clause */
/* conform.c - a board's frames judged against docs/protocol.md: the SFC's receive rules per frame, source bindings, sequences and pacing per source, a verdict. */
#include "conform.h"

#include <inttypes.h>
#include <string.h>

#include "sfc_stats.h"

static const char *const rule_names[CR_COUNT] = {
    [CR_ENCAP] = "encapsulation", [CR_TYPE] = "frame_type", [CR_HEADER] = "fragment_header",
    [CR_CRC] = "crc", [CR_SIZE] = "size", [CR_UNICAST] = "unicast", [CR_DEST] = "destination",
    [CR_BINDING] = "source_mac", [CR_SEQ] = "sequence", [CR_FRAG_LEN] = "frag_len",
    [CR_OVERLAP] = "overlap",
};

const char *conform_rule_name(enum conform_rule r)
{
    return r < CR_COUNT ? rule_names[r] : "?";
}

void conform_init(struct conform *c, uint16_t n_sources, uint16_t mtu, const uint8_t *mac,
                  uint16_t udp_port)
{
    struct sfc_guard_conf gc = {0};

    memset(c, 0, sizeof(*c));
    c->jc = (struct sfc_judge_conf){.n_sources = n_sources, .udp_port = udp_port, .mtu = mtu,
                                    .check_crc = 1};
    c->have_mac = mac != NULL;
    if (mac)
        memcpy(c->jc.mac, mac, 6);
    sfc_guard_init(&c->guard, &gc);
}

/* Frame n reached rules 0..last (enum conform_rule); rule bad (CR_COUNT:
 * none) it broke, under reason idx of conform_rule_stats.reasons (-1: none). */
static void tally(struct conform *c, uint64_t n, enum conform_rule last, enum conform_rule bad,
                  int idx)
{
    for (unsigned r = 0; r <= last && r < CR_COUNT; r++)
        c->rule[r].checked++;
    if (bad == CR_COUNT)
        return;
    struct conform_rule_stats *s = &c->rule[bad];
    if (s->deviations < CONFORM_FIRST)
        s->first[s->deviations] = n;
    s->deviations++;
    if (idx >= 0)
        s->reasons[idx]++;
}

/* Bytes [off, end) of s's fragment into its ranges: 1 when a byte of them
 * is in a range already (an overlap, rx.drop.duplicate at the SFC). A
 * piece that continues a range extends it; past CONFORM_COVER ranges the
 * fragment is no longer checked (never a false deviation). */
static int cover_add(struct conform_source *s, uint32_t off, uint32_t end)
{
    if (s->n_cover > CONFORM_COVER)
        return 0;
    for (unsigned i = 0; i < s->n_cover; i++)
        if (off < s->cover[i][1] && s->cover[i][0] < end)
            return 1;
    for (unsigned i = 0; i < s->n_cover; i++)
        if (s->cover[i][1] == off) {
            s->cover[i][1] = end;
            return 0;
        }
    if (s->n_cover == CONFORM_COVER) {
        s->n_cover++;
        return 0;
    }
    s->cover[s->n_cover][0] = off;
    s->cover[s->n_cover++][1] = end;
    return 0;
}

/* Source binding, sequence, frag_len, overlap and pacing of a frame that
 * passed the frame rules (2 to 8). */
static void per_source(struct conform *c, uint64_t n, const struct ebf_l2l3 *l,
                       const struct ebf_frag_hdr *h, uint32_t len, uint64_t ns)
{
    struct conform_source *s = &c->src[h->source];
    struct sfc_seq_stats before = c->seq;

    if (s->seen && memcmp(s->mac, l->src_mac, 6) != 0) {
        tally(c, n, CR_BINDING, CR_BINDING, EBF_R_MAX + SFC_DROP_SOURCE_SPOOFED);
        return;
    }
    if (!s->seen) {
        memcpy(s->mac, l->src_mac, 6);
        s->first_ns = ns;
        s->last_event = h->event_id + 1;    /* differs: counted below */
    } else if (ns >= s->last_ns && ns - s->last_ns > s->max_gap_ns) {
        s->max_gap_ns = ns - s->last_ns;
    }
    s->seen = 1;
    s->frames++;
    s->bytes += len;
    s->last_ns = ns;
    sfc_guard_seq(&c->guard, &c->seq, h->source, h->seq);
    int seq_bad = memcmp(&before, &c->seq, sizeof(before)) != 0;
    int len_bad = s->last_event == h->event_id && s->frag_len != h->frag_len;
    if (s->last_event != h->event_id) {
        s->events++;
        s->last_event = h->event_id;
        s->frag_len = h->frag_len;
        s->n_cover = 0;
    }
    int ov_bad = !len_bad && cover_add(s, h->offset, h->offset + h->piece_len);
    enum conform_rule bad = seq_bad ? CR_SEQ : len_bad ? CR_FRAG_LEN
                            : ov_bad ? CR_OVERLAP : CR_COUNT;
    tally(c, n, CR_OVERLAP, bad, bad == CR_SEQ ? -1 : bad == CR_FRAG_LEN
                                  ? EBF_R_MAX + SFC_DROP_LEN_MISMATCH
                                  : EBF_R_MAX + SFC_DROP_DUPLICATE);
}

void conform_frame(struct conform *c, uint64_t n, const uint8_t *p, uint32_t len, uint64_t ns)
{
    struct ebf_l2l3 l;
    struct ebf_frag_hdr h;
    struct sfc_judge_conf jc = c->jc;

    c->frames++;
    if (!c->have_mac && len >= 6)
        memcpy(jc.mac, p, 6);    /* no --sfc-mac: any unicast destination */
    struct sfc_verdict v = sfc_guard_judge(&jc, p, len, &l, &h);
    if (v.reject == EBF_R_NOT_EBFARM) {
        c->other++;              /* ARP, LLDP, IPv6: not the protocol's */
        return;
    }
    if (v.drop == SFC_DROP_WRONG_TYPE && l.type == EBF_T_THROTTLE) {
        c->from_sfc++;           /* the SFC's throttle frames in the same capture */
        return;
    }
    if (v.rule == 0) {
        per_source(c, n, &l, &h, len, ns);
        return;
    }
    enum conform_rule bad = (enum conform_rule)(v.rule - 2);
    tally(c, n, bad, bad, v.reject != EBF_R_OK ? (int)v.reject : EBF_R_MAX + (int)v.drop);
}

int conform_passed(const struct conform *c)
{
    uint64_t dev = 0;

    for (unsigned r = 0; r < CR_COUNT; r++)
        dev += c->rule[r].deviations;
    return dev == 0 && c->rule[CR_ENCAP].checked > 0;
}

/* The reasons of rule s as "name count" pairs, comma separated. */
static void reasons(const struct conform_rule_stats *s, FILE *out, int json)
{
    int any = 0;

    for (unsigned i = 0; i < EBF_R_MAX + SFC_DROP_MAX; i++) {
        if (!s->reasons[i])
            continue;
        const char *name = i < EBF_R_MAX ? ebf_reason_name((enum ebf_reason)i)
                                         : sfc_drop_name((enum sfc_drop)(i - EBF_R_MAX));
        const char *kind = i < EBF_R_MAX ? "rx.reject" : "rx.drop";
        if (json)
            fprintf(out, "%s\"%s.%s\":%" PRIu64, any ? "," : "", kind, name, s->reasons[i]);
        else
            fprintf(out, "%s%s.%s %" PRIu64, any ? ", " : "", kind, name, s->reasons[i]);
        any = 1;
    }
}

static void first_frames(const struct conform_rule_stats *s, FILE *out, const char *sep)
{
    uint64_t k = s->deviations < CONFORM_FIRST ? s->deviations : CONFORM_FIRST;

    for (uint64_t i = 0; i < k; i++)
        fprintf(out, "%s%" PRIu64, i ? sep : "", s->first[i]);
}

/* Frames per second and Gb/s of source s over its capture time. */
static void rates(const struct conform_source *s, double *fps, double *gbps, double *gap_us)
{
    double t = s->last_ns > s->first_ns ? (double)(s->last_ns - s->first_ns) / 1e9 : 0;

    *fps = t > 0 ? (double)(s->frames - 1) / t : 0;
    *gbps = t > 0 ? (double)s->bytes * 8 / t / 1e9 : 0;
    *gap_us = (double)s->max_gap_ns / 1e3;
}

static void report_text(const struct conform *c, FILE *out)
{
    fprintf(out, "%" PRIu64 " frames: %" PRIu64 " not ebfarm, %" PRIu64
            " throttle frames of the SFC (both not judged)\n\n", c->frames, c->other, c->from_sfc);
    fprintf(out, "%-16s %10s %10s  %-28s %s\n", "rule", "checked", "deviations", "first frames",
            "reasons");
    for (unsigned r = 0; r < CR_COUNT; r++) {
        const struct conform_rule_stats *s = &c->rule[r];
        fprintf(out, "%-16s %10" PRIu64 " %10" PRIu64 "  ", rule_names[r], s->checked,
                s->deviations);
        char buf[64] = "";
        FILE *m = fmemopen(buf, sizeof(buf), "w");
        if (m) {
            first_frames(s, m, ",");
            fclose(m);
        }
        fprintf(out, "%-28s ", buf);
        reasons(s, out, 0);
        fputc('\n', out);
    }
    fprintf(out, "\n%-6s %-17s %10s %8s %12s %6s %7s %5s %6s %12s %7s %10s\n", "source", "mac",
            "frames", "events", "bytes", "gap", "reorder", "dup", "resync", "frames/s", "Gb/s",
            "max gap us");
    for (unsigned i = 0; i < EBF_MAX_SOURCES; i++) {
        const struct conform_source *s = &c->src[i];
        double fps, gbps, gap;
        if (!s->seen)
            continue;
        rates(s, &fps, &gbps, &gap);
        fprintf(out, "%-6u %02x:%02x:%02x:%02x:%02x:%02x %10" PRIu64 " %8" PRIu64 " %12" PRIu64
                " %6" PRIu64 " %7" PRIu64 " %5" PRIu64 " %6" PRIu64 " %12.0f %7.3f %10.1f\n", i,
                s->mac[0], s->mac[1], s->mac[2], s->mac[3], s->mac[4], s->mac[5], s->frames,
                s->events, s->bytes, c->seq.gap[i], c->seq.reorder[i], c->seq.dup[i],
                c->seq.resync[i], fps, gbps, gap);
    }
    fprintf(out, "\nverdict: %s", conform_passed(c) ? "PASS" : "FAIL");
    int any = 0;
    for (unsigned r = 0; r < CR_COUNT; r++)
        if (c->rule[r].deviations) {
            fprintf(out, "%s%s", any ? ", " : " (rules broken: ", rule_names[r]);
            any = 1;
        }
    if (!any && !conform_passed(c))
        fprintf(out, " (no fragment frame in the capture)");
    fprintf(out, "%s\n", any ? ")" : "");
}

static void report_json(const struct conform *c, FILE *out)
{
    fprintf(out, "{\"frames\":%" PRIu64 ",\"not_ebfarm\":%" PRIu64 ",\"throttle_frames\":%" PRIu64
            ",\"rules\":[", c->frames, c->other, c->from_sfc);
    for (unsigned r = 0; r < CR_COUNT; r++) {
        const struct conform_rule_stats *s = &c->rule[r];
        fprintf(out, "%s{\"rule\":\"%s\",\"checked\":%" PRIu64 ",\"deviations\":%" PRIu64
                ",\"first_frames\":[", r ? "," : "", rule_names[r], s->checked, s->deviations);
        first_frames(s, out, ",");
        fprintf(out, "],\"reasons\":{");
        reasons(s, out, 1);
        fprintf(out, "}}");
    }
    fprintf(out, "],\"sources\":[");
    int any = 0;
    for (unsigned i = 0; i < EBF_MAX_SOURCES; i++) {
        const struct conform_source *s = &c->src[i];
        double fps, gbps, gap;
        if (!s->seen)
            continue;
        rates(s, &fps, &gbps, &gap);
        fprintf(out, "%s{\"source\":%u,\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\",\"frames\":%"
                PRIu64 ",\"events\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"seq_gap\":%" PRIu64
                ",\"seq_reorder\":%" PRIu64 ",\"seq_dup\":%" PRIu64 ",\"seq_resync\":%" PRIu64
                ",\"frames_per_s\":%.1f,\"gbps\":%.4f,\"max_gap_us\":%.1f}", any ? "," : "", i,
                s->mac[0], s->mac[1], s->mac[2], s->mac[3], s->mac[4], s->mac[5], s->frames,
                s->events, s->bytes, c->seq.gap[i], c->seq.reorder[i], c->seq.dup[i],
                c->seq.resync[i], fps, gbps, gap);
        any = 1;
    }
    fprintf(out, "],\"verdict\":\"%s\"}\n", conform_passed(c) ? "pass" : "fail");
}

void conform_report(const struct conform *c, FILE *out, int json)
{
    if (json)
        report_json(c, out);
    else
        report_text(c, out);
}
