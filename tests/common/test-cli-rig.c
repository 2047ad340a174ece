/* SPDX-License-Identifier: BSD-3-Clause */
/* test-cli-rig.c - the farm tests' rig for the ebfarm command: a run directory of the test's own, commands, output. */
#include "test-cli-rig.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PORT_LOW 10000          /* the lowest port cli_free_ports() gives */

void cli_rig_init(struct cli_rig *r, const char *tag)
{
    const char *dir = getenv("EBFARM_BUILD_DIR");

    snprintf(r->ebfarm, sizeof(r->ebfarm), "%s/tools/ebfarm", dir ? dir : ".");
    snprintf(r->base, sizeof(r->base), "/tmp/ebf-%s-XXXXXX", tag);
    if (!mkdtemp(r->base))
        abort();
}

void cli_rig_fini(const struct cli_rig *r, const char *farm)
{
    char cmd[1400];

    snprintf(cmd, sizeof(cmd), "test ! -e %s/%s/farm.state || EBFARM_RUN_DIR=%s %s down; "
             "rm -rf '%s'", r->base, farm, r->base, r->ebfarm, r->base);
    if (system(cmd) != 0)
        fprintf(stderr, "teardown: %s failed\n", cmd);
}

/* The lowest ephemeral port, 32768 when the file cannot be read. */
static int ephemeral_low(void)
{
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    int lo = 32768, hi;

    if (f) {
        if (fscanf(f, "%d %d", &lo, &hi) != 2)
            lo = 32768;
        fclose(f);
    }
    return lo;
}

/* Whether a listening socket can be bound to 127.0.0.1:port now, with
 * SO_REUSEADDR as ZeroMQ binds (a port only in TIME_WAIT is free). */
static int port_free(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int one = 1, ok;
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (s < 0)
        return 0;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    ok = bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(s, 1) == 0;
    close(s);
    return ok;
}

int cli_free_ports(unsigned n)
{
    int hi = ephemeral_low() - (int)n;
    int span = hi - PORT_LOW;

    ck_assert_msg(span > 0, "no ports below the ephemeral range (it starts at %d)", hi + (int)n);
    int start = PORT_LOW + (int)(getpid() % (unsigned)span);
    for (int k = 0; k < span; k += (int)n) {
        int base = PORT_LOW + (start - PORT_LOW + k) % span;
        unsigned i = 0;

        while (i < n && port_free(base + (int)i))
            i++;
        if (i == n)
            return base;
    }
    ck_abort_msg("no %u free consecutive ports in %d..%d", n, PORT_LOW, hi + (int)n - 1);
    return -1;
}

/* Run cmd under sh, its output into out (len bytes, NUL-terminated); its
 * exit status, or -1 when killed. */
static int run_shell(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int cli_run(const struct cli_rig *r, const char *args, char *out, size_t len)
{
    char cmd[2048];

    snprintf(cmd, sizeof(cmd), "EBFARM_RUN_DIR=%s %s %s 2>&1", r->base, r->ebfarm, args);
    return run_shell(cmd, out, len);
}

int cli_run_pid(const struct cli_rig *r, const char *args, char *out, size_t len, int *pid)
{
    char cmd[2048];

    snprintf(cmd, sizeof(cmd),
             "echo $$ >'%s/" CLI_PID_FILE "' && EBFARM_RUN_DIR=%s exec %s %s 2>&1", r->base,
             r->base, r->ebfarm, args);
    int rc = run_shell(cmd, out, len);
    *pid = cli_last_pid(r);
    return rc;
}

int cli_last_pid(const struct cli_rig *r)
{
    char path[128];
    int pid = 0;

    snprintf(path, sizeof(path), "%s/" CLI_PID_FILE, r->base);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no %s", path);
    ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
    fclose(f);
    unlink(path);
    return pid;
}

unsigned count_of(const char *hay, const char *needle)
{
    unsigned n = 0;

    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

uint64_t json_u64(const char *json, const char *key)
{
    char k[64];

    snprintf(k, sizeof(k), "\"%s\":", key);
    const char *p = strstr(json, k);
    ck_assert_msg(p != NULL, "no %s in %s", key, json);
    return strtoull(p + strlen(k), NULL, 10);
}
