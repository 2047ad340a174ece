/* SPDX-License-Identifier: BSD-3-Clause */
/* node_trigger.h - the node's trigger plug-in: load (dlopen or the built-in), parameters, per-run init, guarded decide. */
#ifndef NODE_TRIGGER_H
#define NODE_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

#include "ebfarm/trigger.h"

#define NODE_TRIGGER_MAX_PARAMS 32
#define NODE_TRIGGER_PARAM_LEN 256

/* The built-in emulation (node_emulate.c): params accept, accept_seed,
 * trigger_us; the decision of node_decide from the event id. */
extern const struct ebf_trigger_plugin node_emulate_plugin;

/*
 * The plug-in of a node, loaded once at start and shared read-only by
 * every run (main thread, before the data plane exists). DPDK-free.
 */
struct node_trigger {
    const struct ebf_trigger_plugin *p;
    void *dl;                    /* NULL: the built-in emulation */
    char path[256];
    uint16_t n_params;
    struct ebf_trigger_param params[NODE_TRIGGER_MAX_PARAMS];
    char text[NODE_TRIGGER_MAX_PARAMS][NODE_TRIGGER_PARAM_LEN];
};

/* The built-in emulation, no parameters. */
void node_trigger_builtin(struct node_trigger *t);

/* dlopen path and check its ebf_trigger_plugin. 0, or -EINVAL with err
 * naming the path and the dlerror, the missing symbol or the ABI versions
 * found and wanted. Parameters given before stay. */
int node_trigger_load(struct node_trigger *t, const char *path, char *err, size_t len);

/* Add one "key=value" parameter. 0, or -EINVAL with err saying why. */
int node_trigger_param_add(struct node_trigger *t, const char *kv, char *err, size_t len);

/* Try the plug-in's init and fini with the parameters (run 0), so that a
 * refusal stops the node at start. 0, or -EINVAL with err prefixed by the
 * plug-in's name. */
int node_trigger_check(const struct node_trigger *t, uint16_t node_id, char *err, size_t len);

/* dlclose. */
void node_trigger_unload(struct node_trigger *t);

/*
 * Crash and hang guard of the running decide, per thread that decides (the
 * receive lcore, or each of up to 16 trigger workers).
 * node_trigger_guard_install: SIGSEGV, SIGBUS, SIGFPE and SIGILL raised
 * inside decide write "trigger plug-in 'NAME' crashed (SIGSEGV) in decide
 * on event N" to stderr and end the process by that signal; with hang_ms >
 * 0 a watchdog thread ends the process (exit status 3) with "trigger
 * plug-in 'NAME' hung in decide on event N (over T ms)" when one decide
 * runs longer than hang_ms. 0 or -errno.
 */
int node_trigger_guard_install(const char *name, double hang_ms);

/* Around every decide: the event id going in, and that it came out. */
void node_trigger_guard_enter(uint64_t event_id);
void node_trigger_guard_leave(void);

#endif /* NODE_TRIGGER_H */
