/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_events.h - ebfarm events: verify, dump and count the nodes' event storage files. */
#ifndef CMD_EVENTS_H
#define CMD_EVENTS_H

/* argv[0] is "events"; returns the exit status (1: a file damaged or cut
 * short, 2: usage). */
int cmd_events(int argc, char **argv);

#endif /* CMD_EVENTS_H */
