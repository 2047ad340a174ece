/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_mtu.c - the MTU a port and a pool carry: the check at start, the data room pools need. */
#include "ebf_mtu.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_mbuf.h>

#include "ebf_proto.h"

/*
 * Drivers whose MTU is their buffers'. DPDK 22.11's net_memif and
 * net_af_packet both report max_rx_pktlen 1518 (RTE_ETHER_MAX_LEN), so
 * ethdev refuses any MTU above 1500 for them, yet they carry whatever fits
 * their buffers and set no MTU of their own (memif has no mtu_set;
 * af_packet's sets the kernel interface's and is refused by ethdev above
 * 1500 too). Their ports keep ethdev's default MTU; the limit is the
 * buffer, sized by a devarg:
 *
 * - memif: bsize (2048). Copy-mode TX spreads a frame longer than bsize
 *   over several descriptors (MEMIF_DESC_FLAG_NEXT); DPDK 22.11's RX copies
 *   them into mbufs of the pool, chaining when one is full, and later
 *   releases hand each descriptor its own mbuf. Either way a frame reaches
 *   the receiver in one mbuf only when it fits bsize and the pool's room.
 * - af_packet: framesz (2048). A ring frame holds the tpacket2 header
 *   before the packet (32 B: TPACKET2_HDRLEN less the sockaddr_ll); TX
 *   drops longer packets, and RX queue set-up wants a pool whose room
 *   takes a whole ring frame less those 32 B.
 */
struct buf_driver {
    const char *driver;          /* rte_eth_dev_info.driver_name */
    const char *what;            /* the driver in messages */
    const char *key;             /* the devarg that sizes a buffer */
    unsigned dflt;               /* its default */
    unsigned hdr;                /* bytes of a buffer no frame can use */
    int fills_mbuf;              /* RX wants a pool room of buffer - hdr */
};

static const struct buf_driver buf_drivers[] = {
    {"net_memif", "memif", "bsize", 2048, 0, 0},
    {"net_af_packet", "af_packet", "framesz", 2048, 32, 1},
};

static const struct buf_driver *buf_driver(const struct rte_eth_dev_info *info)
{
    for (size_t i = 0; i < sizeof(buf_drivers) / sizeof(buf_drivers[0]); i++)
        if (info->driver_name && strcmp(info->driver_name, buf_drivers[i].driver) == 0)
            return &buf_drivers[i];
    return NULL;
}

/* The devarg key of the device as an integer; dflt when absent or unreadable
 * (the driver then refused it at probe, or took its default). */
static unsigned devarg_u(const struct rte_eth_dev_info *info, const char *key, unsigned dflt)
{
    const struct rte_devargs *da = info->device ? rte_dev_devargs(info->device) : NULL;
    struct rte_kvargs *kv = da && da->args ? rte_kvargs_parse(da->args, NULL) : NULL;
    const char *v = kv ? rte_kvargs_get(kv, key) : NULL;
    unsigned long n = dflt;
    char *end;

    if (v) {
        errno = 0;
        n = strtoul(v, &end, 10);
        if (errno || end == v || *end || n > UINT16_MAX)
            n = dflt;
    }
    rte_kvargs_free(kv);
    return (unsigned)n;
}

/* The bytes of one buffer of a buffer-limited driver that frames can use. */
static unsigned buf_usable(const struct rte_eth_dev_info *info, const struct buf_driver *b)
{
    unsigned size = devarg_u(info, b->key, b->dflt);

    return size > b->hdr ? size - b->hdr : 0;
}

uint16_t ebf_port_rx_room(uint16_t port, uint16_t mtu)
{
    struct rte_eth_dev_info info;
    unsigned room = (unsigned)mtu + EBF_L2_MAX_HLEN, max = UINT16_MAX - RTE_PKTMBUF_HEADROOM;

    if (room < EBF_ROOM_DEFAULT)
        room = EBF_ROOM_DEFAULT;
    if (port != UINT16_MAX && rte_eth_dev_info_get(port, &info) == 0) {
        const struct buf_driver *b = buf_driver(&info);
        if (b && buf_usable(&info, b) > room)
            room = buf_usable(&info, b);        /* one buffer, one mbuf */
    }
    return (uint16_t)(room < max ? room : max);
}

/* The MTU of the kernel interface behind the port (af_packet, tap); 0 when
 * there is none or it cannot be read. */
static unsigned kernel_mtu(const struct rte_eth_dev_info *info, char *ifname)
{
    struct ifreq ifr;
    int s;

    memset(&ifr, 0, sizeof(ifr));
    if (info->if_index == 0 || !if_indextoname(info->if_index, ifr.ifr_name))
        return 0;
    snprintf(ifname, IF_NAMESIZE, "%s", ifr.ifr_name);
    s = socket(AF_INET, SOCK_DGRAM, 0);
    if (s < 0)
        return 0;
    int rc = ioctl(s, SIOCGIFMTU, &ifr);
    close(s);
    return rc == 0 && ifr.ifr_mtu > 0 ? (unsigned)ifr.ifr_mtu : 0;
}

/* ethdev's overhead of a frame over its MTU (eth_dev_get_overhead_len). */
static unsigned eth_overhead(const struct rte_eth_dev_info *info)
{
    if (info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu)
        return info->max_rx_pktlen - info->max_mtu;
    return RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
}

#define REFUSE(...) (snprintf(err, len, __VA_ARGS__), -EMSGSIZE)

/* The driver's own limits: min_mtu, max_mtu, then its buffers or
 * max_rx_pktlen, then the kernel interface's MTU. */
static int port_limits(const struct rte_eth_dev_info *info, const char *name, unsigned mtu,
                       char *err, size_t len)
{
    const struct buf_driver *b = buf_driver(info);
    unsigned frame = mtu + EBF_L2_MAX_HLEN, kmtu;
    char ifname[IF_NAMESIZE];

    if (mtu < info->min_mtu)
        return REFUSE("port '%s' takes at least %u (min_mtu)", name, info->min_mtu);
    if (mtu > info->max_mtu)
        return REFUSE("port '%s' carries at most %u (max_mtu)", name, info->max_mtu);
    if (b && frame > buf_usable(info, b)) {
        unsigned use = buf_usable(info, b);
        return REFUSE("port '%s' carries at most %u (%s %s %u; give %s=%u or more)", name,
                      use > EBF_L2_MAX_HLEN ? use - EBF_L2_MAX_HLEN : 0, b->what, b->key,
                      use + b->hdr, b->key, frame + b->hdr);
    }
    if (!b && mtu + eth_overhead(info) > info->max_rx_pktlen)
        return REFUSE("port '%s' carries at most %u (max_rx_pktlen %u)", name,
                      info->max_rx_pktlen - eth_overhead(info), info->max_rx_pktlen);
    kmtu = kernel_mtu(info, ifname);
    if (kmtu && mtu > kmtu)
        return REFUSE("port '%s' carries at most %u (the MTU of interface '%s')", name, kmtu,
                      ifname);
    return 0;
}

/* The pool's room against the frame, the driver's minimum and, for
 * af_packet, the ring frame it copies into one mbuf. */
static int pool_limits(const struct rte_eth_dev_info *info, const char *name, unsigned mtu,
                       struct rte_mempool *pool, char *err, size_t len)
{
    const struct buf_driver *b = buf_driver(info);
    unsigned room = rte_pktmbuf_data_room_size(pool);

    room = room > RTE_PKTMBUF_HEADROOM ? room - RTE_PKTMBUF_HEADROOM : 0;
    if (mtu + EBF_L2_MAX_HLEN > room)
        return REFUSE("the pool's data room of %u B carries at most %u", room,
                      room > EBF_L2_MAX_HLEN ? room - EBF_L2_MAX_HLEN : 0);
    if (room < info->min_rx_bufsize)
        return REFUSE("the pool's data room of %u B is below the %u B port '%s' needs "
                      "(min_rx_bufsize)", room, info->min_rx_bufsize, name);
    if (b && b->fills_mbuf && room < buf_usable(info, b))
        return REFUSE("the pool's data room of %u B is below the %u B %s fills per mbuf "
                      "(%s %u)", room, buf_usable(info, b), b->what, b->key,
                      buf_usable(info, b) + b->hdr);
    return 0;
}

int ebf_port_mtu_check(uint16_t port, const char *name, uint16_t mtu,
                       struct rte_mempool *rx_pool, char *err, size_t len)
{
    struct rte_eth_dev_info info;
    int rc = rte_eth_dev_info_get(port, &info);

    if (rc) {
        snprintf(err, len, "port '%s': no device information: %s", name, strerror(-rc));
        return rc;
    }
    if (mtu == 0)
        return 0;
    rc = port_limits(&info, name, mtu, err, len);
    if (rc == 0 && rx_pool)
        rc = pool_limits(&info, name, mtu, rx_pool, err, len);
    return rc;
}

int ebf_port_mtu_by_buffer(uint16_t port)
{
    struct rte_eth_dev_info info;

    return rte_eth_dev_info_get(port, &info) == 0 && buf_driver(&info) != NULL;
}
