/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_conform.h - ebfarm conform FILE.pcapng: a readout board's capture judged against docs/protocol.md. */
#ifndef CMD_CONFORM_H
#define CMD_CONFORM_H

/* ebfarm conform FILE [--json] [--sources N] [--mtu M] [--sfc-mac MAC]
 * [--udp-port P] (argv[0] is the command name). Returns 0 when every
 * frame conforms, 1 when a rule was broken (or no fragment frame was
 * found), 2 for bad arguments or an unreadable capture. */
int cmd_conform(int argc, char **argv);

#endif /* CMD_CONFORM_H */
