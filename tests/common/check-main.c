/* SPDX-License-Identifier: BSD-3-Clause */
/* check-main.c - runs one Check suite, named at build time by EBF_SUITE, and removes the EAL runtime directories its tests left. */
#include "check-main.h"

#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Suite *EBF_SUITE(void);

/* A failed check's message may quote a whole command's output (a farm's
 * status or summary, up to 64 KiB in the farm tests); Check's default of
 * 4,096 bytes ends the test with "Message string too long" instead. */
#define MAX_MSG_SIZE (128u * 1024)

static pid_t runner;

pid_t check_runner_pid(void)
{
    return runner;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    return remove(path);
}

int check_remove_tree(const char *path)
{
    return nftw(path, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Removes every EAL runtime directory named for this runner's tests
 * (CHECK_EAL_PREFIX "<runner>-"): DPDK's runtime directory is
 * /var/run/dpdk/<prefix> for root, else $XDG_RUNTIME_DIR/dpdk/<prefix>
 * (/tmp when unset). A passed test removed its own (rte_eal_cleanup); a
 * failed one's forked process exited at the failed check. Returns the
 * directories removed. */
static unsigned remove_runtime_dirs(void)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char base[PATH_MAX], name[64], path[PATH_MAX + 256];
    unsigned n = 0;
    struct dirent *e;
    DIR *d;

    snprintf(base, sizeof(base), "%s/dpdk", getuid() == 0 ? "/var/run" : xdg ? xdg : "/tmp");
    snprintf(name, sizeof(name), CHECK_EAL_PREFIX "%d-", (int)runner);
    d = opendir(base);
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, name, strlen(name)) != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
        n += check_remove_tree(path) == 0;
    }
    closedir(d);
    return n;
}

int main(void)
{
    SRunner *sr;
    int failed;
    unsigned left;

    runner = getpid();
    check_set_max_msg_size(MAX_MSG_SIZE);
    sr = srunner_create(EBF_SUITE());

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    left = remove_runtime_dirs();
    if (left)
        printf("removed %u EAL runtime director%s its tests left\n", left, left == 1 ? "y" : "ies");
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
