/* SPDX-License-Identifier: BSD-3-Clause */
/* ebfarm/trigger.h - the trigger plug-in API: what a node hands a plug-in per run and per event (no DPDK). */
#ifndef EBFARM_TRIGGER_H
#define EBFARM_TRIGGER_H

/*
 * A trigger plug-in is a shared object exporting one symbol,
 * `ebf_trigger_plugin` (EBF_TRIGGER_SYMBOL), a struct ebf_trigger_plugin
 * whose abi_version is EBF_TRIGGER_ABI_VERSION of the header it was built
 * with. The node (ebfarm-node --trigger PATH.so) loads it at start and
 * refuses one of another ABI version. Per run it calls init once, decide on
 * every complete event, on its data-plane thread, one event at a time, and
 * fini at the end of the run. docs/trigger.md says how to write, build,
 * load and test one.
 *
 * This header is self-contained (C99, libc only): plug-ins build against it
 * alone (pkg-config ebfarm-trigger).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on every change of a struct or a function below. */
#define EBF_TRIGGER_ABI_VERSION 1
#define EBF_TRIGGER_SYMBOL "ebf_trigger_plugin"
#define EBF_TRIGGER_MAX_SOURCES 128      /* sources per event */
#define EBF_TRIGGER_EVF_INCOMPLETE 0x0001 /* at least one source is missing */

/* One contiguous piece of a fragment's payload, where the node received
 * it: valid only during the decide call, read-only. */
struct ebf_trigger_piece {
    const void *data;
    uint32_t len;
};

/* One source's fragment: its payload is the pieces in order (offset 0
 * first); len is the sum of their lengths. A missing source has len 0 and
 * no pieces. */
struct ebf_trigger_fragment {
    uint32_t len;
    uint32_t n_pieces;
    const struct ebf_trigger_piece *pieces;
};

/* One complete event, as the SFC built it. */
struct ebf_trigger_event {
    uint64_t event_id;
    uint32_t run_number;
    uint16_t n_sources;              /* sources of the farm: 0..n_sources-1 */
    uint16_t flags;                  /* EBF_TRIGGER_EVF_* */
    uint64_t present[2];             /* bit s: source s has a fragment */
    const struct ebf_trigger_fragment *fragments;    /* n_sources entries */
};

/* The plug-in's own parameters: key=value strings, as given to the node
 * (--trigger-param KEY=VALUE, or the farm file's trigger.params). */
struct ebf_trigger_param {
    const char *key;
    const char *value;
};

/* What init learns about the run. */
struct ebf_trigger_run {
    uint32_t run_number;
    uint16_t node_id;
    uint16_t n_params;
    const struct ebf_trigger_param *params;
};

/* decide's answer: accept (1) or reject (0), and the output stream the
 * event goes to (0 unless the plug-in has several). */
struct ebf_trigger_decision {
    int accept;
    uint16_t stream;
};

struct ebf_trigger_plugin {
    uint32_t abi_version;            /* EBF_TRIGGER_ABI_VERSION */
    const char *name;                /* short, for logs and errors */
    /* The run begins: read run->params into a state of the plug-in's own
     * (*state). 0, or nonzero with err saying which key was wrong, its
     * value and what is allowed; the node refuses the run with that text. */
    int (*init)(const struct ebf_trigger_run *run, void **state, char *err, size_t len);
    /* One event: fill *d. 0, or nonzero when the plug-in could not decide
     * (the node rejects the event and counts it as trigger_error). */
    int (*decide)(void *state, const struct ebf_trigger_event *ev,
                  struct ebf_trigger_decision *d);
    /* The run ended: free the state. May be NULL. */
    void (*fini)(void *state);
};

/* 1 when source s of ev has a fragment. */
static inline int ebf_trigger_present(const struct ebf_trigger_event *ev, unsigned s)
{
    return s < ev->n_sources && s < EBF_TRIGGER_MAX_SOURCES &&
           (ev->present[s / 64] >> (s % 64) & 1u);
}

/* Copy fragment f into buf (at most cap bytes), when the plug-in wants it
 * contiguous. Returns the bytes copied: f->len when it fitted. */
static inline size_t ebf_trigger_gather(const struct ebf_trigger_fragment *f, void *buf,
                                        size_t cap)
{
    size_t done = 0;

    for (uint32_t i = 0; i < f->n_pieces && done < cap; i++) {
        size_t n = f->pieces[i].len < cap - done ? f->pieces[i].len : cap - done;
        memcpy((char *)buf + done, f->pieces[i].data, n);
        done += n;
    }
    return done;
}

/* The value of parameter key, or NULL when it was not given. */
static inline const char *ebf_trigger_param_get(const struct ebf_trigger_run *run,
                                                const char *key)
{
    for (uint16_t i = 0; i < run->n_params; i++)
        if (strcmp(run->params[i].key, key) == 0)
            return run->params[i].value;
    return NULL;
}

/* 0 when every parameter's key is one of known (a NULL-terminated list);
 * else -1 with err naming the first unknown key and the known ones. */
static inline int ebf_trigger_params_known(const struct ebf_trigger_run *run,
                                           const char *const *known, char *err, size_t len)
{
    for (uint16_t i = 0; i < run->n_params; i++) {
        const char *const *k = known;
        while (*k && strcmp(*k, run->params[i].key) != 0)
            k++;
        if (*k)
            continue;
        int n = snprintf(err, len, "unknown parameter '%s' (known:", run->params[i].key);
        for (k = known; *k && n >= 0 && (size_t)n < len; k++)
            n += snprintf(err + n, len - (size_t)n, " %s", *k);
        if (n >= 0 && (size_t)n < len)
            snprintf(err + n, len - (size_t)n, ")");
        return -1;
    }
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* EBFARM_TRIGGER_H */
