/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_scenario.c - faults injected into a running farm: a node killed, restarted, every node stalled. */
#include "farm_scenario.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "farm_argv.h"
#include "farm_ask.h"
#include "farm_launch.h"
#include "farm_params.h"
#include "farm_proc.h"
#include "farm_signal.h"
#include "farm_state.h"

/* The k-th process of role in st, or NULL (const in, not out, as strchr). */
static struct farm_proc *nth(const struct farm_state *st, enum farm_role role, unsigned k)
{
    for (unsigned i = 0; i < st->n; i++)
        if (st->proc[i].role == role && k-- == 0)
            return (struct farm_proc *)&st->proc[i];
    return NULL;
}

int farm_kill_node_after(const struct farm_state *st, unsigned node, uint64_t events,
                         double timeout_s, char *err, size_t len)
{
    const struct farm_proc *ro = nth(st, FARM_READOUT, 0), *sfc = nth(st, FARM_SFC, 0);
    const struct farm_proc *victim = nth(st, FARM_NODE, node);

    if (!ro || !victim || !sfc) {
        snprintf(err, len, "no readout, SFC or node %u to kill", node);
        return -1;
    }
    if (farm_wait_events(ro, events, timeout_s, err, len))
        return -1;
    /*
     * Freeze the node first and let the SFC declare it dead (it then sends
     * it nothing and rarely polls its port), then kill it: the memif PMD of
     * DPDK 22.11 unmaps a vanished peer's rings from its interrupt thread
     * while the SFC's lcore may be in a burst on them, which can crash the
     * SFC. With a NIC a plain SIGKILL is just as good.
     */
    uint64_t dead0 = farm_counter(sfc, "node.declared_dead", 0, NULL);
    if (farm_launch_signal(st, victim, SIGSTOP) != 0) {
        snprintf(err, len, "cannot stop %s: %s", victim->name, strerror(errno));
        return -1;
    }
    double give_up = farm_now() + 10;
    while (farm_counter(sfc, "node.declared_dead", 0, NULL) <= dead0 && farm_now() < give_up)
        farm_sleep_ms(20);
    if (farm_launch_signal(st, victim, SIGKILL) != 0) {
        snprintf(err, len, "cannot kill %s: %s", victim->name, strerror(errno));
        return -1;
    }
    farm_launch_wait_gone(st, victim, 5);
    fprintf(stderr, "ebfarm: killed %s (SIGSTOP, then SIGKILL once its SFC declared it dead) "
            "after %llu events\n", victim->name, (unsigned long long)events);
    return 0;
}

/* 1 when every readout still running reports SFC place k given up, or
 * (failover on) routes around it now (fo.out: declared dead, or out
 * since an earlier death and not yet rejoined). */
static int readouts_gave_up(const struct farm_state *st, unsigned k)
{
    char key[32];

    snprintf(key, sizeof(key), "sfc.gone.%u", k);
    for (unsigned i = 0; i < st->n; i++)
        if (st->proc[i].role == FARM_READOUT && farm_launch_running(st, &st->proc[i]) &&
            farm_counter(&st->proc[i], key, 0, NULL) != 1 &&
            !(k < 64 && (farm_counter(&st->proc[i], "fo.out", 0, NULL) >> k & 1)))
            return 0;
    return 1;
}

/* SIGKILL victim, then wait (at most 30 s) until every readout gave it
 * up: 0, or -1 with err. */
static int kill_plain(const struct farm_state *st, const struct farm_proc *victim, unsigned sfc,
                      uint64_t events, char *err, size_t len)
{
    double t0 = farm_now(), give_up = t0 + 30;
    int given_up;

    if (farm_launch_signal(st, victim, SIGKILL) != 0) {
        snprintf(err, len, "cannot kill %s: %s", victim->name, strerror(errno));
        return -1;
    }
    farm_launch_wait_gone(st, victim, 5);
    while (!(given_up = readouts_gave_up(st, sfc)) && farm_now() < give_up &&
           !farm_signal_count())
        farm_sleep_ms(20);
    if (!given_up) {
        snprintf(err, len, "the readouts did not give %s up within 30 s of killing it",
                 victim->name);
        return -1;
    }
    fprintf(stderr, "ebfarm: killed %s after %llu events (SIGKILL; every readout gave it up "
            "%.0f ms later)\n", victim->name, (unsigned long long)events,
            (farm_now() - t0) * 1e3);
    return 0;
}

int farm_kill_sfc_after(const struct farm_state *st, unsigned sfc, uint64_t events, int freeze,
                        double timeout_s, char *err, size_t len)
{
    const struct farm_proc *ro = nth(st, FARM_READOUT, 0), *victim = nth(st, FARM_SFC, sfc);

    if (!ro || !victim) {
        snprintf(err, len, "no readout, or no SFC %u to kill", sfc);
        return -1;
    }
    if (farm_wait_events(ro, events, timeout_s, err, len))
        return -1;
    if (!freeze)
        return kill_plain(st, victim, sfc, events, err, len);
    /* Frozen, the SFC takes nothing: each readout gives it up once its
     * port refused every frame for --sfc-timeout-ms, and no longer touches
     * that port; only then is it killed (the memif race, docs/status.md). */
    if (farm_launch_signal(st, victim, SIGSTOP) != 0) {
        snprintf(err, len, "cannot stop %s: %s", victim->name, strerror(errno));
        return -1;
    }
    double t0 = farm_now(), give_up = t0 + 30;
    int given_up;
    while (!(given_up = readouts_gave_up(st, sfc)) && farm_now() < give_up &&
           !farm_signal_count())
        farm_sleep_ms(20);
    double took = farm_now() - t0;
    if (farm_launch_signal(st, victim, SIGKILL) != 0) {
        snprintf(err, len, "cannot kill %s: %s", victim->name, strerror(errno));
        return -1;
    }
    farm_launch_wait_gone(st, victim, 5);
    if (!given_up) {
        snprintf(err, len, "the readouts did not give %s up within 30 s of stopping it",
                 victim->name);
        return -1;
    }
    fprintf(stderr, "ebfarm: killed %s after %llu events (SIGSTOP, then SIGKILL once every "
            "readout gave it up, %.0f ms later)\n", victim->name, (unsigned long long)events,
            took * 1e3);
    return 0;
}

int farm_freeze_sfc_after(const struct farm_state *st, unsigned sfc, uint64_t events,
                          double freeze_ms, double timeout_s, char *err, size_t len)
{
    const struct farm_proc *ro = nth(st, FARM_READOUT, 0), *victim = nth(st, FARM_SFC, sfc);

    if (!ro || !victim) {
        snprintf(err, len, "no readout, or no SFC %u to freeze", sfc);
        return -1;
    }
    if (farm_wait_events(ro, events, timeout_s, err, len))
        return -1;
    if (farm_launch_signal(st, victim, SIGSTOP) != 0) {
        snprintf(err, len, "cannot stop %s: %s", victim->name, strerror(errno));
        return -1;
    }
    farm_sleep_ms((unsigned)freeze_ms);
    if (farm_launch_signal(st, victim, SIGCONT) != 0) {
        snprintf(err, len, "cannot continue %s: %s", victim->name, strerror(errno));
        return -1;
    }
    fprintf(stderr, "ebfarm: froze %s for %.0f ms after %llu events (SIGSTOP, SIGCONT)\n",
            victim->name, freeze_ms, (unsigned long long)events);
    return 0;
}

int farm_act_sfc_after(const struct farm_state *st, unsigned sfc, uint64_t events,
                       const char *action, double ms, double timeout_s, char *err, size_t len)
{
    const struct farm_proc *ro = nth(st, FARM_READOUT, 0), *victim = nth(st, FARM_SFC, sfc);
    struct ctl_param a = {.key = action};

    if (!ro || !victim) {
        snprintf(err, len, "no readout, or no SFC %u to %s", sfc, action);
        return -1;
    }
    if (farm_wait_events(ro, events, timeout_s, err, len))
        return -1;
    snprintf(a.value, sizeof(a.value), "%.0f", ms);
    if (farm_order(victim, EBF_C_ACT, 0, &a, 1, err, len))
        return -1;
    if (strcmp(action, "mute") == 0)
        fprintf(stderr, "ebfarm: muted %s's release frames for %.0f ms after %llu events\n",
                victim->name, ms, (unsigned long long)events);
    else
        fprintf(stderr, "ebfarm: %s %s for %.0f ms after %llu events\n", action, victim->name,
                ms, (unsigned long long)events);
    return 0;
}

/* Send sig to every node process; -1 with err on the first failure. */
static int signal_nodes(const struct farm_state *st, int sig, char *err, size_t len)
{
    for (unsigned i = 0; i < st->n; i++)
        if (st->proc[i].role == FARM_NODE && farm_launch_signal(st, &st->proc[i], sig) != 0) {
            snprintf(err, len, "cannot %s %s: %s", sig == SIGSTOP ? "stop" : "continue",
                     st->proc[i].name, strerror(errno));
            return -1;
        }
    return 0;
}

int farm_stall_nodes(const struct farm_state *st, uint64_t events, double hold_ms,
                     double timeout_s, char *err, size_t len)
{
    const struct farm_proc *ro = nth(st, FARM_READOUT, 0);

    if (!ro) {
        snprintf(err, len, "no readout to watch");
        return -1;
    }
    if (farm_wait_events(ro, events, timeout_s, err, len))
        return -1;
    /* A new hold, not one of an earlier stall (a soak stalls repeatedly). */
    uint64_t holds0 = farm_counter(ro, "throttle.holds", 0, NULL);
    if (signal_nodes(st, SIGSTOP, err, len))
        return -1;
    double t0 = farm_now(), give_up = t0 + 20;
    int held = 0;
    while (!(held = farm_counter(ro, "throttle.holds", 0, NULL) > holds0) && farm_now() < give_up &&
           !farm_signal_count())
        farm_sleep_ms(5);
    double onset = farm_now() - t0;
    if (held && !farm_signal_count())
        farm_sleep_ms((unsigned)hold_ms);
    /* The nodes go on also when a signal ended the stall early. */
    if (signal_nodes(st, SIGCONT, err, len) || farm_signal_check(1, err, len))
        return -1;
    if (!held) {
        snprintf(err, len, "the readout was not throttled within 20 s of stalling every node");
        return -1;
    }
    fprintf(stderr, "ebfarm: stalled every node after %llu events; the readout was throttled "
            "%.0f ms later; nodes resumed %.0f ms after that\n", (unsigned long long)events,
            onset * 1e3, hold_ms);
    return 0;
}

int farm_respawn_node(struct farm_state *st, const struct farm_spec *spec, const char *build,
                      unsigned node, char *err, size_t len)
{
    struct ctl_param params[FARM_PARAMS_MAX];
    struct farm_proc *p = nth(st, FARM_NODE, node);
    struct farm_argv c = {0};
    char log[FF_NAME_MAX + 16];

    if (!p || farm_launch_alive(st, p)) {
        snprintf(err, len, "node %u is not a node that has exited", node);
        return -1;
    }
    farm_argv_build(spec, FARM_NODE, node, build, p, st->run_dir, &c);
    snprintf(log, sizeof(log), "%s.restart", p->name);     /* keep the first log */
    char e[900];
    if (p->remote) {
        /* A remote node logs to <name>.log again (its keeper's choice). */
        farm_launch_spawn(st, p, c.argv, e, sizeof(e));
    } else {
        p->pid = farm_spawn(c.argv, st->run_dir, log, e, sizeof(e));
    }
    farm_argv_free(&c);
    if (p->pid < 0) {
        snprintf(err, len, "cannot restart %s: %s", p->name, e);
        return -1;
    }
    int rc = farm_state_save(st);
    if (rc != 0) {
        snprintf(err, len, "cannot write %s/farm.state: %s", st->run_dir, strerror(-rc));
        return -1;
    }
    if (farm_wait_answer(st, p, 60, err, len))
        return -1;
    unsigned n = farm_params(spec, FARM_NODE, params);
    if (farm_order(p, EBF_C_CONFIGURE, 0, params, n, err, len) ||
        farm_order(p, EBF_C_START, st->run_number, NULL, 0, err, len))
        return -1;
    fprintf(stderr, "ebfarm: restarted %s into run %u\n", p->name, st->run_number);
    return 0;
}

int farm_kill_and_restart(struct farm_state *st, const struct farm_spec *spec, const char *build,
                          unsigned node, uint64_t events, double restart_ms, double timeout_s,
                          char *err, size_t len)
{
    if (farm_kill_node_after(st, node, events, timeout_s, err, len))
        return -1;
    if (restart_ms <= 0)
        return 0;
    struct timespec ts = {(time_t)(restart_ms / 1000), (long)(fmod(restart_ms, 1000) * 1e6)};
    nanosleep(&ts, NULL);
    return farm_respawn_node(st, spec, build, node, err, len);
}
