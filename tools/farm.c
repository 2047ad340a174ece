/* SPDX-License-Identifier: BSD-3-Clause */
/* farm.c - spawn, stop and collect the processes of a one-host farm. */
#include "farm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ARGS_MAX 48

struct proc {
    const char *name;            /* "sfc", "node0", ... */
    pid_t pid;
    int status;
    int exited;
    char prefix[64];             /* EAL --file-prefix */
    char *argv[ARGS_MAX];
    int argc;
};

struct farm {
    const struct farm_conf *c;
    struct farm_result *r;
    struct proc sfc, readout, node[FARM_MAX_NODES];
    char lcores[64];
};

void farm_conf_default(struct farm_conf *c)
{
    memset(c, 0, sizeof(*c));
    c->events = 200000;
    c->sources = 8;
    c->nodes = 2;
    c->frag_min = c->frag_max = 1024;
    c->trigger_us = 1;
    c->accept = 0.1;
    c->timeout_ms = 100;
    c->credits = 32;
    c->max_seconds = 300;
}

int farm_build_dir(char *buf, unsigned len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if (n <= 0)
        return -errno;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -ENOENT;
        *slash = '\0';
    }
    if (strlen(exe) + 1 > len)
        return -ENAMETOOLONG;
    strcpy(buf, exe);
    return 0;
}

static void fail(struct farm *f, const char *fmt, ...)
{
    va_list ap;

    if (f->r->error[0])
        return;                 /* keep the first cause */
    va_start(ap, fmt);
    vsnprintf(f->r->error, sizeof(f->r->error), fmt, ap);
    va_end(ap);
}

/* --- Command lines --------------------------------------------------------- */

static void arg(struct proc *p, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (p->argc < ARGS_MAX - 1)
        p->argv[p->argc++] = strdup(buf);
    p->argv[p->argc] = NULL;
}

/* EAL part of a command line: no hugepages, no PCI, one floating lcore. */
static void eal_args(struct farm *f, struct proc *p, const char *bin, unsigned mb)
{
    arg(p, "%s/%s", f->c->build_dir, bin);
    arg(p, "--no-huge");
    arg(p, "-m");
    arg(p, "%u", mb);
    arg(p, "--no-pci");
    arg(p, "--no-telemetry");
    arg(p, "--lcores=%s", f->lcores);
    arg(p, "--file-prefix=%s", p->prefix);
    arg(p, "--log-level=lib.eal:warning");
}

static void memif(struct farm *f, struct proc *p, unsigned idx, const char *role,
                  const char *sock, const char *mac)
{
    arg(p, "--vdev=net_memif%u,role=%s,socket=%s/%s,id=0,mac=%s,rsize=11,socket-abstract=no", idx, role,
        f->r->run_dir, sock, mac);
}

/* All CPUs this process may use, as an EAL cpuset "(0,1,...)". */
static void lcore_set(struct farm *f)
{
    cpu_set_t set;
    size_t o = 0;

    o += (size_t)snprintf(f->lcores, sizeof(f->lcores), "0@(");
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE && o < sizeof(f->lcores) - 8; cpu++)
            if (CPU_ISSET(cpu, &set))
                o += (size_t)snprintf(f->lcores + o, sizeof(f->lcores) - o, "%d,", cpu);
        f->lcores[o - 1] = ')';
    } else {
        snprintf(f->lcores, sizeof(f->lcores), "0@(0)");
    }
}

static void build_cmds(struct farm *f)
{
    const struct farm_conf *c = f->c;
    pid_t me = getpid();

    f->sfc.name = "sfc";
    snprintf(f->sfc.prefix, sizeof(f->sfc.prefix), "ebf%d-sfc", (int)me);
    eal_args(f, &f->sfc, "sfc/ebfarm-sfc", 256);
    memif(f, &f->sfc, 0, "server", "sfc-in.sock", "02:eb:00:00:00:01");
    for (unsigned i = 0; i < c->nodes; i++) {
        char sock[32], mac[24];
        snprintf(sock, sizeof(sock), "sfc-n%u.sock", i);
        snprintf(mac, sizeof(mac), "02:eb:00:00:01:%02x", i);
        memif(f, &f->sfc, i + 1, "server", sock, mac);
    }
    arg(&f->sfc, "--");
    arg(&f->sfc, "--rx-port=net_memif0");
    for (unsigned i = 0; i < c->nodes; i++)
        arg(&f->sfc, "--node=net_memif%u,02:eb:00:00:02:%02x", i + 1, i);
    arg(&f->sfc, "--sources=%u", c->sources);
    arg(&f->sfc, "--timeout-ms=%g", c->timeout_ms);
    arg(&f->sfc, "--idle=backoff");
    arg(&f->sfc, "--stats=%s/sfc.stats", f->r->run_dir);
    arg(&f->sfc, "--ready-file=%s/sfc.ready", f->r->run_dir);

    static const char *const node_names[FARM_MAX_NODES] = {
        "node0", "node1", "node2", "node3", "node4", "node5", "node6", "node7",
        "node8", "node9", "node10", "node11", "node12", "node13", "node14", "node15",
    };
    for (unsigned i = 0; i < c->nodes; i++) {
        struct proc *p = &f->node[i];
        char sock[32], mac[24];
        p->name = node_names[i];
        snprintf(p->prefix, sizeof(p->prefix), "ebf%d-node%u", (int)me, i);
        eal_args(f, p, "node/ebfarm-node", 128);
        snprintf(sock, sizeof(sock), "sfc-n%u.sock", i);
        snprintf(mac, sizeof(mac), "02:eb:00:00:02:%02x", i);
        memif(f, p, 0, "client", sock, mac);
        arg(p, "--");
        arg(p, "--port=net_memif0");
        arg(p, "--sfc-mac=02:eb:00:00:01:%02x", i);
        arg(p, "--node-id=%u", i);
        arg(p, "--credits=%u", c->credits);
        arg(p, "--trigger-us=%g", c->trigger_us);
        arg(p, "--accept=%g", c->accept);
        arg(p, "--idle=backoff");
        arg(p, "--stats=%s/%s.stats", f->r->run_dir, p->name);
    }

    struct proc *p = &f->readout;
    p->name = "readout";
    snprintf(p->prefix, sizeof(p->prefix), "ebf%d-readout", (int)me);
    eal_args(f, p, "readout/ebfarm-readout", 128);
    memif(f, p, 0, "client", "sfc-in.sock", "02:eb:00:00:00:10");
    arg(p, "--");
    arg(p, "--port=net_memif0");
    arg(p, "--sfc-mac=02:eb:00:00:00:01");
    arg(p, "--sources=%u", c->sources);
    arg(p, "--events=%llu", (unsigned long long)c->events);
    arg(p, "--frag-min=%u", c->frag_min);
    arg(p, "--frag-max=%u", c->frag_max);
    arg(p, "--rate=%g", c->rate);
    arg(p, "--encap=%s", c->udp ? "udp" : "eth");
    arg(p, "--duration=%g", c->max_seconds);
    arg(p, "--idle=backoff");
    arg(p, "--linger");
    arg(p, "--stats=%s/readout.stats", f->r->run_dir);
}

/* --- Processes ------------------------------------------------------------- */

static int spawn(struct farm *f, struct proc *p)
{
    char log[256];

    snprintf(log, sizeof(log), "%s/%s.log", f->r->run_dir, p->name);
    fflush(NULL);
    p->pid = fork();
    if (p->pid < 0) {
        fail(f, "cannot start %s: %s", p->name, strerror(errno));
        return -1;
    }
    if (p->pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        execv(p->argv[0], p->argv);
        fprintf(stderr, "cannot run %s: %s\n", p->argv[0], strerror(errno));
        _exit(127);
    }
    return 0;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait up to seconds for p to exit; returns 1 when it has. */
static int wait_exit(struct proc *p, double seconds)
{
    double end = now_s() + seconds;

    while (!p->exited) {
        pid_t w = waitpid(p->pid, &p->status, WNOHANG);
        if (w == p->pid) {
            p->exited = 1;
            break;
        }
        if (w < 0 || now_s() > end)
            return 0;
        sleep_ms(5);
    }
    return 1;
}

/* Stop p with SIGINT; SIGKILL after grace seconds. Records a failure when p
 * did not exit cleanly. */
static void stop(struct farm *f, struct proc *p, double grace)
{
    if (p->pid <= 0)
        return;
    if (!p->exited)
        kill(p->pid, SIGINT);
    if (!wait_exit(p, grace)) {
        kill(p->pid, SIGKILL);
        wait_exit(p, 5);
        fail(f, "%s did not stop within %.0f s and was killed (log: %s/%s.log)", p->name,
             grace, f->r->run_dir, p->name);
        return;
    }
    if (WIFSIGNALED(p->status))
        fail(f, "%s died of signal %d (log: %s/%s.log)", p->name, WTERMSIG(p->status),
             f->r->run_dir, p->name);
    else if (WEXITSTATUS(p->status) != 0)
        fail(f, "%s exited with status %d (log: %s/%s.log)", p->name, WEXITSTATUS(p->status),
             f->r->run_dir, p->name);
}

/* Wait until p has written its counters (it is done) or exited. Returns 0
 * when the file is there. */
static int wait_done(struct farm *f, struct proc *p, const char *file, double seconds)
{
    char path[256];
    struct stat sb;
    double end = now_s() + seconds;

    snprintf(path, sizeof(path), "%s/%s", f->r->run_dir, file);
    while (stat(path, &sb) != 0) {
        if (p->exited || wait_exit(p, 0)) {
            fail(f, "%s exited before finishing (log: %s/%s.log)", p->name, f->r->run_dir,
                 p->name);
            return -1;
        }
        if (now_s() > end)
            return -1;
        sleep_ms(10);
    }
    return 0;
}

static void load(struct farm *f, struct proc *p, struct ebf_kv *kv)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/%s.stats", f->r->run_dir, p->name);
    if (ebf_kv_load(kv, path) != 0)
        fail(f, "%s wrote no counters (%s)", p->name, path);
}

static void cleanup_runtime(struct proc *p)
{
    char path[160];

    snprintf(path, sizeof(path), "/var/run/dpdk/%s", p->prefix);
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "ebfarm: could not remove %s\n", path);
    for (int i = 0; i < p->argc; i++)
        free(p->argv[i]);
    p->argc = 0;
}

int farm_run(const struct farm_conf *c, struct farm_result *r)
{
    struct farm f = {.c = c, .r = r};

    memset(r, 0, sizeof(*r));
    r->n_nodes = c->nodes;
    if (c->nodes == 0 || c->nodes > FARM_MAX_NODES) {
        snprintf(r->error, sizeof(r->error), "nodes must be 1..%d, not %u", FARM_MAX_NODES,
                 c->nodes);
        return -1;
    }
    snprintf(r->run_dir, sizeof(r->run_dir), "/tmp/ebfarm-run-XXXXXX");
    if (!mkdtemp(r->run_dir)) {
        snprintf(r->error, sizeof(r->error), "cannot create a run directory: %s",
                 strerror(errno));
        return -1;
    }
    lcore_set(&f);
    build_cmds(&f);

    /* The memif clients may only connect once the SFC's ports are started. */
    if (spawn(&f, &f.sfc) == 0 && wait_done(&f, &f.sfc, "sfc.ready", 60) != 0)
        fail(&f, "sfc did not start its ports within 60 s (log: %s/sfc.log)", r->run_dir);
    for (unsigned i = 0; i < c->nodes && !r->error[0]; i++)
        spawn(&f, &f.node[i]);
    if (!r->error[0])
        spawn(&f, &f.readout);
    /* Staged stop: the readout writes its counters when it has sent its
     * last event and keeps its link up; the SFC then drains what is in
     * flight and waits for every ack; only then do the links close. */
    if (!r->error[0] && wait_done(&f, &f.readout, "readout.stats", c->max_seconds + 30))
        fail(&f, "readout did not finish within %.0f s (log: %s/readout.log)",
             c->max_seconds + 30, r->run_dir);
    stop(&f, &f.sfc, 60);
    stop(&f, &f.readout, 10);
    for (unsigned i = 0; i < c->nodes; i++)
        stop(&f, &f.node[i], 20);

    if (!r->error[0]) {
        load(&f, &f.readout, &r->readout);
        load(&f, &f.sfc, &r->sfc);
        for (unsigned i = 0; i < c->nodes; i++)
            load(&f, &f.node[i], &r->node[i]);
    }
    cleanup_runtime(&f.sfc);
    cleanup_runtime(&f.readout);
    for (unsigned i = 0; i < c->nodes; i++)
        cleanup_runtime(&f.node[i]);
    if (!c->keep && !r->error[0]) {
        char cmd[200];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->run_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "ebfarm: could not remove %s\n", r->run_dir);
    }
    return r->error[0] ? -1 : 0;
}

void farm_result_free(struct farm_result *r)
{
    ebf_kv_free(&r->readout);
    ebf_kv_free(&r->sfc);
    for (unsigned i = 0; i < FARM_MAX_NODES; i++)
        ebf_kv_free(&r->node[i]);
}
