/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_mtu.c - the MTU a port and a pool carry, checked against net_ring, net_memif and net_af_packet ports. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_mtu.h"
#include "ebf_port.h"
#include "test-eal.h"

static char err[256];

/* A vdev made in this process; its port id. */
static uint16_t vdev(const char *name, const char *args)
{
    uint16_t port;

    ck_assert_msg(rte_vdev_init(name, args) == 0, "cannot create %s,%s", name, args);
    ck_assert_int_eq(rte_eth_dev_get_port_by_name(name, &port), 0);
    return port;
}

static struct rte_mempool *pool(const char *name, uint16_t room)
{
    struct rte_mempool *mp = ebf_pool_create(name, 511, room, 0);

    ck_assert_ptr_nonnull(mp);
    return mp;
}

/* The rooms pools get: the MTU's frame, never below 2048 B. */
START_TEST(test_rx_room)
{
    ck_assert_uint_eq(ebf_port_rx_room(UINT16_MAX, 1500), 2048);
    ck_assert_uint_eq(ebf_port_rx_room(UINT16_MAX, 2030), 2048);
    ck_assert_uint_eq(ebf_port_rx_room(UINT16_MAX, 2031), 2049);
    ck_assert_uint_eq(ebf_port_rx_room(UINT16_MAX, 9000), 9018);
    ck_assert_uint_eq(ebf_port_rx_room(UINT16_MAX, 9600), 9618);
}
END_TEST

/* net_ring carries any MTU: only the pool limits it, and ebf_port_start
 * sets the MTU the check allowed. */
START_TEST(test_ring_and_pool)
{
    struct rte_mempool *small, *jumbo;
    uint16_t port, mtu;

    test_eal_init();
    port = test_ring_port("r", test_ring("r_rx", 64), test_ring("r_tx", 64));
    small = pool("small", 2048);
    jumbo = pool("jumbo", ebf_port_rx_room(port, 9000));
    ck_assert_int_eq(ebf_port_mtu_check(port, "r", 2030, small, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_port_mtu_check(port, "r", 2031, small, err, sizeof(err)), -EMSGSIZE);
    ck_assert_str_eq(err, "the pool's data room of 2048 B carries at most 2030");
    ck_assert_int_eq(ebf_port_mtu_check(port, "r", 9000, small, err, sizeof(err)), -EMSGSIZE);
    ck_assert_str_eq(err, "the pool's data room of 2048 B carries at most 2030");
    ck_assert_int_eq(ebf_port_mtu_check(port, "r", 9000, NULL, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_port_mtu_check(port, "r", 9000, jumbo, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_port_mtu_check(port, "r", 9001, jumbo, err, sizeof(err)), -EMSGSIZE);
    ck_assert_str_eq(err, "the pool's data room of 9018 B carries at most 9000");
    ck_assert_int_eq(ebf_port_mtu_check(port, "r", 45, NULL, err, sizeof(err)), -EMSGSIZE);
    ck_assert_str_eq(err, "port 'r' takes at least 46 (min_mtu)");
    ck_assert_int_eq(ebf_port_mtu_by_buffer(port), 0);
    ck_assert_int_eq(ebf_port_start(port, jumbo, 9000, 64, 64), 0);
    ck_assert_int_eq(rte_eth_dev_get_mtu(port, &mtu), 0);
    ck_assert_uint_eq(mtu, 9000);
    ebf_port_close(port);
    ebf_eal_cleanup();
}
END_TEST

/* memif: its buffer (bsize, 2048 by default) limits a frame, not ethdev's
 * 1518; the port keeps ethdev's default MTU. */
START_TEST(test_memif_bsize)
{
    char args[256], sock[64];
    uint16_t dflt, big, mtu;

    test_eal_init();
    snprintf(sock, sizeof(sock), "/tmp/ebftest-mtu%d", (int)getpid());
    snprintf(args, sizeof(args), "role=server,socket=%s-0.sock,socket-abstract=no", sock);
    dflt = vdev("net_memif0", args);
    snprintf(args, sizeof(args), "role=server,socket=%s-1.sock,socket-abstract=no,bsize=9024",
             sock);
    big = vdev("net_memif1", args);
    ck_assert_int_eq(ebf_port_mtu_by_buffer(dflt), 1);
    ck_assert_int_eq(ebf_port_mtu_check(dflt, "net_memif0", 2030, NULL, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_port_mtu_check(dflt, "net_memif0", 9000, NULL, err, sizeof(err)),
                     -EMSGSIZE);
    ck_assert_str_eq(err, "port 'net_memif0' carries at most 2030 (memif bsize 2048; give "
                          "bsize=9018 or more)");
    ck_assert_int_eq(ebf_port_mtu_check(big, "net_memif1", 9000, NULL, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_port_mtu_check(big, "net_memif1", 9600, NULL, err, sizeof(err)),
                     -EMSGSIZE);
    ck_assert_str_eq(err, "port 'net_memif1' carries at most 9006 (memif bsize 9024; give "
                          "bsize=9618 or more)");
    ck_assert_uint_eq(ebf_port_rx_room(dflt, 1500), 2048);
    ck_assert_uint_eq(ebf_port_rx_room(big, 1500), 9024);   /* a buffer per mbuf */
    ck_assert_uint_eq(ebf_port_rx_room(big, 9000), 9024);
    /* ethdev would refuse 9000 on memif (max_rx_pktlen 1518): not set */
    ck_assert_int_eq(ebf_port_start(big, pool("m", 9018), 9000, 64, 64), 0);
    ck_assert_int_eq(rte_eth_dev_get_mtu(big, &mtu), 0);
    ck_assert_uint_eq(mtu, 1500);
    ebf_port_close(dflt);
    ebf_port_close(big);
    ebf_eal_cleanup();
}
END_TEST

/* af_packet on lo: its ring frames (framesz, 2048 by default, 32 B of
 * header) limit a frame, and its RX fills a whole ring frame per mbuf. */
START_TEST(test_af_packet_framesz)
{
    struct rte_mempool *jumbo;
    uint16_t dflt, big;

    test_eal_init();
    dflt = vdev("net_af_packet0", "iface=lo");
    big = vdev("net_af_packet1", "iface=lo,blocksz=16384,framesz=16384,framecnt=16");
    jumbo = pool("jumbo", 9018);
    ck_assert_int_eq(ebf_port_mtu_by_buffer(dflt), 1);
    ck_assert_int_eq(ebf_port_mtu_check(dflt, "p0", 1998, NULL, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_port_mtu_check(dflt, "p0", 1999, NULL, err, sizeof(err)), -EMSGSIZE);
    ck_assert_str_eq(err, "port 'p0' carries at most 1998 (af_packet framesz 2048; give "
                          "framesz=2049 or more)");
    ck_assert_int_eq(ebf_port_mtu_check(big, "p1", 9000, NULL, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_port_mtu_check(big, "p1", 9000, jumbo, err, sizeof(err)), -EMSGSIZE);
    ck_assert_str_eq(err, "the pool's data room of 9018 B is below the 16352 B af_packet fills "
                          "per mbuf (framesz 16384)");
    ck_assert_uint_eq(ebf_port_rx_room(big, 9000), 16352);
    ck_assert_uint_eq(ebf_port_rx_room(dflt, 1500), 2048);
    ebf_port_close(dflt);
    ebf_port_close(big);
    ebf_eal_cleanup();
}
END_TEST

Suite *ebf_mtu_suite(void);

Suite *ebf_mtu_suite(void)
{
    Suite *s = suite_create("ebf_mtu");
    TCase *tc = tcase_create("mtu");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_rx_room);
    tcase_add_test(tc, test_ring_and_pool);
    tcase_add_test(tc, test_memif_bsize);
    tcase_add_test(tc, test_af_packet_framesz);
    suite_add_tcase(s, tc);
    return s;
}
