/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_conform.c - ebfarm conform FILE.pcapng | --port IFACE: a readout board's capture, or its frames live on a port, judged against docs/protocol.md, per rule, per source, with a verdict. */
#include "cmd_conform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "conform_live.h"
#include "conform_pcap.h"

static const char usage[] =
    "usage: ebfarm conform FILE [--json] [--sources N] [--mtu M] [--sfc-mac MAC]\n"
    "                           [--udp-port P]\n"
    "       ebfarm conform --port IFACE [--seconds S] [--frames N] [options above]\n"
    "  judge the frames of a readout board's capture (pcapng from dpdk-dumpcap or\n"
    "  tshark, or pcap from tcpdump) against docs/protocol.md: the SFC's receive\n"
    "  rules of section 4.3 one by one (encapsulation, frame type, fragment header,\n"
    "  CRC32C, size at the MTU, unicast, destination), one MAC per source, the\n"
    "  sequence per source (section 11), one frag_len per fragment and no byte of\n"
    "  a fragment in two pieces (overlap, section 4.1). Prints per\n"
    "  rule the frames checked, the deviations and the first frame numbers, per\n"
    "  source the frames, events, sequence figures and pacing, and a verdict\n"
    "  (docs/boards.md). Frames that are not ebfarm (ARP, LLDP) and the SFC's\n"
    "  throttle frames are counted, not judged.\n"
    "  --port IFACE  judge the frames a kernel interface receives, live (a board\n"
    "                cabled to it, a mirror port, a veth; needs CAP_NET_RAW)\n"
    "  --seconds S   with --port: listen S seconds (default 10)\n"
    "  --frames N    with --port: stop after N frames (default: no limit)\n"
    "  --sources N   the farm's sources: a source id at or above is bad (default 128)\n"
    "  --mtu M       the farm's MTU (default 1500)\n"
    "  --sfc-mac MAC the SFC's MAC: frames to another are deviations (default: any)\n"
    "  --udp-port P  the UDP port of fragments (default 50505)\n"
    "  --json        one JSON object\n"
    "Exit status: 0 pass, 1 fail, 2 bad arguments or an unreadable capture.\n";

static int parse_mac(const char *s, uint8_t *mac)
{
    unsigned v[6];
    char end;

    if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &end) != 6)
        return -1;
    for (int i = 0; i < 6; i++) {
        if (v[i] > 255)
            return -1;
        mac[i] = (uint8_t)v[i];
    }
    return 0;
}

/* An integer option in [lo, hi]: 0, or -1. */
static int parse_num(const char *s, unsigned long lo, unsigned long hi, uint16_t *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);

    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = (uint16_t)v;
    return 0;
}

/* Every frame of path into c: 0, or 2 with the reason on stderr. */
static int judge_file(struct conform *c, const char *path)
{
    struct cap_file f;
    struct cap_frame fr;
    char err[256];
    uint64_t n = 0;
    int r;

    if (cap_open(&f, path, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm conform: %s\n", err);
        cap_close(&f);
        return 2;
    }
    while ((r = cap_next(&f, &fr, err, sizeof(err))) == 1)
        if (fr.ethernet)
            conform_frame(c, ++n, fr.data, fr.caplen, fr.ns);
    cap_close(&f);
    if (r < 0) {
        fprintf(stderr, "ebfarm conform: %s: %s after frame %llu\n", path, err,
                (unsigned long long)n);
        return 2;
    }
    return 0;
}

/* A number of seconds in (0, 86400] or of frames: 0, or -1. */
static int parse_pos(const char *s, double max, double *out)
{
    char *end;
    double v = strtod(s, &end);

    if (!*s || *end || !(v > 0 && v <= max))
        return -1;
    *out = v;
    return 0;
}

/* The frames of iface for seconds (or max_frames) into c: 0, or 2 with
 * the reason on stderr. */
static int judge_port(struct conform *c, const char *iface, double seconds, double max_frames)
{
    char err[256];
    uint64_t n;

    if (conform_live(c, iface, seconds, (uint64_t)max_frames, &n, err, sizeof(err))) {
        fprintf(stderr, "ebfarm conform: %s\n", err);
        return 2;
    }
    return 0;
}

int cmd_conform(int argc, char **argv)
{
    static struct conform c;     /* 60 KB: off the stack */
    const char *path = NULL, *iface = NULL;
    uint16_t sources = 128, mtu = 1500, port = 50505;
    uint8_t mac[6];
    int json = 0, have_mac = 0;
    double seconds = 10, frames = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--json") == 0)
            json = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return fputs(usage, stdout), 0;
        else if (strcmp(a, "--sources") == 0 && v)
            bad = parse_num(argv[++i], 1, 128, &sources);
        else if (strcmp(a, "--mtu") == 0 && v)
            bad = parse_num(argv[++i], 256, 9600, &mtu);
        else if (strcmp(a, "--udp-port") == 0 && v)
            bad = parse_num(argv[++i], 1, 65535, &port);
        else if (strcmp(a, "--sfc-mac") == 0 && v)
            bad = parse_mac(argv[++i], mac), have_mac = 1;
        else if (strcmp(a, "--port") == 0 && v && !iface)
            iface = argv[++i];
        else if (strcmp(a, "--seconds") == 0 && v)
            bad = parse_pos(argv[++i], 86400, &seconds);
        else if (strcmp(a, "--frames") == 0 && v)
            bad = parse_pos(argv[++i], 1e15, &frames);
        else if (a[0] != '-' && !path)
            path = a;
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "ebfarm conform: bad argument '%s'\n%s", argv[i], usage);
            return 2;
        }
    }
    if (!path == !iface) {       /* one of a capture and a port */
        fputs(usage, stderr);
        return 2;
    }
    conform_init(&c, sources, mtu, have_mac ? mac : NULL, port);
    int rc = path ? judge_file(&c, path) : judge_port(&c, iface, seconds, frames);
    if (rc)
        return rc;
    conform_report(&c, stdout, json);
    return conform_passed(&c) ? 0 : 1;
}
