/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_unmap.c - munmap for the daemons: DPDK's interrupt thread unmaps a dead memif peer's rings only after the poll loops' grace period. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_interrupts.h>
#include <rte_log.h>

#include "ebf_guard.h"
#include "ebf_unmap.h"

#define UNMAP_LOG(level, ...) rte_log(RTE_LOG_##level, RTE_LOGTYPE_USER1, "unmap: " __VA_ARGS__)

/*
 * The race this closes (DPDK 22.11, drivers/net/memif): when a memif peer
 * dies, the kernel closes its end of the control socket; DPDK's interrupt
 * thread reads the hang-up and calls memif_disconnect, which clears the
 * port's connected flag and then, at once, munmaps the shared regions
 * (rings and buffers) and frees their descriptors. A poll loop that passed
 * the connected check of rte_eth_rx_burst or tx_burst just before is still
 * walking those rings: it faults (SIGSEGV) or reads a freed region table.
 * The PMD raises no ethdev event before the unmap and takes no lock a burst
 * also takes, so the application cannot be told in time; but the PMD's own
 * munmap call is resolved through the dynamic linker, and the daemons
 * export this definition (lib/meson.build), so it is the one the PMD calls.
 *
 * On the interrupt thread only, munmap first waits for the poll loops'
 * grace period (ebf_guard_sync): by then the connected flag is clear, so no
 * burst can begin on the port, and every burst that began before has ended.
 * Everything memif_disconnect does after its first munmap (the other
 * regions, the region table, the run state) is then safe as well. Any other
 * thread, and any munmap of the interrupt thread while no loop is online,
 * goes straight to the system call. A loop stuck for EBF_UNMAP_WAIT_MS
 * (a stopped process) is not waited for longer: the unmap then goes ahead,
 * as without the guard, with a warning.
 */
__attribute__((used, visibility("default")))
int munmap(void *addr, size_t len)
{
    if (rte_thread_is_intr()) {
        uint64_t us = 0;
        if (ebf_guard_sync(EBF_UNMAP_WAIT_MS, &us) != 0)
            UNMAP_LOG(WARNING, "a poll loop did not pass within %u ms; unmapping %zu bytes "
                      "of a departed peer anyway\n", EBF_UNMAP_WAIT_MS, len);
        else
            UNMAP_LOG(DEBUG, "unmapping %zu bytes after the poll loops passed (%" PRIu64
                      " us)\n", len, us);
    }
    return (int)syscall(SYS_munmap, addr, len);
}

int ebf_unmap_guarded(void)
{
    return 1;
}
