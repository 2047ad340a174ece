/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_bench.h - ebfarm bench: ebfarm against reference runs, side by side, as a table, JSON or CSV. */
#ifndef CMD_BENCH_H
#define CMD_BENCH_H

/* ebfarm bench with its own argv (argv[0] is the command name). Returns
 * the exit status: 0 when every case measured, 1 when a run failed, 2 for
 * a bad option (after a message naming it). */
int cmd_bench(int argc, char **argv);

#endif /* CMD_BENCH_H */
