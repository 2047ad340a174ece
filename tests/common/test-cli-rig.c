/* SPDX-License-Identifier: BSD-3-Clause */
/* test-cli-rig.c - the farm tests' rig for the ebfarm command: a run directory of the test's own, commands, output. */
#include "test-cli-rig.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

int cli_run(const struct cli_rig *r, const char *args, char *out, size_t len)
{
    char cmd[2048];

    snprintf(cmd, sizeof(cmd), "EBFARM_RUN_DIR=%s %s %s 2>&1", r->base, r->ebfarm, args);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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
