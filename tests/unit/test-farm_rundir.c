/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_rundir.c - planted links, other users' and world-writable run directories refused, their targets untouched. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "farm_proc.h"
#include "farm_rundir.h"
#include "farm_runid.h"
#include "farm_state.h"

static char top[] = "/tmp/ebf-rundir-XXXXXX";
static char base[64], victim[64], err[1024], want[1024];

static void setup(void)
{
    snprintf(top, sizeof(top), "/tmp/ebf-rundir-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(top));
    snprintf(base, sizeof(base), "%s/run", top);
    snprintf(victim, sizeof(victim), "%s/victim", top);
    ck_assert_int_eq(mkdir(base, 0700), 0);
    ck_assert_int_eq(setenv("EBFARM_RUN_DIR", base, 1), 0);
    err[0] = '\0';
}

static void teardown(void)
{
    char cmd[96];

    snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", top, top);
    ck_assert_int_eq(system(cmd), 0);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static const char *file_text(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    size_t n;

    ck_assert_ptr_nonnull(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void plant(const char *target, const char *name)
{
    char link[128];

    snprintf(link, sizeof(link), "%s/%s", base, name);
    ck_assert_int_eq(symlink(target, link), 0);
}

/* <base>/demo -> a directory of someone else's: up, find (status, stop,
 * down) and the removal refuse it; the directory, its mode and its file
 * stay as they were. */
START_TEST(test_farm_dir_link)
{
    char dir[128], keep[128];
    struct farm_state st;
    struct stat sb;

    ck_assert_int_eq(mkdir(victim, 0755), 0);
    snprintf(keep, sizeof(keep), "%s/farm.state", victim);
    put_file(keep, "farm demo\nproc x sfc 1 p c m - 0 0\n");
    plant(victim, "demo");
    snprintf(dir, sizeof(dir), "%s/demo", base);
    ck_assert_int_eq(farm_rundir_secure(dir, 1, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "the run directory %s is a symbolic link: refused (remove it; "
             "ebfarm makes its own, mode 0700)", dir);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(farm_state_find("demo", &st, err, sizeof(err)), -1);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(farm_state_find(NULL, &st, err, sizeof(err)), -1);
    ck_assert_str_eq(err, want);
    errno = 0;
    ck_assert_int_eq(farm_rundir_remove(dir), -1);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert_int_eq(stat(victim, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 07777, 0755);
    ck_assert_str_eq(file_text(keep), "farm demo\nproc x sfc 1 p c m - 0 0\n");
}
END_TEST

/* A link inside a run directory is removed itself, never what it points to. */
START_TEST(test_remove_tree)
{
    char dir[128], path[160], keep[128];

    ck_assert_int_eq(mkdir(victim, 0755), 0);
    snprintf(keep, sizeof(keep), "%s/data", victim);
    put_file(keep, "precious\n");
    snprintf(dir, sizeof(dir), "%s/demo", base);
    ck_assert_int_eq(farm_rundir_secure(dir, 1, err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/sub", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/sub/to-victim", dir);
    ck_assert_int_eq(symlink(victim, path), 0);
    snprintf(path, sizeof(path), "%s/sfc0.log", dir);
    ck_assert_int_eq(symlink(keep, path), 0);
    ck_assert_int_eq(farm_rundir_remove(dir), 0);
    ck_assert_int_eq(access(dir, F_OK), -1);
    ck_assert_str_eq(file_text(keep), "precious\n");
    ck_assert_int_eq(farm_rundir_remove(dir), 0);      /* gone already: nothing to do */
}
END_TEST

/* sfc0.log -> victim: the daemon is not started, the victim not truncated. */
START_TEST(test_log_link)
{
    char dir[128], keep[128];
    char *argv[] = {"/bin/true", NULL};

    snprintf(keep, sizeof(keep), "%s/victim-file", top);
    put_file(keep, "precious\n");
    snprintf(dir, sizeof(dir), "%s/demo", base);
    ck_assert_int_eq(farm_rundir_secure(dir, 1, err, sizeof(err)), 0);
    plant(keep, "demo/sfc0.log");
    ck_assert_int_eq(farm_spawn(argv, dir, "sfc0", err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot create %s/sfc0.log: it is a symbolic link (refused)",
             dir);
    ck_assert_str_eq(err, want);
    ck_assert_str_eq(file_text(keep), "precious\n");
}
END_TEST

/* .demo.lock -> victim: no lock, the victim not written. */
START_TEST(test_lock_link)
{
    char keep[128];

    snprintf(keep, sizeof(keep), "%s/victim-file", top);
    put_file(keep, "precious\n");
    plant(keep, ".demo.lock");
    ck_assert_int_eq(farm_state_lock("demo", "up", err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot open the lock %s/.demo.lock: it is a symbolic link "
             "(refused)", base);
    ck_assert_str_eq(err, want);
    ck_assert_str_eq(file_text(keep), "precious\n");
}
END_TEST

/* The lock file goes only when this process holds it and the farm has no
 * state: not another farm's, not while farm.state exists. */
START_TEST(test_lock_remove)
{
    char lock[128], other[128], dir[128], state[160];

    snprintf(lock, sizeof(lock), "%s/.demo.lock", base);
    snprintf(other, sizeof(other), "%s/.other.lock", base);
    put_file(other, "'ebfarm up' (pid 1)\n");
    farm_state_lock_remove("other");            /* not held: stays */
    ck_assert_int_eq(access(other, F_OK), 0);
    ck_assert_int_ge(farm_state_lock("demo", "down", err, sizeof(err)), 0);
    snprintf(dir, sizeof(dir), "%s/demo", base);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(state, sizeof(state), "%s/farm.state", dir);
    put_file(state, "farm demo\n");
    farm_state_lock_remove("demo");             /* the farm is up: stays */
    ck_assert_int_eq(access(lock, F_OK), 0);
    ck_assert_int_eq(unlink(state), 0);
    farm_state_lock_remove("demo");
    ck_assert_int_eq(access(lock, F_OK), -1);
    ck_assert_int_eq(access(other, F_OK), 0);
}
END_TEST

/* A process whose link never came up blames its peer's driver error: the
 * first "name(): ... failed/cannot/error" line of the peer's log. */
START_TEST(test_driver_error)
{
    char path[128], buf[256] = "";

    snprintf(path, sizeof(path), "%s/sfc0.log", base);
    put_file(path, "EAL: Detected CPU lcores: 2\n"
                   "2026-11-27T08:00:00.000Z sfc0: info: started\n"
                   "rte_eth_dev_start(): port 0 started\n"
                   "memif_connect(): mmap failed: Cannot allocate memory\n"
                   "memif_connect(): another failed\n");
    snprintf(path, sizeof(path), "%s/node0.log", base);
    put_file(path, "2026-11-27T08:00:10.000Z node0: error: link of 'net_memif0' not up\n");
    ck_assert_int_eq(farm_log_driver_error(base, "sfc0", buf, sizeof(buf)), 1);
    ck_assert_str_eq(buf, "memif_connect(): mmap failed: Cannot allocate memory");
    ck_assert_int_eq(farm_log_driver_error(base, "node0", buf, sizeof(buf)), 0);
    ck_assert_int_eq(farm_log_driver_error(base, "nolog", buf, sizeof(buf)), 0);
}
END_TEST

/* demo.next-run -> a file: its first line is never shown, nor overwritten. */
START_TEST(test_next_run_link)
{
    char keep[128];
    uint32_t next = 99, run = 0;

    snprintf(keep, sizeof(keep), "%s/secret", top);
    put_file(keep, "the secret line\n");
    plant(keep, "demo.next-run");
    ck_assert_int_eq(farm_run_next("demo", &next, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot read %s/demo.next-run: it is a symbolic link "
             "(refused)", base);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(strstr(err, "secret"));
    ck_assert_uint_eq(next, 99);
    /* --run 5: the counter replaces the link itself, its target stays. */
    ck_assert_int_eq(farm_run_take("demo", 5, &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 5);
    ck_assert_str_eq(file_text(keep), "the secret line\n");
    snprintf(want, sizeof(want), "%s/demo.next-run", base);
    ck_assert_str_eq(file_text(want), "6\n");
}
END_TEST

/* A base directory writable by others, or another user's, is refused. */
START_TEST(test_base_refused)
{
    struct farm_state st;

    ck_assert_int_eq(chmod(base, 0777), 0);
    ck_assert_int_eq(farm_state_lock("demo", "up", err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "the run directory %s is writable by group or others (mode "
             "0777): refused (chmod 0700 %s)", base, base);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(farm_state_find(NULL, &st, err, sizeof(err)), -1);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(chmod(base, 0700), 0);
    if (geteuid() != 0)
        return;                  /* chown to another user needs root */
    ck_assert_int_eq(chown(base, 65534, 65534), 0);
    ck_assert_int_eq(farm_state_lock("demo", "up", err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "the run directory %s is owned by uid 65534, not by this user "
             "(uid 0): refused (set EBFARM_RUN_DIR to a directory of your own)", base);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(access(base, F_OK), 0);
}
END_TEST

/* A base directory that is not there is made 0700; the default is per user. */
START_TEST(test_base_made)
{
    struct stat sb;
    char path[128];

    ck_assert_int_eq(rmdir(base), 0);
    int fd = farm_state_lock("demo", "up", err, sizeof(err));
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(lstat(base, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 07777, 0700);
    snprintf(path, sizeof(path), "%s/.demo.lock", base);
    ck_assert_int_eq(lstat(path, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 07777, 0600);
    unsetenv("EBFARM_RUN_DIR");
    setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
    ck_assert_str_eq(farm_state_base_dir(),
                     geteuid() == 0 ? "/run/ebfarm" : "/run/user/1000/ebfarm");
}
END_TEST

Suite *farm_rundir_suite(void);

Suite *farm_rundir_suite(void)
{
    Suite *s = suite_create("farm_rundir");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_farm_dir_link);
    tcase_add_test(tc, test_remove_tree);
    tcase_add_test(tc, test_log_link);
    tcase_add_test(tc, test_lock_link);
    tcase_add_test(tc, test_lock_remove);
    tcase_add_test(tc, test_driver_error);
    tcase_add_test(tc, test_next_run_link);
    tcase_add_test(tc, test_base_refused);
    tcase_add_test(tc, test_base_made);
    suite_add_tcase(s, tc);
    return s;
}
