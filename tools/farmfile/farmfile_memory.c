/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_memory.c - the memory an SFC's mbuf pools take at the run's MTU, checked against its memory_mb before anything starts. */
#include "farmfile_memory.h"

#include <errno.h>

#include "farmfile_value.h"

#define SFC_ACK_MBUFS 4095       /* sfc/main.c: sfc_ack, at the nodes' data room */
#define SFC_HDR_MBUFS 8191       /* sfc_hdr, 128 B of data room each */
#define SFC_HDR_ROOM 128
#define MB (1024 * 1024)

uint64_t ff_sfc_pool_bytes(uint16_t mtu, uint32_t mbufs)
{
    uint64_t room = (uint64_t)mtu + FF_L2_MAX_HLEN, per = FF_MBUF_STRUCT + FF_MBUF_HEADROOM;

    room = room < FF_ROOM_MIN ? FF_ROOM_MIN : room;
    return (uint64_t)mbufs * (per + room)               /* sfc_rx */
           + (uint64_t)mbufs * FF_MBUF_STRUCT           /* sfc_clone: no data room */
           + (uint64_t)SFC_ACK_MBUFS * (per + room)
           + (uint64_t)SFC_HDR_MBUFS * (per + SFC_HDR_ROOM);
}

int ff_check_memory(const struct farm_spec *s, const char *where, char *err, size_t errlen)
{
    struct ff_chk c = {.s = s, .where = where, .err = err, .errlen = errlen};

    for (unsigned i = 0; i < s->n_sfcs; i++) {
        const struct ff_sfc *f = &s->sfc[i];
        uint64_t need = (ff_sfc_pool_bytes(s->run.mtu, f->mbufs) + MB - 1) / MB;
        uint64_t room = (uint64_t)s->run.mtu + FF_L2_MAX_HLEN;

        if (need < f->p.memory_mb)
            continue;
        /* The rest of the process (EAL, the pools' own overheads, rings,
         * the event table) wants more: measured with farms/demo.yaml's SFC
         * on DPDK 22.11 without hugepages, 161..192 MB at MTU 1500 (pools
         * 92 MB) and 449..464 MB at 9000 (334 MB); a fifth and 64 MB on
         * top, rounded up to 64 MB, starts both (192 and 512). */
        uint64_t give = (need + need / 5 + 64 + 63) / 64 * 64;
        return FAIL(&c, "key 'sfcs[%u].memory_mb': %u MB cannot hold %s's mbuf pools at "
                    "run.mtu %u: they take at least %llu MB (%u receive mbufs of %llu B, and "
                    "its clone, ack and header pools); give memory_mb: %llu or more, or a "
                    "smaller run.mtu or sfcs[%u].mbufs", i, f->p.memory_mb, f->p.name,
                    s->run.mtu, (unsigned long long)need, f->mbufs,
                    (unsigned long long)(room < FF_ROOM_MIN ? FF_ROOM_MIN : room),
                    (unsigned long long)give, i);
    }
    return 0;
}
