/* SPDX-License-Identifier: BSD-3-Clause */
/* test-memif_unmap.c - a memif peer SIGKILLed (client or server): DPDK's interrupt thread takes the link down at once but unmaps the regions only after this end's poll loop passes a quiescent point (lib/ebf_unmap.c). */
#include <check.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "check-main.h"
#include "ebf_guard.h"
#include "ebf_port.h"
#include "ebf_unmap.h"
#include "test-eal.h"

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* How many of this process's mappings are memif regions (memfds named
 * "memif_region_N": the client makes them, both ends map them). */
static int regions_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;

    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof(line), f))
        n += strstr(line, "memif_region_") != NULL;
    fclose(f);
    return n;
}

/* The SIGKILLed peer's EAL runtime directory (test_eal_init's prefix, next
 * to ours): it could not remove it itself. */
static void remove_peer_runtime_dir(pid_t peer)
{
    char ours[PATH_MAX], arg[64], dir[PATH_MAX + 64];

    snprintf(ours, sizeof(ours), "%s", rte_eal_get_runtime_dir());
    test_eal_prefix(arg, sizeof(arg), "t", peer);
    snprintf(dir, sizeof(dir), "%s/%s", dirname(ours), arg + strlen("--file-prefix="));
    check_remove_tree(dir);
}

/* One end of the link on a fresh EAL: a started port, link up within 10 s. */
static uint16_t memif_end(const char *role, const char *sock)
{
    char args[256];
    uint16_t port;
    static const volatile sig_atomic_t never;

    test_eal_init();
    snprintf(args, sizeof(args), "role=%s,socket=%s,socket-abstract=no", role, sock);
    ck_assert_int_eq(rte_vdev_init("net_memif0", args), 0);
    ck_assert_int_eq(rte_eth_dev_get_port_by_name("net_memif0", &port), 0);
    struct rte_mempool *mp = ebf_pool_create("unmap", 511, 2048, 0);
    ck_assert_ptr_nonnull(mp);
    ck_assert_int_eq(ebf_port_start(port, mp, 0, 256, 256), 0);
    ck_assert_int_eq(ebf_port_wait_up(port, &never, 10000), 0);
    return port;
}

static int link_up(uint16_t port)
{
    struct rte_eth_link l;

    ck_assert_int_eq(rte_eth_link_get_nowait(port, &l), 0);
    return l.link_status == RTE_ETH_LINK_UP;
}

/* This end's loop is online and holds off its quiescent point: after the
 * peer's SIGKILL the link goes down but the regions stay mapped (the
 * interrupt thread waits in munmap); one ebf_guard_pass, and they go. The
 * peer is a forked process (its own EAL); a client starts 0.5 s late. */
static void unmap_waits(const char *role, const char *peer_role)
{
    char sock[64];
    struct rte_mbuf *m[32];

    ck_assert_int_eq(ebf_unmap_guarded(), 1);
    snprintf(sock, sizeof(sock), "/tmp/ebftest-unmap%d.sock", (int)getpid());
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {                       /* the peer: connect, then idle */
        if (strcmp(peer_role, "client") == 0)
            sleep_ms(500);
        memif_end(peer_role, sock);
        for (;;)
            sleep_ms(1000);
    }
    if (strcmp(role, "client") == 0)
        sleep_ms(500);
    uint16_t port = memif_end(role, sock);
    ck_assert_int_eq(ebf_guard_online(), 0);
    ck_assert_uint_eq(rte_eth_rx_burst(port, 0, m, 32), 0);
    ebf_guard_pass();
    ck_assert_int_gt(regions_mapped(), 0);
    kill(child, SIGKILL);
    ck_assert_int_eq(waitpid(child, NULL, 0), child);
    remove_peer_runtime_dir(child);
    for (int i = 0; i < 500 && link_up(port); i++)
        sleep_ms(10);
    ck_assert_int_eq(link_up(port), 0);
    sleep_ms(300);                          /* well within EBF_UNMAP_WAIT_MS */
    ck_assert_int_gt(regions_mapped(), 0);
    ck_assert_uint_eq(rte_eth_rx_burst(port, 0, m, 32), 0);
    ebf_guard_pass();
    for (int i = 0; i < 200 && regions_mapped(); i++)
        sleep_ms(10);
    ck_assert_int_eq(regions_mapped(), 0);
    ebf_guard_offline();
    ebf_port_close(port);
    unlink(sock);
    ebf_eal_cleanup();
}

/* A readout dead under its SFC (the SFC is the memif server). */
START_TEST(test_server_survives_client)
{
    unmap_waits("server", "client");
}
END_TEST

/* An SFC dead under its readout or node (memif clients). */
START_TEST(test_client_survives_server)
{
    unmap_waits("client", "server");
}
END_TEST

Suite *memif_unmap_suite(void);

Suite *memif_unmap_suite(void)
{
    Suite *s = suite_create("memif_unmap");
    TCase *tc = tcase_create("unmap");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_server_survives_client);
    tcase_add_test(tc, test_client_survives_server);
    suite_add_tcase(s, tc);
    return s;
}
