/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_stopat.c - the staged stop's common end: one event id every readout stops before. */
#include "farm_stopat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ebf_kv.h"
#include "ebf_pb.h"
#include "farm_ask.h"
#include "farm_launch.h"
#include "farm_proc.h"

/* The next_event counter of reply r (0 when it has none), and whether r
 * is of a readout in a run. */
static uint64_t next_of(const Ebfarm__Reply *r, int *in_run)
{
    struct ebf_kv kv = {0};
    uint64_t v = 0;

    *in_run = r && r->status && (r->status->state == EBFARM__STATE__RUNNING ||
                                 r->status->state == EBFARM__STATE__PAUSED);
    if (r && r->status && r->status->metrics && ebf_pb_snapshot_kv(r->status->metrics, &kv) == 0)
        v = ebf_kv_u64(&kv, "next_event", 0);
    ebf_kv_free(&kv);
    return v;
}

/* The furthest next_event of the readouts in a run, marking them in
 * use[]; the number of them into *n. */
static uint64_t furthest(const struct farm_state *st, int *use, unsigned *n)
{
    uint64_t top = 0;
    char e[512];

    *n = 0;
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        use[i] = 0;
        if (p->role != FARM_READOUT || !farm_launch_answers(st, p))
            continue;
        Ebfarm__Reply *r = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, FARM_REPLY_MS, e, sizeof(e));
        uint64_t v = next_of(r, &use[i]);
        if (r)
            ebfarm__reply__free_unpacked(r, NULL);
        if (!use[i])
            continue;
        (*n)++;
        top = v > top ? v : top;
    }
    return top;
}

/* Tell each readout in use[] to stop at *at; a refusal that says the
 * readout is further raises *at past it. 1 when all took it, 0 when *at
 * was raised (tell them all again). A readout that stops answering or
 * leaves its run meanwhile is dropped from use[]. */
static int tell_all(const struct farm_state *st, int *use, uint64_t *at, uint64_t margin)
{
    struct ctl_param a = {.key = "stop_at"};
    uint64_t want = *at;
    char e[512];

    snprintf(a.value, sizeof(a.value), "%" PRIu64, *at);
    for (unsigned i = 0; i < st->n; i++) {
        if (!use[i])
            continue;
        Ebfarm__Reply *r = farm_ask(&st->proc[i], EBF_C_ACT, 0, &a, 1, FARM_REPLY_MS, e,
                                    sizeof(e));
        int in_run = 0;
        uint64_t next = next_of(r, &in_run);
        if (r && !r->ok && in_run && next > *at)   /* it began *at already */
            want = next + margin > want ? next + margin : want;
        else if (!r || !r->ok)
            use[i] = 0;         /* gone, or its run ended: the stop names it */
        if (r)
            ebfarm__reply__free_unpacked(r, NULL);
    }
    if (want == *at)
        return 1;
    *at = want;
    return 0;
}

int farm_stop_at(const struct farm_state *st, uint64_t *at)
{
    int use[FARM_MAX_PROCS];
    unsigned n;
    uint64_t a = furthest(st, use, &n);

    if (n == 0)
        return 0;
    farm_sleep_ms(100);
    uint64_t b = furthest(st, use, &n);
    /* Half a second at the rate seen; none when no readout moved (paused,
     * held or finished): the furthest one's place is then the end. */
    uint64_t margin = (b > a ? b - a : 0) * 5;

    if (b > a && margin < FARM_STOPAT_MIN)
        margin = FARM_STOPAT_MIN;
    *at = b + margin;
    for (unsigned k = 0; k < FARM_STOPAT_TRIES; k++, margin = margin ? margin * 2 : FARM_STOPAT_MIN)
        if (tell_all(st, use, at, margin)) {
            n = 0;
            for (unsigned i = 0; i < st->n; i++)
                n += use[i] != 0;
            return (int)n;
        }
    return -1;
}

void farm_stop_at_text(FILE *out, const struct farm_result *r, uint64_t events)
{
    uint64_t at[FF_MAX_READOUTS], first = 0;
    int same = 1;

    for (unsigned i = 0; i < r->n_ro; i++) {
        at[i] = r->ro[i].gone ? 0 : ebf_kv_u64(&r->ro[i].kv, "stop_at", 0);
        if (events && at[i] >= events)
            at[i] = 0;          /* run.events ended it, not the stop */
        if (!at[i])
            continue;
        same &= !first || at[i] == first;
        first = first ? first : at[i];
    }
    if (!first)
        return;
    if (same) {
        fprintf(out, "  stop     every readout ended before event %" PRIu64 " (the staged "
                "stop's common end)\n", first);
        return;
    }
    fprintf(out, "  stop     readouts ended before:");
    for (unsigned i = 0, k = 0; i < r->n_ro; i++)
        if (at[i])
            fprintf(out, "%s %s %" PRIu64, k++ ? "," : "", r->ro[i].name, at[i]);
    fputc('\n', out);
}
