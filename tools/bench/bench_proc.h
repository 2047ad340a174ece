/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_proc.h - one run of a DPDK program: started, stopped on time or killed, its runtime directory removed. */
#ifndef BENCH_PROC_H
#define BENCH_PROC_H

#include <stddef.h>
#include <stdint.h>

/* How a run is to end. */
struct bench_proc_limits {
    double interrupt_after_s;    /* > 0: send SIGINT after this long (a program that runs until stopped) */
    double timeout_s;            /* SIGKILL after this long: the run failed */
};

/*
 * Run argv (argv[0] a path or a name looked up in PATH, NULL-terminated)
 * with stdout and stderr to out_path, stdin from /dev/null. It ends by
 * itself, or on the SIGINT of lim; if it still runs at lim->timeout_s it is
 * killed, with every process of its session (it runs in a session of its
 * own, so that a Ctrl-C at the terminal reaches the tool only). Whatever happened, the DPDK runtime directory of file_prefix is
 * removed. Returns 0 when it exited with status 0, else -1 with the reason
 * in err ("timed out after 30 s", "exited with status 1", ...).
 */
int bench_proc_run(char *const argv[], const char *out_path, const struct bench_proc_limits *lim,
                   const char *file_prefix, char *err, size_t len);

/* The same in two steps, for a program that must run beside another:
 * start it (returns its pid, or -1 with errno), then wait for it with lim
 * counted from the call to bench_proc_wait. */
int bench_proc_start(char *const argv[], const char *out_path);
/* bench_proc_start started on the CPUs of the mask cpus (CPUs 0..63; 0:
 * those of the tool). */
int bench_proc_start_on(char *const argv[], const char *out_path, uint64_t cpus);
int bench_proc_wait(int pid, const char *name, const char *out_path,
                    const struct bench_proc_limits *lim, const char *file_prefix, char *err,
                    size_t len);

/* The DPDK runtime directory of file_prefix: /var/run/dpdk/<prefix> as
 * root, else $XDG_RUNTIME_DIR/dpdk/<prefix> (or /tmp/dpdk/<prefix>). */
void bench_runtime_dir(const char *file_prefix, char *buf, size_t len);

#endif /* BENCH_PROC_H */
