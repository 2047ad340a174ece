/* SPDX-License-Identifier: BSD-3-Clause */
/* node_trigger.c - the node's trigger plug-in: dlopen and ABI check, key=value parameters, the crash and hang guard. */
#include "node_trigger.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void node_trigger_builtin(struct node_trigger *t)
{
    t->p = &node_emulate_plugin;
    t->dl = NULL;
    snprintf(t->path, sizeof(t->path), "(built-in)");
}

int node_trigger_load(struct node_trigger *t, const char *path, char *err, size_t len)
{
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);

    if (!dl) {
        snprintf(err, len, "trigger plug-in %s: cannot load: %s", path, dlerror());
        return -EINVAL;
    }
    const struct ebf_trigger_plugin *p = dlsym(dl, EBF_TRIGGER_SYMBOL);
    if (!p) {
        snprintf(err, len, "trigger plug-in %s: no symbol '%s' (a plug-in defines "
                 "'const struct ebf_trigger_plugin %s', ebfarm/trigger.h)",
                 path, EBF_TRIGGER_SYMBOL, EBF_TRIGGER_SYMBOL);
        dlclose(dl);
        return -EINVAL;
    }
    if (p->abi_version != EBF_TRIGGER_ABI_VERSION) {
        snprintf(err, len, "trigger plug-in %s: ABI version %u, this node wants %u "
                 "(rebuild it against this ebfarm's ebfarm/trigger.h)",
                 path, p->abi_version, EBF_TRIGGER_ABI_VERSION);
        dlclose(dl);
        return -EINVAL;
    }
    if (!p->name || !p->init || !p->decide) {
        snprintf(err, len, "trigger plug-in %s: %s is NULL (name, init and decide are "
                 "required)", path, !p->name ? "name" : !p->init ? "init" : "decide");
        dlclose(dl);
        return -EINVAL;
    }
    t->p = p;
    t->dl = dl;
    snprintf(t->path, sizeof(t->path), "%s", path);
    return 0;
}

int node_trigger_param_add(struct node_trigger *t, const char *kv, char *err, size_t len)
{
    const char *eq = strchr(kv, '=');

    if (!eq || eq == kv) {
        snprintf(err, len, "'%s': a trigger parameter is KEY=VALUE", kv);
        return -EINVAL;
    }
    if (strlen(kv) >= NODE_TRIGGER_PARAM_LEN) {
        snprintf(err, len, "'%.32s...': a trigger parameter is at most %d characters", kv,
                 NODE_TRIGGER_PARAM_LEN - 1);
        return -EINVAL;
    }
    if (t->n_params >= NODE_TRIGGER_MAX_PARAMS) {
        snprintf(err, len, "'%s': at most %d trigger parameters", kv, NODE_TRIGGER_MAX_PARAMS);
        return -EINVAL;
    }
    char *s = t->text[t->n_params];
    snprintf(s, NODE_TRIGGER_PARAM_LEN, "%s", kv);
    s[eq - kv] = '\0';
    for (uint16_t i = 0; i < t->n_params; i++)
        if (strcmp(t->params[i].key, s) == 0) {
            snprintf(err, len, "'%s': trigger parameter '%s' given twice", kv, s);
            return -EINVAL;
        }
    t->params[t->n_params++] = (struct ebf_trigger_param){s, s + (eq - kv) + 1};
    return 0;
}

int node_trigger_check(const struct node_trigger *t, uint16_t node_id, char *err, size_t len)
{
    struct ebf_trigger_run run = {.node_id = node_id, .n_params = t->n_params,
                                  .params = t->params};
    char why[512] = "";
    void *state = NULL;

    if (t->p->init(&run, &state, why, sizeof(why))) {
        snprintf(err, len, "trigger plug-in '%s': %s", t->p->name,
                 why[0] ? why : "init refused the parameters");
        return -EINVAL;
    }
    if (t->p->fini)
        t->p->fini(state);
    return 0;
}

void node_trigger_unload(struct node_trigger *t)
{
    if (t->dl)
        dlclose(t->dl);
    t->dl = NULL;
    t->p = NULL;
}

/* --- The guard ------------------------------------------------------------- */

static const char *guard_name = "?";
/* One entry per thread that decides (the receive lcore, or each trigger
 * worker), taken at its first decide; the watchdog looks at them all. */
#define GUARD_THREADS 16
static struct {
    _Atomic uint64_t event;      /* the event in decide */
    _Atomic uint64_t since;      /* its start, ns; 0: not in decide */
} guard[GUARD_THREADS];
static atomic_uint guard_used;
static _Thread_local int guard_me = -1;
static double guard_hang_ms;

static uint64_t mono_ns(void);

void node_trigger_guard_enter(uint64_t event_id)
{
    if (guard_me < 0)
        guard_me = (int)(atomic_fetch_add(&guard_used, 1) % GUARD_THREADS);
    atomic_store_explicit(&guard[guard_me].event, event_id, memory_order_relaxed);
    atomic_store_explicit(&guard[guard_me].since, mono_ns(), memory_order_release);
}

void node_trigger_guard_leave(void)
{
    atomic_store_explicit(&guard[guard_me].since, 0, memory_order_release);
}

/* Decimal of v into buf (async-signal-safe); returns its length. */
static size_t u64_text(uint64_t v, char *buf)
{
    char tmp[24];
    size_t n = 0, i = 0;

    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        buf[i++] = tmp[--n];
    return i;
}

static void put(const char *s)
{
    ssize_t rc = write(STDERR_FILENO, s, strlen(s));
    (void)rc;
}

static void on_fault(int sig)
{
    if (guard_me >= 0 && atomic_load(&guard[guard_me].since)) {
        char num[24];
        num[u64_text(atomic_load(&guard[guard_me].event), num)] = '\0';
        put("node: trigger plug-in '");
        put(guard_name);
        put("' crashed (");
        put(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS"
            : sig == SIGFPE ? "SIGFPE" : "SIGILL");
        put(") in decide on event ");
        put(num);
        put("\n");
    }
    signal(sig, SIG_DFL);        /* end by the signal itself */
    raise(sig);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *watchdog(void *arg)
{
    struct timespec tick = {0, 10 * 1000 * 1000};

    (void)arg;
    for (;;) {
        nanosleep(&tick, NULL);
        for (unsigned g = 0; g < GUARD_THREADS; g++) {
            uint64_t since = atomic_load_explicit(&guard[g].since, memory_order_acquire);
            if (since && (double)(mono_ns() - since) > guard_hang_ms * 1e6) {
                fprintf(stderr, "node: trigger plug-in '%s' hung in decide on event %llu "
                        "(over %g ms)\n", guard_name,
                        (unsigned long long)atomic_load(&guard[g].event), guard_hang_ms);
                fflush(stderr);
                _exit(3);
            }
        }
    }
    return NULL;
}

int node_trigger_guard_install(const char *name, double hang_ms)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    struct sigaction sa;

    guard_name = name;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fault;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        if (sigaction(sigs[i], &sa, NULL))
            return -errno;
    guard_hang_ms = hang_ms;
    if (hang_ms > 0) {
        pthread_t th;
        int rc = pthread_create(&th, NULL, watchdog, NULL);
        if (rc)
            return -rc;
        pthread_detach(th);
    }
    return 0;
}
