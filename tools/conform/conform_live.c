/* SPDX-License-Identifier: BSD-3-Clause */
/* conform_live.c - frames of a kernel network interface judged as they arrive (ebfarm conform --port), through an AF_PACKET socket. */
#include "conform_live.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_BUF 65536          /* any Ethernet frame the kernel hands over */

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A raw socket bound to ifname, promiscuous: its fd, or -errno with err. */
static int open_port(const char *ifname, char *err, size_t len)
{
    unsigned idx = if_nametoindex(ifname);
    int fd;

    if (idx == 0) {
        snprintf(err, len, "--port %s: no such network interface (a kernel interface: a port "
                 "DPDK holds is judged from a dpdk-dumpcap capture instead)", ifname);
        return -ENODEV;
    }
    /* Protocol 0 until bound: nothing from other interfaces is queued. */
    fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
                              .sll_ifindex = (int)idx};
    struct packet_mreq mr = {.mr_ifindex = (int)idx, .mr_type = PACKET_MR_PROMISC};
    if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) ||
        setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr))) {
        int e = errno;
        snprintf(err, len, "--port %s: %s%s", ifname, strerror(e),
                 e == EPERM ? " (a raw socket needs CAP_NET_RAW)" : "");
        if (fd >= 0)
            close(fd);
        return -e;
    }
    return fd;
}

int conform_live(struct conform *c, const char *ifname, double seconds, uint64_t max_frames,
                 uint64_t *n, char *err, size_t len)
{
    static uint8_t buf[FRAME_BUF];
    int fd = open_port(ifname, err, len);
    uint64_t end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);

    *n = 0;
    if (fd < 0)
        return fd;
    for (uint64_t now; (now = clock_ns(CLOCK_MONOTONIC)) < end &&
                       (!max_frames || *n < max_frames);) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        uint64_t ms = (end - now + 999999) / 1000000;
        if (poll(&p, 1, ms > 1000 ? 1000 : (int)ms) <= 0)
            continue;
        struct sockaddr_ll from;
        socklen_t flen = sizeof(from);
        ssize_t got = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
        if (got < 0 || from.sll_pkttype == PACKET_OUTGOING)
            continue;            /* this host's own frames are not the board's */
        conform_frame(c, ++*n, buf, (uint32_t)got, clock_ns(CLOCK_REALTIME));
    }
    close(fd);
    return 0;
}
