/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-node: its own options and its port around the daemon skeleton. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "ebf_daemon.h"
#include "ebf_param.h"
#include "ebf_store_fmt.h"
#include "node_ctl.h"

/* The shared parameters' defaults come from the table (ebf_param.h). */
static struct node_conf conf = {
    .ack_batch = 16, .heartbeat_ms = 100, .burst = 32, .store = {.fsync = NODE_FSYNC_CLOSE},
};

static struct node_trigger trigger;
static const char *trigger_path;

/* --trigger-param KEY=VALUE, once per parameter. */
static int trigger_param(void *dst, const char *value, char *err, size_t len)
{
    return node_trigger_param_add(dst, value, err, len);
}

/* --store DIR: an existing directory the node may write in. */
static int store_dir(void *dst, const char *value, char *err, size_t len)
{
    struct node_store_conf *s = dst;
    struct stat st;

    if (strlen(value) + 40 >= sizeof(s->dir)) {
        snprintf(err, len, "\"%s\" is too long (at most %zu characters)", value,
                 sizeof(s->dir) - 41);
        return -EINVAL;
    }
    int e = 0;
    if (stat(value, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(value, W_OK | X_OK) != 0)
        e = errno;
    if (e) {
        snprintf(err, len, "%s: %s (errno %d; a directory the node may write in)", value,
                 strerror(e), e);
        return -EINVAL;
    }
    snprintf(s->dir, sizeof(s->dir), "%s", value);
    return 0;
}

/* --store-fsync none|close|interval. */
static int store_fsync(void *dst, const char *value, char *err, size_t len)
{
    if (node_fsync_parse(value, dst) == 0)
        return 0;
    snprintf(err, len, "\"%s\" is not a policy (allowed: none, close, interval)", value);
    return -EINVAL;
}

static const struct ebf_arg own[] = {
    {.name = "sfc-mac", .kind = EBF_ARG_MAC, .dst = conf.sfc_mac, .required = 1, .meta = "MAC",
     .help = "the SFC's MAC on that link"},
    EBF_ARG_INT(EBF_ARG_U16, "node-id", &conf.node_id, 0, 1023, "N",
                "this node's id at its SFC (0)"),
    EBF_ARG_PARAM(CREDITS, &conf.credits, "N", "event slots granted to the SFC"),
    EBF_ARG_PARAM(TRIGGER_US, &conf.trigger_us, "T", "busy time per event, microseconds"),
    EBF_ARG_PARAM(ACCEPT, &conf.accept, "F", "fraction of events accepted, 0..1"),
    EBF_ARG_PARAM(ACCEPT_SEED, &conf.accept_seed, "N", "seed of the accept decision"),
    EBF_ARG_VAL(EBF_ARG_STR, "trigger", &trigger_path, "PATH",
                "trigger plug-in (.so, docs/trigger.md); default: the built-in emulation"),
    EBF_ARG_CALL("trigger-param", trigger_param, &trigger, "KEY=VALUE",
                 "a parameter of the --trigger plug-in; once per key"),
    EBF_ARG_PARAM(WORKERS, &conf.workers, "N",
                  "trigger workers, an lcore each; EAL needs N + 1 lcores"),
    EBF_ARG_NUM("trigger-timeout-ms", &conf.trigger_timeout_ms, 0, 3.6e6, "T",
                "a longer decide counts as trigger.slow; 10 T ends the node (0: off)"),
    EBF_ARG_INT(EBF_ARG_U16, "ack-batch", &conf.ack_batch, 1, EBF_MAX_ACKS, "N",
                "acks per credit frame, 1..64 (16)"),
    EBF_ARG_NUM("heartbeat-ms", &conf.heartbeat_ms, 0, 3.6e6, "T",
                "empty credit frame after T ms of silence (100)"),
    EBF_ARG_INT(EBF_ARG_U16, "burst", &conf.burst, 1, 64, "N", "rx burst (32)"),
    EBF_ARG_PARAM(DRAIN_QUIET_MS, &conf.drain_quiet_ms, "T",
                  "at stop, input quiet this long ends the run"),
    EBF_ARG_CALL("store", store_dir, &conf.store, "DIR",
                 "write accepted events to files in DIR (docs/storage.md); default: not stored"),
    EBF_ARG_PARAM(SFC_ID, &conf.store.sfc, "N",
                  "its SFC's id (the farm's sfcs[].id), in its storage file names"),
    EBF_ARG_PARAM(STORE_MAX_FILE_MB, &conf.store.max_file_mb, "N",
                  "a storage file is closed before it passes N MiB"),
    EBF_ARG_PARAM(STORE_MAX_FILE_S, &conf.store.max_file_s, "T",
                  "a storage file is closed once T seconds old; 0: no limit"),
    EBF_ARG_CALL("store-fsync", store_fsync, &conf.store.fsync, "POLICY",
                 "none, close (each file at close) or interval (every second) (close)"),
    EBF_ARG_PARAM(STORE_BUFFER_MB, &conf.store.buffer_mb, "N",
                  "memory for accepted events not yet written, MiB"),
    EBF_ARG_PARAM(MAX_EVENT, &conf.max_event, "BYTES",
                  "the largest event held whole for a --trigger plug-in or --store: sizes "
                  "the pool (16M unless set) and, when set, the storage blocks"),
    EBF_ARG_PARAM(STORE_MAX_MBS, &conf.store.max_mbs, "R",
                  "write at most R MB/s (a slower disk, for tests); 0: no limit"),
};

static struct ebf_daemon node_daemon;

/* The trigger plug-in: loaded, its ABI checked and its parameters tried
 * by its init, before EAL starts. */
static int load_trigger(char *err, size_t len)
{
    if (!trigger_path) {
        if (trigger.n_params) {
            snprintf(err, len, "--trigger-param %s=%s: parameters are for a --trigger "
                     "plug-in (the built-in emulation takes --accept, --accept-seed and "
                     "--trigger-us)", trigger.params[0].key, trigger.params[0].value);
            return -EINVAL;
        }
        node_trigger_builtin(&trigger);
        return 0;
    }
    if (node_trigger_load(&trigger, trigger_path, err, len) ||
        node_trigger_check(&trigger, conf.node_id, err, len))
        return -EINVAL;
    conf.trigger = &trigger;
    return 0;
}

/* The checks across options: the acks of a credit frame within the MTU;
 * the trigger plug-in. */
static int check_opts(char *err, size_t len)
{
    static const struct ebf_param_names opts = {.opt = 1};
    uint16_t mtu = node_daemon.cl.common.mtu, fit = node_max_acks(mtu);

    if (ebf_param_check_workers(&opts, conf.workers, conf.credits, err, len))
        return -EINVAL;
    if (conf.ack_batch <= fit)
        return load_trigger(err, len);
    snprintf(err, len, "--ack-batch %u: a credit frame of %u acks (%zu B) passes --mtu %u "
             "(at most %u acks)", conf.ack_batch, conf.ack_batch,
             ebf_credit_len(conf.ack_batch), mtu, fit);
    return -EINVAL;
}

/* A new epoch for every process: the wall clock in milliseconds, so a node
 * restarted within the same second still rejoins as a new incarnation (the
 * SFC compares epochs as wrapping 32-bit numbers). */
static uint32_t process_epoch(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

/* The node's mbufs: 8191 (4095 above the default room: at --mtu 9000 they
 * fit --no-huge's default 64 MB and still cover both rings), and when a
 * plug-in or storage holds events whole, at least the frames of an event
 * of --max-event besides the port's reserve (node_view_frames), so that
 * such an event is held whole, never rejected as view_overflow. */
static unsigned pool_size(const struct node_conf *c, uint16_t room)
{
    unsigned n = room > EBF_ROOM_DEFAULT ? 4095 : 8191;
    uint32_t piece = ebf_piece_max(EBF_ENCAP_UDP, c->mtu);
    uint64_t want;

    if (!(c->trigger || c->store.dir[0]) || piece == 0)
        return n;
    want = (c->max_event + (uint64_t)piece - 1) / piece + NODE_VIEW_RESERVE;
    while (n < want)
        n = n * 2 + 1;
    return n;
}

int main(int argc, char **argv)
{
    static struct node_runner runner;
    struct ebf_daemon *d = &node_daemon;
    struct node_conf *c = &conf;

    ebf_daemon_init(d, "node");
    d->cl.synopsis = "--port NAME --sfc-mac MAC";
    d->cl.port_help = "DPDK device linked to the SFC";
    d->cl.own = own;
    d->cl.n_own = sizeof(own) / sizeof(own[0]);
    d->cl.check = check_opts;
    ebf_daemon_start(d, argc, argv);
    if (c->trigger && node_trigger_guard_install(c->trigger->p->name,
                                                 10 * c->trigger_timeout_ms))
        ebf_daemon_fail(d, "cannot install the trigger plug-in's guard");
    if (rte_lcore_count() < (unsigned)c->workers + 1u)
        ebf_daemon_fail(d, "--workers %u needs %u lcores, EAL has %u (give --lcores or -l "
                        "one lcore per worker and one to receive)", c->workers,
                        c->workers + 1u, rte_lcore_count());
    ebf_idle_init(&c->idle, d->cl.common.idle);
    c->port = ebf_daemon_port(d, d->cl.common.port);
    ebf_daemon_mac(d, c->port, c->mac);
    c->epoch = process_epoch();
    c->mtu = d->cl.common.mtu;
    /* Storage blocks hold an event of --max-event when it is given (unset,
     * blocks stay at most 2 MiB: docs/storage.md). */
    if (c->max_event)
        c->store.max_record = (uint32_t)ebf_store_rec_len(EBF_MAX_SOURCES, c->max_event);
    else
        c->max_event = EBF_EVENT_MAX_DEFAULT;
    uint16_t room = ebf_daemon_room(d, c->port);
    c->pool = ebf_daemon_pool_at(d, "node_pool", pool_size(c, room), room, c->port);
    ebf_daemon_port_start(d, c->port, c->pool, d->cl.common.port);
    ebf_daemon_link_wait(d, c->port, d->cl.common.port);
    int rc = node_runner_init(&runner, c);
    if (rc)
        ebf_daemon_fail(d, "cannot create the data plane: %s", strerror(-rc));
    ebf_daemon_serve(d, &node_ctl_ops, &runner.plug);
    node_runner_fini(&runner);
    node_trigger_unload(&trigger);
    return ebf_daemon_exit(d, EXIT_SUCCESS);
}
