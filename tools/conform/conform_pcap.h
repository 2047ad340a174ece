/* SPDX-License-Identifier: BSD-3-Clause */
/* conform_pcap.h - a small reader of capture files: pcapng (dpdk-dumpcap, tshark) and classic pcap (tcpdump), Ethernet frames with their times. */
#ifndef CONFORM_PCAP_H
#define CONFORM_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAP_IFACES 16

/* An open capture; one frame at a time (cap_next). */
struct cap_file {
    FILE *f;
    int ng;                      /* pcapng, else classic pcap */
    int swap;                    /* the file's byte order is not ours */
    uint64_t ns_per_tick;        /* classic pcap: 1000 (us) or 1 (ns) */
    uint64_t tick_hz[CAP_IFACES];    /* pcapng: the interface's ticks per second */
    uint16_t link[CAP_IFACES];       /* the interface's link type (1: Ethernet) */
    unsigned n_if;
    uint8_t *buf;
    size_t cap;
};

/* One frame: its bytes (as captured), its length on the wire, its time in
 * ns since the epoch, and whether its link is Ethernet. */
struct cap_frame {
    const uint8_t *data;
    uint32_t caplen, len;
    uint64_t ns;
    int ethernet;
};

/* Open path; 0, or -1 with why in err (not a capture, unreadable). */
int cap_open(struct cap_file *c, const char *path, char *err, size_t len);
/* The next frame: 1, 0 at the end, -1 with why in err (a damaged file). */
int cap_next(struct cap_file *c, struct cap_frame *fr, char *err, size_t len);
void cap_close(struct cap_file *c);

#endif /* CONFORM_PCAP_H */
