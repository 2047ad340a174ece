/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_port.c - ethdev configuration, link wait and pools. */
#include "ebf_port.h"

#include <errno.h>
#include <inttypes.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "ebf_mtu.h"

RTE_LOG_REGISTER_DEFAULT(ebf_port_logtype, INFO);
#define PORT_LOG(level, ...) rte_log(RTE_LOG_##level, ebf_port_logtype, "ebfarm: " __VA_ARGS__)

int ebf_port_find(const char *name, uint16_t *port)
{
    if (rte_eth_dev_get_port_by_name(name, port) != 0) {
        PORT_LOG(ERR, "port '%s': no such device (give a --vdev or PCI device to EAL)\n",
                 name);
        return -ENODEV;
    }
    return 0;
}

/* memif clients connect once, at start: they need retries (see header). */
static int is_memif(const struct rte_eth_dev_info *info)
{
    return info->driver_name && strcmp(info->driver_name, "net_memif") == 0;
}

int ebf_port_start(uint16_t port, struct rte_mempool *rx_pool, uint16_t mtu, uint16_t nb_rxd,
                   uint16_t nb_txd)
{
    return ebf_port_start_queues(port, rx_pool, mtu, nb_rxd, nb_txd, 1, 1);
}

/* ebf_port_start_queues(), and with rss set RSS over the IP addresses and
 * UDP ports when there are several RX queues and the device hashes. */
static int start(uint16_t port, struct rte_mempool *rx_pool, uint16_t mtu, uint16_t nb_rxd,
                 uint16_t nb_txd, uint16_t n_rxq, uint16_t n_txq, int rss)
{
    struct rte_eth_dev_info info;
    struct rte_eth_conf conf;
    int rc;

    memset(&conf, 0, sizeof(conf));
    rc = rte_eth_dev_info_get(port, &info);
    if (rc)
        goto fail;
    uint64_t hf = info.flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
    if (rss && n_rxq > 1 && hf) {
        conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
        conf.rx_adv_conf.rss_conf.rss_hf = hf;
    }
    if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
        conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
    /* ethdev checks it against max_mtu and max_rx_pktlen, as
     * ebf_port_mtu_check did; 0 is its default (1500). */
    if (!ebf_port_mtu_by_buffer(port))
        conf.rxmode.mtu = mtu;
    rc = rte_eth_dev_configure(port, n_rxq, n_txq, &conf);
    if (rc)
        goto fail;
    rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
    if (rc)
        goto fail;
    int socket = rte_eth_dev_socket_id(port);
    for (uint16_t q = 0; q < n_rxq && rc == 0; q++)
        rc = rte_eth_rx_queue_setup(port, q, nb_rxd,
                                    socket < 0 ? SOCKET_ID_ANY : (unsigned)socket, NULL, rx_pool);
    if (rc)
        goto fail;
    for (uint16_t q = 0; q < n_txq && rc == 0; q++)
        rc = rte_eth_tx_queue_setup(port, q, nb_txd,
                                    socket < 0 ? SOCKET_ID_ANY : (unsigned)socket, NULL);
    if (rc)
        goto fail;
    rc = rte_eth_dev_start(port);
    if (rc && is_memif(&info)) {
        /* A memif client whose server is not up yet: ebf_port_wait_up()
         * starts it again until the peer is there. */
        PORT_LOG(INFO, "port %u: memif peer not there yet, will retry\n", port);
        return 0;
    }
    if (rc)
        goto fail;
    return 0;
fail:
    PORT_LOG(ERR, "port %u: set-up failed: %s\n", port, strerror(-rc));
    return rc;
}

int ebf_port_start_queues(uint16_t port, struct rte_mempool *rx_pool, uint16_t mtu,
                          uint16_t nb_rxd, uint16_t nb_txd, uint16_t n_rxq, uint16_t n_txq)
{
    return start(port, rx_pool, mtu, nb_rxd, nb_txd, n_rxq, n_txq, 0);
}

int ebf_port_start_rss(uint16_t port, struct rte_mempool *rx_pool, uint16_t mtu, uint16_t nb_rxd,
                       uint16_t nb_txd, uint16_t n_q)
{
    return start(port, rx_pool, mtu, nb_rxd, nb_txd, n_q, n_q, 1);
}

int ebf_port_wait_up(uint16_t port, const volatile sig_atomic_t *stop, unsigned timeout_ms)
{
    uint64_t hz = rte_get_timer_hz(), now = rte_get_timer_cycles();
    uint64_t end = now + hz * timeout_ms / 1000, retry = now + hz;
    struct rte_eth_dev_info info;
    struct rte_eth_link link;
    int memif = rte_eth_dev_info_get(port, &info) == 0 && is_memif(&info);

    while (!*stop) {
        if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status)
            return 0;
        now = rte_get_timer_cycles();
        if (now > end)
            return -ETIMEDOUT;
        if (memif && now > retry) {
            PORT_LOG(INFO, "port %u: memif peer not connected yet, reconnecting\n", port);
            rte_eth_dev_stop(port);
            rte_eth_dev_start(port);
            retry = now + hz;
        }
        rte_delay_us_sleep(10000);
    }
    return -EINTR;
}

int ebf_port_relink(uint16_t port)
{
    struct rte_eth_dev_info info;
    struct rte_eth_link link;

    if (rte_eth_link_get_nowait(port, &link) != 0 || link.link_status)
        return 0;
    if (rte_eth_dev_info_get(port, &info) != 0 || !is_memif(&info))
        return 0;
    rte_eth_dev_stop(port);
    rte_eth_dev_start(port);
    return 1;
}

void ebf_port_close(uint16_t port)
{
    rte_eth_dev_stop(port);
    rte_eth_dev_close(port);
}

struct rte_mempool *ebf_pool_create(const char *name, unsigned n, uint16_t data_room,
                                    int socket)
{
    return rte_pktmbuf_pool_create(name, n, n >= 1024 ? 256 : 0, 0,
                                   data_room ? (uint16_t)(data_room + RTE_PKTMBUF_HEADROOM) : 0,
                                   socket);
}

int ebf_port_stats_read(uint16_t port, struct ebf_port_stats *ps)
{
    struct rte_eth_stats st;
    int rc = rte_eth_stats_get(port, &st);

    memset(ps, 0, sizeof(*ps));
    if (rc != 0)
        return rc;
    ps->ipackets = st.ipackets;
    ps->opackets = st.opackets;
    ps->ibytes = st.ibytes;
    ps->obytes = st.obytes;
    ps->imissed = st.imissed;
    ps->ierrors = st.ierrors;
    ps->oerrors = st.oerrors;
    ps->rx_nombuf = st.rx_nombuf;
    return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Unlink the hugetlbfs file behind one memory segment, which its fd names
 * (/proc/self/fd/N -> <huge-dir>/<file-prefix>map_K); already unlinked
 * files (several segments share one with --single-file-segments) are left. */
static int unlink_seg(const struct rte_memseg_list *msl, const struct rte_memseg *ms, void *arg)
{
    char link[64], path[PATH_MAX];
    int fd = msl->external ? -1 : rte_memseg_get_fd_thread_unsafe(ms);

    (void)arg;
    if (fd < 0)
        return 0;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    if (path[0] == '/' && !strstr(path, " (deleted)"))
        unlink(path);
    return 0;
}

void ebf_eal_cleanup(void)
{
    char dir[PATH_MAX];

    snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
    /* EAL 22.11 leaves a primary's hugepage files behind at exit (they are
     * what secondaries such as dpdk-dumpcap map): remove them now, so that
     * their pages return to the pool. The mappings stay valid until exit. */
    if (rte_eal_has_hugepages() && rte_eal_process_type() == RTE_PROC_PRIMARY)
        rte_memseg_walk(unlink_seg, NULL);
    rte_eal_cleanup();
    if (dir[0])
        nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

void ebf_eal_exit(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    ebf_eal_cleanup();
    exit(code);
}
