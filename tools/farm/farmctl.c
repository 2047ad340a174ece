/* SPDX-License-Identifier: BSD-3-Clause */
/* farmctl.c - a farm's processes on this host: spawn, control, staged stop, shutdown. */
#include "farmctl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#include <zmq.h>

#include "ctlclient.h"
#include "ebf_pb.h"
#include "ebf_util.h"

#define ARGS_MAX 96
#define REPLY_MS 3000

struct cmdline {
    int argc;
    char *argv[ARGS_MAX];
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

    nanosleep(&ts, NULL);
}

const char *farmctl_base_dir(void)
{
    const char *e = getenv("EBFARM_RUN_DIR");

    return e && *e ? e : "/run/ebfarm";
}

/* --- Command lines --------------------------------------------------------- */

static void arg(struct cmdline *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (c->argc < ARGS_MAX - 1)
        c->argv[c->argc++] = strdup(buf);
    c->argv[c->argc] = NULL;
}

static void cmdline_free(struct cmdline *c)
{
    for (int i = 0; i < c->argc; i++)
        free(c->argv[i]);
    c->argc = 0;
}

/* s with every "{run}" replaced by run_dir. */
static void subst(char *out, size_t len, const char *s, const char *run_dir)
{
    size_t o = 0;

    while (*s && o + 1 < len) {
        if (strncmp(s, "{run}", 5) == 0) {
            o += (size_t)snprintf(out + o, len - o, "%s", run_dir);
            s += 5;
        } else {
            out[o++] = *s++;
        }
    }
    out[o < len ? o : len - 1] = '\0';
}

static void mac_str(const uint8_t m[6], char *buf)
{
    sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* EAL arguments of a process, up to the ports. */
static void eal_args(struct cmdline *c, const char *build, const char *bin, const struct ff_proc *p,
                     const char *prefix, int has_pci)
{
    arg(c, "%s/%s", build, bin);
    if (p->no_huge)
        arg(c, "--no-huge");
    arg(c, "-m");
    arg(c, "%u", p->memory_mb);
    if (!has_pci)
        arg(c, "--no-pci");
    arg(c, "--no-telemetry");
    if (strcmp(p->lcores, "auto") == 0) {
        cpu_set_t set;
        char cpus[256];
        size_t o = 0;
        cpus[0] = '\0';
        if (sched_getaffinity(0, sizeof(set), &set) == 0)
            for (int cpu = 0; cpu < CPU_SETSIZE && o < sizeof(cpus) - 8; cpu++)
                if (CPU_ISSET(cpu, &set))
                    o += (size_t)snprintf(cpus + o, sizeof(cpus) - o, "%s%d", o ? "," : "", cpu);
        arg(c, "--lcores=0@(%s)", o ? cpus : "0");
    } else {
        arg(c, "--lcores=%s", p->lcores);
    }
    arg(c, "--file-prefix=%s", prefix);
    arg(c, "--log-level=lib.eal:warning");
    for (unsigned i = 0; i < p->n_eal_args; i++)
        arg(c, "%s", p->eal_args[i]);
}

/*
 * EAL arguments for one port of a process; name receives the device name
 * the daemon's options use. memif links: the SFC side is the server.
 */
static void port_args(struct cmdline *c, const struct ff_port *pt, int server, const uint8_t mac[6],
                      unsigned *n_memif, const char *run_dir, char *name, size_t len)
{
    char m[24];

    mac_str(mac, m);
    switch (pt->kind) {
    case FF_PORT_MEMIF:
        snprintf(name, len, "net_memif%u", (*n_memif)++);
        arg(c, "--vdev=%s,role=%s,id=0,socket=%s/%s.sock,socket-abstract=no,mac=%s,rsize=11",
            name, server ? "server" : "client", run_dir, pt->dev, m);
        break;
    case FF_PORT_PCI:
        snprintf(name, len, "%s", pt->dev);
        arg(c, "-a");
        arg(c, "%s", pt->dev);
        break;
    case FF_PORT_VDEV: {
        const char *comma = strchr(pt->dev, ',');
        size_t n = comma ? (size_t)(comma - pt->dev) : strlen(pt->dev);
        snprintf(name, len, "%.*s", (int)n, pt->dev);
        arg(c, "--vdev=%s", pt->dev);
        break;
    }
    }
}

static void ctl_args(struct cmdline *c, const struct farm_proc *fp, const struct ff_proc *p,
                     double period_ms)
{
    arg(c, "--idle=%s", p->idle == FF_IDLE_BACKOFF ? "backoff" : "spin");
    arg(c, "--control=%s", fp->control);
    arg(c, "--metrics=%s", fp->metrics);
    arg(c, "--metrics-period-ms=%g", period_ms);
    arg(c, "--name=%s", p->name);
}

static void sfc_cmd(const struct farm_spec *s, unsigned k, const char *build,
                    const struct farm_proc *fp, const char *run_dir, struct cmdline *c)
{
    const struct ff_sfc *x = &s->sfc[k];
    char names[FF_MAX_NODES + 1][FF_STR_MAX], m[24];
    unsigned n_memif = 0, nn = 0, idx[FF_MAX_NODES];
    int pci = x->port.kind == FF_PORT_PCI;

    for (unsigned i = 0; i < s->n_nodes; i++)
        if (s->node[i].sfc == k) {
            idx[nn++] = i;
            pci |= s->node[i].sfc_port.kind == FF_PORT_PCI;
        }
    eal_args(c, build, "sfc/ebfarm-sfc", &x->p, fp->prefix, pci);
    port_args(c, &x->port, 1, x->mac, &n_memif, run_dir, names[0], sizeof(names[0]));
    for (unsigned j = 0; j < nn; j++) {
        const struct ff_node *nd = &s->node[idx[j]];
        const struct ff_port *pt = nd->sfc_port.dev[0] ? &nd->sfc_port : &nd->port;
        /* Several nodes behind one switch port share the device. */
        int shared = 0;
        for (unsigned q = 0; q < j && pt->kind != FF_PORT_MEMIF; q++) {
            const struct ff_node *o = &s->node[idx[q]];
            const struct ff_port *po = o->sfc_port.dev[0] ? &o->sfc_port : &o->port;
            if (strcmp(po->dev, pt->dev) == 0) {
                snprintf(names[j + 1], sizeof(names[0]), "%s", names[q + 1]);
                shared = 1;
                break;
            }
        }
        if (!shared)
            port_args(c, pt, 1, nd->sfc_mac, &n_memif, run_dir, names[j + 1], sizeof(names[0]));
    }
    arg(c, "--");
    arg(c, "--port=%s", names[0]);
    for (unsigned j = 0; j < nn; j++) {
        mac_str(s->node[idx[j]].mac, m);
        arg(c, "--node=%s,%s", names[j + 1], m);
    }
    arg(c, "--sources=%u", s->run.sources);
    arg(c, "--sfc-id=%u", x->id);
    arg(c, "--timeout-ms=%g", s->run.timeout_ms);
    arg(c, "--capacity=%u", x->capacity);
    arg(c, "--mbufs=%u", x->mbufs);
    arg(c, "--max-credits=%u", x->max_credits);
    arg(c, "--mtu=%u", s->run.mtu);
    arg(c, "--udp-port=%u", s->run.udp_port);
    ctl_args(c, fp, &x->p, s->run.metrics_period_ms);
}

/* A node's id at its SFC: its place among that SFC's nodes. */
static unsigned node_id(const struct farm_spec *s, unsigned i)
{
    unsigned id = 0;

    for (unsigned j = 0; j < i; j++)
        id += s->node[j].sfc == s->node[i].sfc;
    return id;
}

static void node_cmd(const struct farm_spec *s, unsigned k, const char *build,
                     const struct farm_proc *fp, const char *run_dir, struct cmdline *c)
{
    const struct ff_node *x = &s->node[k];
    char name[FF_STR_MAX], m[24];
    unsigned n_memif = 0;

    eal_args(c, build, "node/ebfarm-node", &x->p, fp->prefix, x->port.kind == FF_PORT_PCI);
    port_args(c, &x->port, 0, x->mac, &n_memif, run_dir, name, sizeof(name));
    arg(c, "--");
    arg(c, "--port=%s", name);
    mac_str(x->sfc_mac, m);
    arg(c, "--sfc-mac=%s", m);
    mac_str(x->mac, m);
    arg(c, "--mac=%s", m);
    arg(c, "--node-id=%u", node_id(s, k));
    arg(c, "--credits=%u", x->credits);
    arg(c, "--trigger-us=%g", s->run.trigger_us);
    arg(c, "--accept=%g", s->run.accept);
    arg(c, "--accept-seed=%llu", (unsigned long long)s->run.accept_seed);
    ctl_args(c, fp, &x->p, s->run.metrics_period_ms);
}

static void readout_cmd(const struct farm_spec *s, unsigned k, const char *build,
                        const struct farm_proc *fp, const char *run_dir, struct cmdline *c)
{
    const struct ff_readout *x = &s->readout[k];
    char name[FF_STR_MAX], m[24], list[FF_MAX_SFCS * 18 + 1];
    unsigned n_memif = 0;
    size_t o = 0;

    eal_args(c, build, "readout/ebfarm-readout", &x->p, fp->prefix, x->port.kind == FF_PORT_PCI);
    port_args(c, &x->port, 0, x->mac, &n_memif, run_dir, name, sizeof(name));
    arg(c, "--");
    arg(c, "--port=%s", name);
    for (unsigned i = 0; i < x->n_sfcs; i++) {
        mac_str(s->sfc[x->sfc[i]].mac, m);
        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? "," : "", m);
    }
    arg(c, "--sfc-mac=%s", list);
    mac_str(x->mac, m);
    arg(c, "--mac=%s", m);
    arg(c, "--sources=%u", s->run.sources);
    arg(c, "--encap=%s", s->run.encap == FF_ENCAP_UDP ? "udp" : "eth");
    arg(c, "--udp-port=%u", s->run.udp_port);
    arg(c, "--mtu=%u", s->run.mtu);
    ctl_args(c, fp, &x->p, s->run.metrics_period_ms);
}

/*
 * The readouts' fault and size-distribution parameters, every one each
 * time (a configure replaces the last one's): faults or "none",
 * fault_seed, silence "S@E" or "none", bursts, frag_dist, and frag_mean
 * and frag_sigma with lognormal only.
 */
static void readout_fault_params(const struct ff_run *r, struct ctl_param *p, unsigned *n)
{
    static const char *const dist[] = {
        [FF_DIST_FIXED] = "fixed", [FF_DIST_UNIFORM] = "uniform",
        [FF_DIST_LOGNORMAL] = "lognormal",
    };

#define P(k, fmt, ...) \
    (p[*n].key = (k), snprintf(p[*n].value, sizeof(p[*n].value), fmt, __VA_ARGS__), (*n)++)
    P("faults", "%s", r->faults[0] ? r->faults : "none");
    P("fault_seed", "%llu", (unsigned long long)r->fault_seed);
    if (r->silence_source == FF_NO_SILENCE)
        P("silence", "%s", "none");
    else
        P("silence", "%u@%llu", r->silence_source, (unsigned long long)r->silence_event);
    P("burst_events", "%u", r->burst_events);
    P("burst_gap_us", "%u", r->burst_gap_us);
    P("frag_dist", "%s", dist[r->frag_dist]);
    if (r->frag_dist == FF_DIST_LOGNORMAL) {
        P("frag_mean", "%.17g", r->frag_mean);
        P("frag_sigma", "%.17g", r->frag_sigma);
    }
#undef P
}

/* The run parameters each kind of daemon takes with configure. */
static unsigned run_params(const struct farm_spec *s, enum farm_role role, struct ctl_param *p)
{
    const struct ff_run *r = &s->run;
    unsigned n = 0;

#define P(k, fmt, v) (p[n].key = (k), snprintf(p[n].value, sizeof(p[n].value), fmt, v), n++)
    switch (role) {
    case FARM_READOUT:
        P("events", "%llu", (unsigned long long)r->events);
        P("rate", "%.17g", r->rate);
        P("duration_s", "%.17g", r->duration_s);
        P("frag_max", "%u", r->frag_max);
        P("frag_min", "%u", r->frag_min);
        P("seed", "%llu", (unsigned long long)r->seed);
        readout_fault_params(r, p, &n);
        break;
    case FARM_SFC:
        P("sources", "%u", r->sources);
        P("timeout_ms", "%.17g", r->timeout_ms);
        break;
    case FARM_NODE:
        P("accept", "%.17g", r->accept);
        P("accept_seed", "%llu", (unsigned long long)r->accept_seed);
        P("trigger_us", "%.17g", r->trigger_us);
        break;
    }
#undef P
    return n;
}

/* --- Processes ------------------------------------------------------------- */

/* Start a daemon in its own session, output to <run_dir>/<name>.log. */
static pid_t spawn(const struct cmdline *c, const char *run_dir, const char *name)
{
    char log[768];

    snprintf(log, sizeof(log), "%s/%s.log", run_dir, name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    setsid();
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0)
        dup2(nul, 0);
    execv(c->argv[0], c->argv);
    fprintf(stderr, "cannot run %s: %s\n", c->argv[0], strerror(errno));
    _exit(127);
}

/* Whether pid still runs. A child of ours that exited is reaped; a zombie
 * that is not ours (its parent, ebfarm up, is gone) counts as exited. */
static int alive(pid_t pid)
{
    char path[64], buf[256];
    int status;

    if (pid <= 0)
        return 0;
    if (waitpid(pid, &status, WNOHANG) == pid)
        return 0;
    if (kill(pid, 0) != 0)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');   /* "pid (comm) S ..." */
    return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

static void *zctx(void)
{
    static void *z;

    if (!z)
        z = zmq_ctx_new();
    return z;
}

/* One command to one process; the reply or NULL (err set). */
static Ebfarm__Reply *ask(const struct farm_proc *p, enum ebf_cmd cmd, uint32_t run,
                          const struct ctl_param *params, unsigned n, int timeout_ms, char *err,
                          size_t len)
{
    Ebfarm__Reply *r = NULL;
    char e[512];

    if (ctl_request(zctx(), p->control, cmd, run, params, n, timeout_ms, &r, e, sizeof(e)) != 0) {
        snprintf(err, len, "%s: %s", p->name, e);
        return NULL;
    }
    return r;
}

/* Send cmd and require ok; -1 with err naming the process and the reason. */
static int order(const struct farm_proc *p, enum ebf_cmd cmd, uint32_t run,
                 const struct ctl_param *params, unsigned n, char *err, size_t len)
{
    Ebfarm__Reply *r = ask(p, cmd, run, params, n, REPLY_MS, err, len);

    if (!r)
        return -1;
    int ok = r->ok;
    if (!ok)
        snprintf(err, len, "%s refused '%s': %s", p->name, ebf_cmd_name(cmd), r->error);
    ebfarm__reply__free_unpacked(r, NULL);
    return ok ? 0 : -1;
}

/* Wait until p answers status (it is up and its ports started). */
static int wait_answer(const struct farm_state *st, const struct farm_proc *p, double timeout_s,
                       char *err, size_t len)
{
    double end = now_s() + timeout_s;

    for (;;) {
        char e[1024];
        Ebfarm__Reply *r = ask(p, EBF_C_STATUS, 0, NULL, 0, 300, e, sizeof(e));
        if (r) {
            ebfarm__reply__free_unpacked(r, NULL);
            return 0;
        }
        if (!alive(p->pid)) {
            snprintf(err, len, "%s exited while starting (log: %s/%s.log)", p->name, st->run_dir,
                     p->name);
            return -1;
        }
        if (now_s() > end) {
            snprintf(err, len, "%s did not answer on %s within %.0f s (log: %s/%s.log)", p->name,
                     p->control, timeout_s, st->run_dir, p->name);
            return -1;
        }
        sleep_ms(50);
    }
}

/* Wait until every process of role is in state; -1 after timeout_s. */
static int wait_state(const struct farm_state *st, enum farm_role role, enum ebf_state want,
                      double timeout_s, char *err, size_t len)
{
    double end = now_s() + timeout_s;

    for (;;) {
        int all = 1;
        for (unsigned i = 0; i < st->n && all; i++) {
            const struct farm_proc *p = &st->proc[i];
            if (p->role != role || !alive(p->pid))
                continue;       /* a killed process is accounted for elsewhere */
            char e[1024];
            Ebfarm__Reply *r = ask(p, EBF_C_STATUS, 0, NULL, 0, REPLY_MS, e, sizeof(e));
            if (!r) {
                snprintf(err, len, "%s", e);
                return -1;
            }
            if (r->status && (enum ebf_state)r->status->state == EBF_S_ERROR) {
                snprintf(err, len, "%s is in ERROR: %s", p->name, r->status->error);
                ebfarm__reply__free_unpacked(r, NULL);
                return -1;
            }
            all = r->status && (enum ebf_state)r->status->state == want;
            ebfarm__reply__free_unpacked(r, NULL);
        }
        if (all)
            return 0;
        if (now_s() > end) {
            snprintf(err, len, "not every process reached %s within %.0f s",
                     ebf_state_name(want), timeout_s);
            return -1;
        }
        sleep_ms(50);
    }
}

static void kill_all(const struct farm_state *st)
{
    for (unsigned i = 0; i < st->n; i++)
        if (alive(st->proc[i].pid))
            kill(st->proc[i].pid, SIGKILL);
    for (unsigned i = 0; i < st->n; i++)
        waitpid(st->proc[i].pid, NULL, WNOHANG);
}

static void rm_rf(const char *path)
{
    char cmd[1200];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "ebfarm: could not remove %s\n", path);
}

static void remove_runtime(const struct farm_state *st)
{
    char path[160];

    for (unsigned i = 0; i < st->n; i++) {
        snprintf(path, sizeof(path), "/var/run/dpdk/%s", st->proc[i].prefix);
        if (access(path, F_OK) == 0)
            rm_rf(path);
    }
}

/* --- State file ------------------------------------------------------------ */

static const char *const role_names[] = {"sfc", "node", "readout"};

int farmctl_save(const struct farm_state *st)
{
    char path[600], tmp[610];

    snprintf(path, sizeof(path), "%s/farm.state", st->run_dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -errno;
    fprintf(f, "farm %s\nrun_number %u\nfarm_file %s\n", st->name, st->run_number,
            st->farm_file[0] ? st->farm_file : "-");
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        fprintf(f, "proc %s %s %d %s %s %s\n", p->name, role_names[p->role], (int)p->pid,
                p->prefix, p->control, p->metrics);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return -errno;
    return 0;
}

int farmctl_load(const char *run_dir, struct farm_state *st, char *err, size_t len)
{
    char path[600], line[1200], role[16];

    memset(st, 0, sizeof(*st));
    snprintf(st->run_dir, sizeof(st->run_dir), "%s", run_dir);
    snprintf(path, sizeof(path), "%s/farm.state", run_dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        struct farm_proc *p = &st->proc[st->n];
        int pid;
        if (sscanf(line, "farm_file %511s", st->farm_file) == 1 ||
            sscanf(line, "farm %32s", st->name) == 1 ||
            sscanf(line, "run_number %u", &st->run_number) == 1)
            continue;
        if (st->n < FARMCTL_MAX_PROCS &&
            sscanf(line, "proc %32s %15s %d %95s %255s %255s", p->name, role, &pid, p->prefix,
                   p->control, p->metrics) == 6) {
            p->pid = pid;
            p->role = strcmp(role, "sfc") == 0 ? FARM_SFC
                      : strcmp(role, "node") == 0 ? FARM_NODE : FARM_READOUT;
            st->n++;
        }
    }
    fclose(f);
    if (!st->name[0] || !st->n) {
        snprintf(err, len, "%s is not an ebfarm state file", path);
        return -1;
    }
    return 0;
}

int farmctl_find(const char *name, struct farm_state *st, char *err, size_t len)
{
    const char *base = farmctl_base_dir();
    char dir[600], found[600] = "", names[512] = "";
    unsigned n = 0;

    if (name) {
        snprintf(dir, sizeof(dir), "%s/%s", base, name);
        if (farmctl_load(dir, st, err, len) != 0) {
            snprintf(err, len, "farm '%s' is not up (no %s/farm.state)", name, dir);
            return -1;
        }
        return 0;
    }
    DIR *d = opendir(base);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        struct stat sb;
        if (de->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof(dir), "%s/%s/farm.state", base, de->d_name);
        if (stat(dir, &sb) != 0)
            continue;
        snprintf(found, sizeof(found), "%s/%s", base, de->d_name);
        size_t o = strlen(names);
        snprintf(names + o, sizeof(names) - o, "%s%s", n ? ", " : "", de->d_name);
        n++;
    }
    if (d)
        closedir(d);
    if (n == 0) {
        snprintf(err, len, "no farm is up (nothing in %s; start one with ebfarm up FARM.yaml)",
                 base);
        return -1;
    }
    if (n > 1) {
        snprintf(err, len, "several farms are up (%s): name one with --farm NAME", names);
        return -1;
    }
    return farmctl_load(found, st, err, len);
}

/* --- Up, start, stop, down ------------------------------------------------- */

static void add_proc(struct farm_state *st, const struct farm_spec *s, const struct ff_proc *p,
                     enum farm_role role)
{
    struct farm_proc *fp = &st->proc[st->n++];

    snprintf(fp->name, sizeof(fp->name), "%s", p->name);
    fp->role = role;
    snprintf(fp->prefix, sizeof(fp->prefix), "ebf%d-%s-%s", (int)getpid(), s->name, p->name);
    subst(fp->control, sizeof(fp->control), p->control, st->run_dir);
    subst(fp->metrics, sizeof(fp->metrics), p->metrics, st->run_dir);
}

static int spawn_role(struct farm_state *st, const struct farm_spec *s, const char *build,
                      enum farm_role role, char *err, size_t len)
{
    for (unsigned i = 0, k = 0; i < st->n; i++) {
        struct farm_proc *p = &st->proc[i];
        struct cmdline c = {0};
        if (p->role != role)
            continue;
        if (role == FARM_SFC)
            sfc_cmd(s, k, build, p, st->run_dir, &c);
        else if (role == FARM_NODE)
            node_cmd(s, k, build, p, st->run_dir, &c);
        else
            readout_cmd(s, k, build, p, st->run_dir, &c);
        k++;
        p->pid = spawn(&c, st->run_dir, p->name);
        cmdline_free(&c);
        if (p->pid < 0) {
            snprintf(err, len, "cannot start %s: %s", p->name, strerror(errno));
            return -1;
        }
    }
    for (unsigned i = 0; i < st->n; i++)
        if (st->proc[i].role == role && wait_answer(st, &st->proc[i], 60, err, len))
            return -1;
    return 0;
}

int farmctl_up(const struct farm_spec *spec, const char *build_dir, const char *run_dir,
               struct farm_state *st, char *err, size_t len)
{
    struct ctl_param params[32];
    char path[600];

    memset(st, 0, sizeof(*st));
    snprintf(st->name, sizeof(st->name), "%s", spec->name);
    snprintf(st->run_dir, sizeof(st->run_dir), "%s", run_dir);
    snprintf(path, sizeof(path), "%s/farm.state", run_dir);
    if (access(path, F_OK) == 0) {
        snprintf(err, len, "farm '%s' is already up (%s); take it down with: ebfarm down --farm %s",
                 spec->name, path, spec->name);
        return -1;
    }
    if (mkdir(run_dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, len, "cannot create %s: %s", run_dir, strerror(errno));
        return -1;
    }
    for (unsigned i = 0; i < spec->n_sfcs; i++)
        add_proc(st, spec, &spec->sfc[i].p, FARM_SFC);
    for (unsigned i = 0; i < spec->n_nodes; i++)
        add_proc(st, spec, &spec->node[i].p, FARM_NODE);
    for (unsigned i = 0; i < spec->n_readouts; i++)
        add_proc(st, spec, &spec->readout[i].p, FARM_READOUT);
    /* memif servers (the SFCs) first: a client connects only to a server. */
    if (spawn_role(st, spec, build_dir, FARM_SFC, err, len) ||
        spawn_role(st, spec, build_dir, FARM_NODE, err, len) ||
        spawn_role(st, spec, build_dir, FARM_READOUT, err, len))
        goto fail;
    if (farmctl_save(st) != 0) {
        snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
        goto fail;
    }
    for (unsigned i = 0; i < st->n; i++) {
        unsigned n = run_params(spec, st->proc[i].role, params);
        if (order(&st->proc[i], EBF_C_CONFIGURE, 0, params, n, err, len))
            goto fail;
    }
    return 0;
fail:
    kill_all(st);
    remove_runtime(st);
    unlink(path);
    return -1;
}

int farmctl_start(struct farm_state *st, char *err, size_t len)
{
    static const enum farm_role order_of_start[] = {FARM_SFC, FARM_NODE, FARM_READOUT};
    uint32_t run = st->run_number + 1;

    for (unsigned r = 0; r < 3; r++)
        for (unsigned i = 0; i < st->n; i++)
            if (st->proc[i].role == order_of_start[r] &&
                order(&st->proc[i], EBF_C_START, run, NULL, 0, err, len))
                return -1;
    st->run_number = run;
    return farmctl_save(st) == 0 ? 0 : -1;
}

void farmctl_status(const struct farm_state *st, Ebfarm__Reply **replies)
{
    char e[1024];

    for (unsigned i = 0; i < st->n; i++)
        replies[i] = ask(&st->proc[i], EBF_C_STATUS, 0, NULL, 0, 1000, e, sizeof(e));
}

void farmctl_free_replies(const struct farm_state *st, Ebfarm__Reply **replies)
{
    for (unsigned i = 0; i < st->n; i++)
        if (replies[i])
            ebfarm__reply__free_unpacked(replies[i], NULL);
}

int farmctl_wait_finished(const struct farm_state *st, double timeout_s, char *err, size_t len)
{
    double end = now_s() + timeout_s;

    for (;;) {
        int all = 1;
        for (unsigned i = 0; i < st->n && all; i++) {
            if (st->proc[i].role != FARM_READOUT)
                continue;
            Ebfarm__Reply *r = ask(&st->proc[i], EBF_C_STATUS, 0, NULL, 0, REPLY_MS, err, len);
            if (!r)
                return -1;
            all = r->status && r->status->finished;
            ebfarm__reply__free_unpacked(r, NULL);
        }
        if (all)
            return 0;
        if (now_s() > end) {
            snprintf(err, len, "the readouts did not finish within %.0f s", timeout_s);
            return -1;
        }
        sleep_ms(100);
    }
}

/* A counter from p's status, or def when it does not answer. */
static uint64_t status_counter(const struct farm_proc *p, const char *key, uint64_t def,
                               int *finished)
{
    char e[512];
    Ebfarm__Reply *r = ask(p, EBF_C_STATUS, 0, NULL, 0, REPLY_MS, e, sizeof(e));
    struct ebf_kv kv = {0};
    uint64_t v = def;

    if (!r)
        return def;
    if (finished)
        *finished = r->status && r->status->finished;
    if (r->status && r->status->metrics && ebf_pb_snapshot_kv(r->status->metrics, &kv) == 0)
        v = ebf_kv_u64(&kv, key, def);
    ebf_kv_free(&kv);
    ebfarm__reply__free_unpacked(r, NULL);
    return v;
}

/* Wait until the readout ro has generated `events` or finished. */
static int wait_events(const struct farm_proc *ro, uint64_t events, double timeout_s, char *err,
                       size_t len)
{
    double end = now_s() + timeout_s;

    for (;;) {
        int finished = 0;
        if (status_counter(ro, "events", 0, &finished) >= events || finished)
            return 0;
        if (now_s() > end) {
            snprintf(err, len, "the readout did not reach %llu events within %.0f s",
                     (unsigned long long)events, timeout_s);
            return -1;
        }
        sleep_ms(5);
    }
}

int farmctl_kill_node_after(const struct farm_state *st, unsigned node, uint64_t events,
                            double timeout_s, char *err, size_t len)
{
    const struct farm_proc *ro = NULL, *victim = NULL, *sfc = NULL;

    for (unsigned i = 0, k = 0; i < st->n; i++) {
        if (st->proc[i].role == FARM_READOUT && !ro)
            ro = &st->proc[i];
        if (st->proc[i].role == FARM_SFC && !sfc)
            sfc = &st->proc[i];
        if (st->proc[i].role == FARM_NODE && k++ == node)
            victim = &st->proc[i];
    }
    if (!ro || !victim || !sfc) {
        snprintf(err, len, "no readout, SFC or node %u to kill", node);
        return -1;
    }
    if (wait_events(ro, events, timeout_s, err, len))
        return -1;
    /*
     * Freeze the node first and let the SFC declare it dead (it then sends
     * it nothing and rarely polls its port), then kill it: the memif PMD of
     * DPDK 22.11 unmaps a vanished peer's rings from its interrupt thread
     * while the SFC's lcore may be in a burst on them, which can crash the
     * SFC. With a NIC a plain SIGKILL is just as good.
     */
    uint64_t dead0 = status_counter(sfc, "node.declared_dead", 0, NULL);
    if (kill(victim->pid, SIGSTOP) != 0) {
        snprintf(err, len, "cannot stop %s: %s", victim->name, strerror(errno));
        return -1;
    }
    double give_up = now_s() + 10;
    while (status_counter(sfc, "node.declared_dead", 0, NULL) <= dead0 && now_s() < give_up)
        sleep_ms(20);
    if (kill(victim->pid, SIGKILL) != 0) {
        snprintf(err, len, "cannot kill %s: %s", victim->name, strerror(errno));
        return -1;
    }
    waitpid(victim->pid, NULL, 0);
    fprintf(stderr, "ebfarm: killed %s (SIGSTOP, then SIGKILL once its SFC declared it dead) "
            "after %llu events\n", victim->name, (unsigned long long)events);
    return 0;
}

/* Send sig to every node process; -1 with err on the first failure. */
static int signal_nodes(const struct farm_state *st, int sig, char *err, size_t len)
{
    for (unsigned i = 0; i < st->n; i++)
        if (st->proc[i].role == FARM_NODE && kill(st->proc[i].pid, sig) != 0) {
            snprintf(err, len, "cannot %s %s: %s", sig == SIGSTOP ? "stop" : "continue",
                     st->proc[i].name, strerror(errno));
            return -1;
        }
    return 0;
}

int farmctl_stall_nodes(const struct farm_state *st, uint64_t events, double hold_ms,
                        double timeout_s, char *err, size_t len)
{
    const struct farm_proc *ro = NULL;

    for (unsigned i = 0; i < st->n && !ro; i++)
        if (st->proc[i].role == FARM_READOUT)
            ro = &st->proc[i];
    if (!ro) {
        snprintf(err, len, "no readout to watch");
        return -1;
    }
    if (wait_events(ro, events, timeout_s, err, len) || signal_nodes(st, SIGSTOP, err, len))
        return -1;
    double t0 = now_s(), give_up = t0 + 20;
    int held = 0;
    while (!(held = status_counter(ro, "throttle.holds", 0, NULL) > 0) && now_s() < give_up)
        sleep_ms(5);
    double onset = now_s() - t0;
    if (held)
        sleep_ms((unsigned)hold_ms);
    if (signal_nodes(st, SIGCONT, err, len))
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

int farmctl_respawn_node(struct farm_state *st, const struct farm_spec *spec, const char *build,
                         unsigned node, char *err, size_t len)
{
    struct ctl_param params[32];
    struct farm_proc *p = NULL;
    struct cmdline c = {0};
    char log[FF_NAME_MAX + 16];

    for (unsigned i = 0, k = 0; i < st->n && !p; i++)
        if (st->proc[i].role == FARM_NODE && k++ == node)
            p = &st->proc[i];
    if (!p || alive(p->pid)) {
        snprintf(err, len, "node %u is not a node that has exited", node);
        return -1;
    }
    node_cmd(spec, node, build, p, st->run_dir, &c);
    snprintf(log, sizeof(log), "%s.restart", p->name);     /* keep the first log */
    p->pid = spawn(&c, st->run_dir, log);
    cmdline_free(&c);
    if (p->pid < 0) {
        snprintf(err, len, "cannot restart %s: %s", p->name, strerror(errno));
        return -1;
    }
    if (farmctl_save(st) != 0 || wait_answer(st, p, 60, err, len))
        return -1;
    unsigned n = run_params(spec, FARM_NODE, params);
    if (order(p, EBF_C_CONFIGURE, 0, params, n, err, len) ||
        order(p, EBF_C_START, st->run_number, NULL, 0, err, len))
        return -1;
    fprintf(stderr, "ebfarm: restarted %s into run %u\n", p->name, st->run_number);
    return 0;
}

/* Add every value of from into into (start_ns: the earliest, end_ns: the
 * latest), so several readouts or SFCs read as one. */
static void kv_merge(struct ebf_kv *into, const struct ebf_kv *from)
{
    for (unsigned i = 0; i < from->n; i++) {
        const char *k = from->pair[i].key;
        uint64_t v = strtoull(from->pair[i].val, NULL, 10);
        unsigned j;
        for (j = 0; j < into->n && strcmp(into->pair[j].key, k) != 0; j++)
            ;
        if (j == into->n) {
            struct ebf_kv_pair *p = realloc(into->pair, (into->n + 1) * sizeof(*p));
            if (!p)
                return;
            into->pair = p;
            into->pair[into->n++] = from->pair[i];
            continue;
        }
        uint64_t u = strtoull(into->pair[j].val, NULL, 10);
        if (strcmp(k, "start_ns") == 0 || strcmp(k, "first_event") == 0)
            u = v < u ? v : u;
        else if (strcmp(k, "end_ns") == 0 || strcmp(k, "last_event") == 0 || strstr(k, ".max"))
            u = v > u ? v : u;
        else if (strstr(k, ".min"))
            u = v < u ? v : u;
        else
            u += v;
        snprintf(into->pair[j].val, sizeof(into->pair[j].val), "%llu", (unsigned long long)u);
    }
}

/* The next node entry of r, named after p; NULL when r is full. */
static struct farm_node_result *node_result(struct farm_result *r, const struct farm_proc *p)
{
    if (r->n_nodes == FARM_MAX_NODES)
        return NULL;
    struct farm_node_result *n = &r->node[r->n_nodes++];
    snprintf(n->name, sizeof(n->name), "%s", p->name);
    return n;
}

static int collect_finals(const struct farm_state *st, struct farm_result *r, char *err,
                          size_t len)
{
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        struct farm_node_result *n = NULL;
        struct ebf_kv kv;
        if (!alive(p->pid)) {
            /* A dead node's decisions are in its SFC's acks; without an
             * SFC's or a readout's counters there is no ledger. */
            if (p->role == FARM_NODE) {
                r->nodes_silent++;
                if ((n = node_result(r, p)))
                    n->gone = 1;
                continue;
            }
            snprintf(err, len, "%s is gone: no final counters", p->name);
            return -1;
        }
        Ebfarm__Reply *rep = ask(p, EBF_C_STATUS, 0, NULL, 0, REPLY_MS, err, len);
        if (!rep)
            return -1;
        int rc = rep->status && rep->status->metrics ? ebf_pb_snapshot_kv(rep->status->metrics, &kv)
                                                     : -EPROTO;
        ebfarm__reply__free_unpacked(rep, NULL);
        if (rc) {
            snprintf(err, len, "%s sent no counters", p->name);
            return -1;
        }
        if (p->role == FARM_NODE) {
            if ((n = node_result(r, p)))
                n->kv = kv;
            else
                ebf_kv_free(&kv);
            continue;
        }
        kv_merge(p->role == FARM_SFC ? &r->sfc : &r->readout, &kv);
        ebf_kv_free(&kv);
    }
    return 0;
}

int farmctl_stop(const struct farm_state *st, struct farm_result *r, char *err, size_t len)
{
    static const enum farm_role stages[] = {FARM_READOUT, FARM_SFC, FARM_NODE};
    static const double stage_s[] = {60, 120, 60};

    memset(r, 0, sizeof(*r));
    snprintf(r->run_dir, sizeof(r->run_dir), "%s", st->run_dir);
    for (unsigned k = 0; k < 3; k++) {
        for (unsigned i = 0; i < st->n; i++)
            if (st->proc[i].role == stages[k] && alive(st->proc[i].pid) &&
                order(&st->proc[i], EBF_C_STOP, 0, NULL, 0, err, len))
                return -1;
        if (wait_state(st, stages[k], EBF_S_CONFIGURED, stage_s[k], err, len))
            return -1;
    }
    if (collect_finals(st, r, err, len))
        return -1;
    uint64_t t0 = ebf_kv_u64(&r->readout, "start_ns", 0), t1 = ebf_kv_u64(&r->readout, "end_ns", 0);
    r->wall_s = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0;
    return 0;
}

int farmctl_down(const struct farm_state *st, int keep, char *err, size_t len)
{
    static const enum farm_role order_of_exit[] = {FARM_READOUT, FARM_NODE, FARM_SFC};
    Ebfarm__Reply *rep[FARMCTL_MAX_PROCS];
    char e[512], path[600];
    int running = 0, killed = 0;

    err[0] = '\0';
    farmctl_status(st, rep);
    for (unsigned i = 0; i < st->n; i++)
        if (rep[i] && rep[i]->status &&
            (rep[i]->status->state == EBFARM__STATE__RUNNING ||
             rep[i]->status->state == EBFARM__STATE__PAUSED))
            running = 1;
    farmctl_free_replies(st, rep);
    if (running) {
        struct farm_result r;
        if (farmctl_stop(st, &r, e, sizeof(e)) != 0)
            fprintf(stderr, "ebfarm down: the staged stop failed: %s\n", e);
        farm_result_free(&r);
    }
    for (unsigned k = 0; k < 3; k++) {
        for (unsigned i = 0; i < st->n; i++) {
            const struct farm_proc *p = &st->proc[i];
            if (p->role != order_of_exit[k] || !alive(p->pid))
                continue;
            Ebfarm__Reply *r = ask(p, EBF_C_SHUTDOWN, 0, NULL, 0, REPLY_MS, e, sizeof(e));
            if (r && !r->ok) {
                /* Not allowed in its state (ERROR is, DRAINING is not): signal it. */
                kill(p->pid, SIGTERM);
            }
            if (r)
                ebfarm__reply__free_unpacked(r, NULL);
            else
                kill(p->pid, SIGTERM);
        }
        double end = now_s() + 15;
        for (unsigned i = 0; i < st->n; i++) {
            const struct farm_proc *p = &st->proc[i];
            if (p->role != order_of_exit[k])
                continue;
            while (alive(p->pid) && now_s() < end)
                sleep_ms(20);
            if (alive(p->pid)) {
                kill(p->pid, SIGKILL);
                waitpid(p->pid, NULL, 0);
                size_t o = strlen(err);
                snprintf(err + o, len - o, "%s%s did not exit and was killed", o ? "; " : "",
                         p->name);
                killed = 1;
            }
        }
    }
    remove_runtime(st);
    snprintf(path, sizeof(path), "%s/farm.state", st->run_dir);
    unlink(path);
    if (!keep)
        rm_rf(st->run_dir);
    return killed ? -1 : 0;
}

/* --- The demo as a spec ---------------------------------------------------- */

void farmctl_conf_of(const struct farm_spec *s, struct farm_conf *c)
{
    farm_conf_default(c);
    c->events = s->run.events;
    c->sources = s->run.sources;
    c->nodes = (uint16_t)s->n_nodes;
    c->frag_min = s->run.frag_min;
    c->frag_max = s->run.frag_max;
    c->rate = s->run.rate;
    c->udp = s->run.encap == FF_ENCAP_UDP;
    c->trigger_us = s->run.trigger_us;
    c->accept = s->run.accept;
    c->timeout_ms = s->run.timeout_ms;
    c->credits = s->n_nodes ? s->node[0].credits : 0;
    c->max_seconds = s->run.duration_s;
    c->frag_dist = s->run.frag_dist;
    c->frag_mean = s->run.frag_mean;
    c->frag_sigma = s->run.frag_sigma;
    c->seed = s->run.seed;
    snprintf(c->faults, sizeof(c->faults), "%s", s->run.faults);
    c->silence_source = s->run.silence_source;
    c->silence_event = s->run.silence_event;
    c->burst_events = s->run.burst_events;
    c->burst_gap_us = s->run.burst_gap_us;
}

int farmctl_demo_spec(const struct farm_conf *c, const char *farm_file, struct farm_spec *s,
                      char *err, size_t len)
{
    if (farm_spec_load(farm_file, s, err, len) != 0)
        return -1;
    if (c->nodes > FF_MAX_NODES || s->n_nodes == 0) {
        snprintf(err, len, "the demo takes 1..%d nodes", FF_MAX_NODES);
        return -1;
    }
    s->run.events = c->events;
    s->run.sources = c->sources;
    s->run.frag_min = c->frag_min;
    s->run.frag_max = c->frag_max;
    s->run.rate = c->rate;
    s->run.encap = c->udp ? FF_ENCAP_UDP : FF_ENCAP_ETH;
    s->run.trigger_us = c->trigger_us;
    s->run.accept = c->accept;
    s->run.timeout_ms = c->timeout_ms;
    s->run.duration_s = c->max_seconds;
    /* Sizes: log-normal when asked, else fixed or uniform by the bounds. */
    s->run.frag_dist = c->frag_dist == FF_DIST_LOGNORMAL ? FF_DIST_LOGNORMAL
                       : c->frag_min == c->frag_max ? FF_DIST_FIXED : FF_DIST_UNIFORM;
    s->run.frag_mean = c->frag_mean;
    s->run.frag_sigma = c->frag_sigma;
    /* One seed for the run: the sizes and the fault decisions. */
    s->run.seed = c->seed;
    s->run.fault_seed = c->seed;
    snprintf(s->run.faults, sizeof(s->run.faults), "%s", c->faults);
    s->run.silence_source = c->silence_source;
    s->run.silence_event = c->silence_event;
    s->run.burst_events = c->burst_events;
    s->run.burst_gap_us = c->burst_gap_us;
    /* Nodes: as many as asked, each like the file's first, on its own link. */
    for (unsigned i = 0; i < c->nodes; i++) {
        struct ff_node *n = &s->node[i];
        if (i >= s->n_nodes) {
            *n = s->node[0];
            snprintf(n->p.name, sizeof(n->p.name), "node%u", i);
            snprintf(n->p.control, sizeof(n->p.control), "ipc://{run}/%s.ctl", n->p.name);
            snprintf(n->p.metrics, sizeof(n->p.metrics), "ipc://{run}/%s.pub", n->p.name);
            snprintf(n->port.dev, sizeof(n->port.dev), "sfc0-node%u", i);
            n->sfc_port = n->port;
            n->mac[5] = (uint8_t)i;
            n->sfc_mac[5] = (uint8_t)i;
        }
        n->credits = c->credits;
    }
    s->n_nodes = c->nodes;
    return farm_spec_check(s, err, len) == 0 ? 0 : -1;
}
