/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_soak.h - ebfarm soak: its options, then the soak. */
#ifndef CMD_SOAK_H
#define CMD_SOAK_H

/* ebfarm soak with its own argv (argv[0] is the command name); returns the
 * exit status (soak_run.h; 2 for a bad option). */
int cmd_soak(int argc, char **argv);

/* A duration: seconds, or a number with the suffix s, m, h or d; in
 * [min, max] seconds. 0, or -1 after a message naming opt. */
int soak_parse_duration(const char *opt, const char *val, double min, double max, double *out);

#endif /* CMD_SOAK_H */
