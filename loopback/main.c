/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-loopback: options, EAL and ports, then the RFC 2544 modes over lb_run and lb_kernel. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_version.h>

#include "ebf_port.h"
#include "lb_kernel.h"
#include "lb_opts.h"
#include "lb_run.h"

static volatile int stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static const unsigned default_sizes[] = {64, 128, 256, 512, 1024, 1280, 1518, 9000};

/* --- EAL and ports ------------------------------------------------------------ */

#define EAL_ARGS 64

/* EAL arguments: no hugepages (unless --huge), no PCI unless a port is one,
 * floating lcores on every CPU we may use: main, TX and RX. */
static int eal_argv(const struct lb_opts *o, char *prog, char **av, char *store, size_t len)
{
    int n = 0;
    size_t used = 0;
#define ADD(...)                                                                 \
    do {                                                                         \
        int w = snprintf(store + used, len - used, __VA_ARGS__);                 \
        if (n < EAL_ARGS - 1 && w >= 0 && (size_t)w < len - used)                \
            av[n++] = store + used, used += (size_t)w + 1;                       \
    } while (0)
    av[n++] = prog;
    if (!o->huge) {
        ADD("--no-huge");
        ADD("-m");
        ADD("%u", o->mem_mb);
    }
    ADD("--no-telemetry");
    ADD("--file-prefix=ebflb%d", (int)getpid());
    ADD("--log-level=lib.eal:warning");
    int pci = 0;
    const char *ports[2] = {o->role != LB_ROLE_RX ? o->tx : NULL, o->role != LB_ROLE_TX ? o->rx : NULL};
    for (int i = 0; i < 2; i++)
        if (ports[i] && lb_is_pci(ports[i])) {
            ADD("-a");
            ADD("%s", ports[i]);
            pci = 1;
        }
    if (!pci)
        ADD("--no-pci");
    int user_lcores = o->eal && (strstr(o->eal, "-l") || strstr(o->eal, "--lcores"));
    if (!user_lcores) {
        cpu_set_t set;
        char cpus[256] = "";
        size_t c = 0;
        if (sched_getaffinity(0, sizeof(set), &set) == 0)
            for (int cpu = 0; cpu < CPU_SETSIZE && c < sizeof(cpus) - 8; cpu++)
                if (CPU_ISSET(cpu, &set))
                    c += (size_t)snprintf(cpus + c, sizeof(cpus) - c, "%s%d", c ? "," : "", cpu);
        int lcores = o->role == LB_ROLE_BOTH ? 3 : 2;
        if (lcores == 3)
            ADD("--lcores=0@(%s),1@(%s),2@(%s)", cpus, cpus, cpus);
        else
            ADD("--lcores=0@(%s),1@(%s)", cpus, cpus);
    }
    if (o->eal) {
        char *copy = store + used;
        int w = snprintf(copy, len - used, "%s", o->eal);
        if (w > 0 && (size_t)w < len - used) {
            used += (size_t)w + 1;
            for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && n < EAL_ARGS - 1;
                 t = strtok_r(NULL, " ", &save))
                av[n++] = t;
        }
    }
#undef ADD
    av[n] = NULL;
    return n;
}

/*
 * net_af_packet finds its interface by name, with ioctl()s on sockets it
 * opens when it is created, started, asked for its link or MTU, and stopped:
 * all in the calling thread's network namespace. So the main thread enters
 * the port's namespace around each such call (netns_enter / netns_leave);
 * the lcores only use the packet sockets, which keep their namespace.
 */
static int netns_enter(const char *ns)
{
    if (!ns || !*ns)
        return -1;
    char path[256];
    snprintf(path, sizeof(path), "/run/netns/%s", ns);
    int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int target = open(path, O_RDONLY | O_CLOEXEC);
    if (self < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0)
        ebf_eal_exit(EXIT_FAILURE, "loopback: cannot enter network namespace '%s': %s "
                                   "(create it with tools/scripts/ebfarm-cable up)\n", ns, strerror(errno));
    close(target);
    return self;
}

static void netns_leave(int self)
{
    if (self < 0)
        return;
    if (setns(self, CLONE_NEWNET) != 0)
        ebf_eal_exit(EXIT_FAILURE, "loopback: cannot return to our network namespace\n");
    close(self);
}

static int vdev_in_netns(const char *name, const char *args, const char *ns)
{
    int self = netns_enter(ns);
    int rc = rte_vdev_init(name, args);
    netns_leave(self);
    return rc;
}

/* Attach the device of spec (PCI: already probed by EAL) and find its port. */
static int attach(const char *spec, const char *ns, uint16_t *port)
{
    char name[128];
    if (lb_is_pci(spec))
        return ebf_port_find(spec, port);
    snprintf(name, sizeof(name), "%s", spec);
    char *comma = strchr(name, ',');
    const char *args = comma ? comma + 1 : "";
    if (comma)
        *comma = '\0';
    int rc = vdev_in_netns(name, args, ns);
    if (rc) {
        fprintf(stderr, "loopback: cannot create device '%s': %s\n", spec, strerror(-rc));
        return rc;
    }
    return ebf_port_find(name, port);
}

/* Largest frame (FCS included) both ports take: MTU + 18. */
static unsigned port_max_frame(uint16_t port)
{
    uint16_t mtu = 1500;
    rte_eth_dev_get_mtu(port, &mtu);
    return mtu + 18u;
}

/* Attach, start and wait for the link of a port, inside its namespace;
 * *max_frame is its MTU + 18. */
static int open_port(const struct lb_opts *o, const char *spec, const char *ns,
                     struct rte_mempool *pool, uint16_t *port, unsigned *max_frame)
{
    sig_atomic_t no_stop = 0;
    if (attach(spec, ns, port))
        return -ENODEV;
    int self = netns_enter(ns);
    int rc = ebf_port_start(*port, pool, 1024, 1024);
    if (rc == 0)
        rc = ebf_port_wait_up(*port, &no_stop, o->link_timeout_ms);
    *max_frame = port_max_frame(*port);
    netns_leave(self);
    return rc;
}

static void close_port(uint16_t port, const char *ns)
{
    int self = netns_enter(ns);
    ebf_port_close(port);
    netns_leave(self);
}

static void driver_of(uint16_t port, char *buf, size_t len)
{
    struct rte_eth_dev_info info;
    snprintf(buf, len, "unknown");
    if (rte_eth_dev_info_get(port, &info) == 0 && info.driver_name)
        snprintf(buf, len, "%s", info.driver_name);
}

/* --- Modes --------------------------------------------------------------------- */

/* One search of the mode on one path; fills the size's result. */
static int run_mode(const struct lb_opts *o, lb_trial_fn fn, void *ctx, int *last_trial,
                    double max_fps, struct lb_size_result *s, struct lb_search_result *res,
                    int *lat_trial, int kernel)
{
    struct lb_search_conf c = {.max_fps = max_fps, .resolution_fps = max_fps * o->resolution_pct / 100,
                               .loss_ratio = o->loss_ratio, .max_trials = o->max_trials};
    int rc;
    *lat_trial = -1;
    if (!strcmp(o->mode, "loss") && !kernel) {
        rc = lb_search_loss(&c, o->loss_all, fn, ctx, s->loss);
        if (rc < 0)
            return rc;
        s->n_loss = rc;
        return 0;
    }
    if (!strcmp(o->mode, "back-to-back") && !kernel) {
        uint64_t max = o->b2b_max ? o->b2b_max : (uint64_t)(max_fps * o->trial_s);
        return lb_search_b2b(&c, max, max / 1000 + 1, fn, ctx, res);
    }
    rc = lb_search_throughput(&c, fn, ctx, res);
    if (rc || !res->found)
        return rc;
    if (!strcmp(o->mode, "latency")) {
        struct lb_trial_req req = {.fps = res->fps};
        struct lb_trial_out out;
        rc = fn(ctx, &req, &out);
        *lat_trial = *last_trial;
        return rc;
    }
    return 0;
}

/* The trial at the found rate stands for the latency in throughput mode. */
static int trial_at_rate(const struct lb_report *r, const char *path, unsigned fs, double fps)
{
    for (int i = (int)r->n_trials - 1; i >= 0; i--)
        if (r->trial[i].frame_size == fs && !strcmp(r->trial[i].path, path) &&
            r->trial[i].requested_fps == fps)
            return i;
    return -1;
}

/* --- The RX role ------------------------------------------------------------- */

static int rx_role(const struct lb_opts *o, uint16_t rx_port)
{
    struct lb_rx *rx = rte_zmalloc("lb_rx", sizeof(*rx), RTE_CACHE_LINE_SIZE);
    unsigned lcore = rte_get_next_lcore(-1, 1, 0);
    char driver[32];

    if (!rx || lcore >= RTE_MAX_LCORE)
        ebf_eal_exit(EXIT_FAILURE, "loopback: no memory or no worker lcore for the receiver\n");
    lb_rx_init(rx);
    rx->port = rx_port;
    rx->streams = (uint16_t)o->streams;
    rx->check_crc = o->check_crc;
    rx->idle = o->idle;
    driver_of(rx_port, driver, sizeof(driver));
    rte_eal_remote_launch(lb_rx_loop, rx, lcore);
    fprintf(stderr, "loopback: receiver on %s waiting for the sender on %s\n", o->rx, o->control);
    int fd = lb_ctl_accept(o->control, 600000);
    int rc = fd < 0 ? fd : lb_run_serve(rx, fd, driver);
    lb_rx_command(rx, LB_RX_QUIT, 0, NULL);
    rte_eal_wait_lcore(lcore);
    rte_free(rx);
    if (rc)
        fprintf(stderr, "loopback: control connection on %s: %s\n", o->control, strerror(-rc));
    return rc;
}

/* --- The TX side -------------------------------------------------------------- */

static void fill_meta(const struct lb_opts *o, struct lb_meta *m, uint16_t tx_port,
                      const char *rx_driver)
{
    struct rte_eth_link link;
    memset(m, 0, sizeof(*m));
    lb_meta_host(m);
    snprintf(m->dpdk_version, sizeof(m->dpdk_version), "%s", rte_version());
    m->tsc_hz = (double)rte_get_tsc_hz();
    driver_of(tx_port, m->tx_driver, sizeof(m->tx_driver));
    snprintf(m->rx_driver, sizeof(m->rx_driver), "%s", rx_driver);
    if (rte_eth_link_get_nowait(tx_port, &link) == 0 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
        m->link_mbps = link.link_speed;
    m->trial_s = o->trial_s;
    m->tolerance = o->tolerance;
    m->loss_ratio = o->loss_ratio;
    m->resolution_pct = o->resolution_pct;
    m->pacing = o->poisson ? "poisson" : "constant";
    m->idle = o->idle == EBF_IDLE_SPIN ? "spin" : "backoff";
    m->tx_port = o->tx;
    m->rx_port = o->rx ? o->rx : o->control;
    m->mode = o->mode;
    m->tsc_read_ns = (double)lb_tsc_read_cycles() * 1e9 / m->tsc_hz;
    m->compare_kernel = o->compare_kernel;
}

/* Frame sizes: the ones asked for, or the defaults the MTUs allow. */
static void pick_sizes(const struct lb_opts *o, struct lb_report *r, unsigned max_frame)
{
    if (o->n_sizes) {
        for (unsigned i = 0; i < o->n_sizes; i++)
            r->size[r->n_sizes++].frame_size = o->sizes[i];
        return;
    }
    for (unsigned i = 0; i < sizeof(default_sizes) / sizeof(default_sizes[0]); i++)
        if (default_sizes[i] <= max_frame)
            r->size[r->n_sizes++].frame_size = default_sizes[i];
}

static double max_rate(const struct lb_opts *o, const struct lb_report *r, unsigned fs)
{
    struct lb_rate all = {.value = 100, .unit = LB_UNIT_PCT};
    return lb_rate_fps(o->have_rate ? &o->rate : &all, fs, r->meta.link_mbps);
}

static int kernel_runs(const struct lb_opts *o, struct lb_report *r)
{
    struct lb_kernel k = {
        .tx_fd = -1, .rx_fd = -1, .dst_ip = o->kernel_dst, .port = (uint16_t)o->kernel_port,
        .trial_s = o->trial_s, .tolerance = o->tolerance, .drain_s = o->drain_ms / 1e3,
        .poisson = o->poisson, .seed = o->seed, .live = o->quiet ? NULL : stderr,
        .stop = &stop_requested, .mode = o->mode, .report = r,
    };
    int rc = lb_kernel_open(&k, o->tx_netns, o->rx_netns);
    for (unsigned i = 0; rc == 0 && i < r->n_sizes; i++) {
        struct lb_size_result *s = &r->size[i];
        k.frame_size = s->frame_size;
        if (!o->quiet)
            fprintf(stderr, "loopback: kernel reference, %u-byte frames\n", s->frame_size);
        rc = run_mode(o, lb_kernel_trial, &k, &k.last_trial, max_rate(o, r, s->frame_size), s,
                      &s->kernel, &s->kernel_lat_trial, 1);
        if (rc == 0 && s->kernel_lat_trial < 0 && s->kernel.found)
            s->kernel_lat_trial = trial_at_rate(r, "kernel", s->frame_size, s->kernel.fps);
    }
    lb_kernel_close(&k);
    return rc;
}

static int write_outputs(const struct lb_opts *o, const struct lb_report *r)
{
    lb_print_table(o->json ? stderr : stdout, r);
    if (o->json)
        lb_write_json(stdout, r);
    const char *paths[2] = {o->csv, o->plot};
    for (int i = 0; i < 2; i++) {
        if (!paths[i])
            continue;
        FILE *f = fopen(paths[i], "w");
        if (!f) {
            fprintf(stderr, "loopback: cannot write '%s': %s\n", paths[i], strerror(errno));
            return -errno;
        }
        if (i == 0)
            lb_write_csv(f, r);
        else
            lb_write_svg(f, r);
        if (fclose(f) != 0)
            return -errno;
    }
    return 0;
}

/* Run every frame size through the mode (DPDK), then the kernel reference. */
static int tx_side(const struct lb_opts *o, struct lb_runner *run, struct lb_report *r,
                   unsigned max_frame)
{
    int rc = 0;
    pick_sizes(o, r, max_frame);
    for (unsigned i = 0; rc == 0 && i < r->n_sizes; i++) {
        struct lb_size_result *s = &r->size[i];
        run->frame_size = s->frame_size;
        if (!o->quiet)
            fprintf(stderr, "loopback: %s, %u-byte frames, up to %.4f Mfps\n", o->mode,
                    s->frame_size, max_rate(o, r, s->frame_size) / 1e6);
        rc = run_mode(o, lb_run_trial, run, &run->last_trial, max_rate(o, r, s->frame_size), s,
                      &s->tput, &s->lat_trial, 0);
        if (rc == 0 && s->lat_trial < 0 && s->tput.found && strcmp(o->mode, "back-to-back"))
            s->lat_trial = trial_at_rate(r, "dpdk", s->frame_size, s->tput.fps);
    }
    return rc;
}

/* Connect to the RX process; returns the stream, with its driver and MAC. */
static FILE *connect_rx(const struct lb_opts *o, char *driver, size_t len, uint8_t mac[6])
{
    int fd = lb_ctl_connect(o->control, o->link_timeout_ms);
    if (fd < 0) {
        fprintf(stderr, "loopback: cannot reach the receiver at %s: %s (start it first with "
                        "--role rx)\n", o->control, strerror(-fd));
        return NULL;
    }
    FILE *f = fdopen(fd, "r+");
    char line[256], drv[64] = "unknown", m[32] = "ff:ff:ff:ff:ff:ff";
    unsigned long long hz;
    fprintf(f, "hello\n");
    fflush(f);
    if (!fgets(line, sizeof(line), f) || sscanf(line, "hello %63s %llu %31s", drv, &hz, m) < 2) {
        fprintf(stderr, "loopback: the receiver at %s does not answer\n", o->control);
        fclose(f);
        return NULL;
    }
    snprintf(driver, len, "%s", drv);
    struct rte_ether_addr ea;
    if (rte_ether_unformat_addr(m, &ea) == 0)
        memcpy(mac, ea.addr_bytes, 6);
    return f;
}

int main(int argc, char **argv)
{
    struct lb_opts o;
    char *eal[EAL_ARGS], store[4096];
    uint16_t tx_port = 0, rx_port = 0;

    lb_opts_default(&o);
    int rc = lb_opts_parse(argc, argv, &o);
    if (rc)
        return rc > 0 ? 0 : 2;
    int n = eal_argv(&o, argv[0], eal, store, sizeof(store));
    if (rte_eal_init(n, eal) < 0)
        rte_exit(EXIT_FAILURE, "loopback: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);

    unsigned largest = 0;
    for (unsigned i = 0; i < o.n_sizes; i++)
        largest = o.sizes[i] > largest ? o.sizes[i] : largest;
    uint16_t room = o.n_sizes == 0 || largest > 2000 ? 9216 : 2048;
    struct rte_mempool *txp = ebf_pool_create("lb_tx", 4095, room, (int)rte_socket_id());
    struct rte_mempool *rxp = ebf_pool_create("lb_rx", 4095, room, (int)rte_socket_id());
    if (!txp || !rxp)
        ebf_eal_exit(EXIT_FAILURE, "loopback: mempools: %s (try --mem)\n", rte_strerror(rte_errno));
    unsigned tx_max = 0, rx_max = 0;
    if (o.role != LB_ROLE_TX && open_port(&o, o.rx, o.rx_netns, rxp, &rx_port, &rx_max))
        ebf_eal_exit(EXIT_FAILURE, "loopback: cannot start RX port '%s' (link up within %u ms)\n",
                     o.rx, o.link_timeout_ms);
    if (o.role != LB_ROLE_RX && open_port(&o, o.tx, o.tx_netns, rxp, &tx_port, &tx_max))
        ebf_eal_exit(EXIT_FAILURE, "loopback: cannot start TX port '%s' (link up within %u ms)\n",
                     o.tx, o.link_timeout_ms);

    if (o.role == LB_ROLE_RX) {
        rc = rx_role(&o, rx_port);
        close_port(rx_port, o.rx_netns);
        ebf_eal_cleanup();
        return rc ? EXIT_FAILURE : EXIT_SUCCESS;
    }

    struct lb_report *r = calloc(1, sizeof(*r));
    struct lb_runner run = {
        .tx_port = tx_port, .rx_port = rx_port, .tx_pool = txp,
        .burst = (uint16_t)o.burst, .streams = (uint16_t)o.streams, .trial_s = o.trial_s,
        .tolerance = o.tolerance, .drain_s = o.drain_ms / 1e3, .poisson = o.poisson,
        .seed = o.seed, .idle = o.idle, .live = o.quiet ? NULL : stderr,
        .stop = &stop_requested, .mode = o.mode, .report = r, .next_trial_id = 1,
    };
    struct rte_ether_addr ea;
    rte_eth_macaddr_get(tx_port, &ea);
    memcpy(run.src_mac, ea.addr_bytes, 6);
    run.tx_lcore = rte_get_next_lcore(-1, 1, 0);
    unsigned rx_lcore = rte_get_next_lcore(run.tx_lcore, 1, 0);
    char rx_driver[32];
    unsigned max_frame = tx_max;
    if (!r || run.tx_lcore >= RTE_MAX_LCORE)
        ebf_eal_exit(EXIT_FAILURE, "loopback: no memory or no worker lcore for the sender\n");
    if (o.role == LB_ROLE_BOTH) {
        if (rx_lcore >= RTE_MAX_LCORE)
            ebf_eal_exit(EXIT_FAILURE, "loopback: need three lcores (main, TX, RX)\n");
        run.rx = rte_zmalloc("lb_rx", sizeof(*run.rx), RTE_CACHE_LINE_SIZE);
        if (!run.rx)
            ebf_eal_exit(EXIT_FAILURE, "loopback: no memory for the receiver\n");
        lb_rx_init(run.rx);
        run.rx->port = rx_port;
        run.rx->streams = (uint16_t)o.streams;
        run.rx->check_crc = o.check_crc;
        run.rx->idle = o.idle;
        rte_eth_macaddr_get(rx_port, &ea);
        memcpy(run.dst_mac, ea.addr_bytes, 6);
        driver_of(rx_port, rx_driver, sizeof(rx_driver));
        max_frame = rx_max < max_frame ? rx_max : max_frame;
        run.latency_valid = 1;
        rte_eal_remote_launch(lb_rx_loop, run.rx, rx_lcore);
    } else {
        run.ctl = connect_rx(&o, rx_driver, sizeof(rx_driver), run.dst_mac);
        if (!run.ctl)
            ebf_eal_exit(EXIT_FAILURE, "loopback: no receiver\n");
        run.latency_valid = lb_ctl_is_local(o.control);
    }
    int self = netns_enter(o.tx_netns);
    fill_meta(&o, &r->meta, tx_port, rx_driver);
    r->meta.link_mtu = tx_max - 18;
    netns_leave(self);
    if (r->meta.link_mbps == 0 && (!o.have_rate || o.rate.unit == LB_UNIT_PCT))
        ebf_eal_exit(2, "loopback: port '%s' reports no link speed: give --rate in fps or "
                        "mbps\n", o.tx);

    rc = tx_side(&o, &run, r, max_frame);
    if (run.rx) {
        lb_rx_command(run.rx, LB_RX_QUIT, 0, NULL);
        rte_eal_wait_lcore(rx_lcore);
        close_port(rx_port, o.rx_netns);
    }
    if (run.ctl) {
        fprintf(run.ctl, "quit\n");
        fclose(run.ctl);
    }
    close_port(tx_port, o.tx_netns);     /* the kernel reference needs the cable to itself */
    if (rc == 0 && o.compare_kernel)
        rc = kernel_runs(&o, r);
    if (rc && rc != -EINTR)
        fprintf(stderr, "loopback: run failed: %s\n", strerror(-rc));
    if (write_outputs(&o, r))
        rc = rc ? rc : -EIO;
    lb_report_free(r);
    free(r);
    rte_free(run.rx);
    ebf_eal_cleanup();
    return rc ? EXIT_FAILURE : EXIT_SUCCESS;
}
