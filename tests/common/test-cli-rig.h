/* SPDX-License-Identifier: BSD-3-Clause */
/* test-cli-rig.h - the farm tests' rig for the ebfarm command: a run directory of the test's own, commands, output. */
#ifndef TEST_CLI_RIG_H
#define TEST_CLI_RIG_H

#include <stddef.h>
#include <stdint.h>

/* The test's run directory (EBFARM_RUN_DIR of every command) and the
 * ebfarm executable of the build under test. */
struct cli_rig {
    char base[64];
    char ebfarm[512];
};

/* Make /tmp/ebf-<tag>-XXXXXX and find the build's ebfarm; aborts when the
 * directory cannot be made (the parent side of a test, no Check there). */
void cli_rig_init(struct cli_rig *r, const char *tag);

/* Take farm down if a failed test left it up, then remove the directory. */
void cli_rig_fini(const struct cli_rig *r, const char *farm);

/* Run "ebfarm ARGS" under the rig's run directory, stdout and stderr into
 * out (len bytes, NUL-terminated); its exit status, or -1 when killed. */
int cli_run(const struct cli_rig *r, const char *args, char *out, size_t len);

/* The file in the run directory where a shell of the test writes its pid
 * ("echo $$") before it execs ebfarm: that ebfarm's pid, which names its
 * processes' DPDK prefixes (ebf<pid>-<farm>-<process>). */
#define CLI_PID_FILE ".ebfarm-pid"

/* cli_run, the ebfarm exec'd by the shell that wrote CLI_PID_FILE: its
 * pid in *pid (read and removed). */
int cli_run_pid(const struct cli_rig *r, const char *args, char *out, size_t len, int *pid);

/* The pid in CLI_PID_FILE, which is then removed; the test fails when
 * there is none. */
int cli_last_pid(const struct cli_rig *r);

/* The first of n consecutive TCP ports on 127.0.0.1 that nothing holds
 * now, below the kernel's ephemeral range (ip_local_port_range) so that no
 * outgoing connection takes one before the daemons bind it; the search
 * starts at a place of this process's own. The test fails when there is
 * no such run. */
int cli_free_ports(unsigned n);

/* How often needle occurs in hay. */
unsigned count_of(const char *hay, const char *needle);

/* The number after "key": in json; the test fails when there is none. */
uint64_t json_u64(const char *json, const char *key);

#endif /* TEST_CLI_RIG_H */
