/* SPDX-License-Identifier: BSD-3-Clause */
/* test-completion.c - the bash completion of ebfarm: _ebfarm driven with COMP_WORDS and COMP_CWORD, its COMPREPLY compared whole. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-help.h"

#define OUT_MAX 8192

static char dir[64], out[OUT_MAX];

/* A scratch directory (the completion's working directory) with farm
 * files and others, and a run directory with two farms up and one not. */
static void setup(void)
{
    static const char *const files[] = {
        "a.yaml", "b.yml", "notes.txt", "plot.svg", "r1.ebfev", "run/up1/farm.state",
        "run/up2/farm.state",
    };
    char path[256];

    snprintf(dir, sizeof(dir), "/tmp/ebftest-comp-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/sub", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/run", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/run/down", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        if (strncmp(files[i], "run/", 4) == 0) {
            snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(strrchr(files[i], '/') - files[i]),
                     files[i]);
            ck_assert_int_eq(mkdir(path, 0755), 0);
        }
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
    }
}

static void teardown(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/*
 * Complete the words (space-separated; the last one is completed, "" for
 * an empty one) with prog as COMP_WORDS[0]: out holds COMPREPLY sorted,
 * one word a line.
 */
static const char *complete(const char *prog, const char *words)
{
    char cmd[4096], w[1024], *save = NULL;
    unsigned n = 1;
    size_t o;

    o = (size_t)snprintf(cmd, sizeof(cmd),
                         "cd %s && LC_ALL=C EBFARM_RUN_DIR=%s/run EBFARM_BUILD=%s bash --norc -c '"
                         "source %s/tools/completion/ebfarm.bash; COMP_WORDS=(%s",
                         dir, dir, build_dir(), source_dir(), prog);
    snprintf(w, sizeof(w), "%s", words);
    for (char *t = strtok_r(w, " ", &save); t; t = strtok_r(NULL, " ", &save), n++)
        o += (size_t)snprintf(cmd + o, sizeof(cmd) - o, " %s", strcmp(t, "\"\"") ? t : "\"\"");
    snprintf(cmd + o, sizeof(cmd) - o,
             "); COMP_CWORD=%u; _ebfarm; printf \"%%s\\n\" \"${COMPREPLY[@]}\" | sort'", n - 1);
    ck_assert_int_eq(run_cmd(cmd, out, sizeof(out)), 0);
    if (strcmp(out, "\n") == 0)
        out[0] = '\0';    /* printf of no words prints one empty line */
    return out;
}

static const char *ebfarm(const char *words)
{
    static char prog[1024];

    snprintf(prog, sizeof(prog), "%s/tools/ebfarm", build_dir());
    return complete(prog, words);
}

START_TEST(subcommands)
{
    ck_assert_str_eq(ebfarm("\"\""),
                     "bench\nconform\ndemo\ndown\ndrain\nevents\nhelp\nkeygen\nlogs\nloopback\n"
                     "metrics\npause\nreset\nrestart\nresume\nsim\nsoak\nstart\nstatus\nstop\n"
                     "top\nundrain\nup\n");
    ck_assert_str_eq(ebfarm("st"), "start\nstatus\nstop\n");
    ck_assert_str_eq(ebfarm("--"), "--help\n");
    ck_assert_str_eq(ebfarm("bogus --"), "");
    ck_assert_str_eq(ebfarm("help \"\""), "");
}
END_TEST

/* The repository's ./ebfarm runs <EBFARM_BUILD>/tools/ebfarm and also
 * takes test and fuzz. */
START_TEST(wrapper)
{
    char prog[1024];

    snprintf(prog, sizeof(prog), "%s/ebfarm", source_dir());
    ck_assert_str_eq(complete(prog, "t"), "test\ntop\n");
    ck_assert_str_eq(complete(prog, "f"), "fuzz\n");
    ck_assert_str_eq(complete(prog, "test --"), "--sanitize\n");
    ck_assert_str_eq(complete(prog, "stop --"), "--farm\n--help\n--json\n");
}
END_TEST

START_TEST(farm_files_and_farms)
{
    ck_assert_str_eq(ebfarm("up \"\""), "a.yaml\nrun\nsub\n");
    ck_assert_str_eq(ebfarm("up a"), "a.yaml\n");
    ck_assert_str_eq(ebfarm("up --no-start \"\""), "a.yaml\nrun\nsub\n");
    ck_assert_str_eq(ebfarm("up --"), "--help\n--keep\n--no-start\n--run\n");
    ck_assert_str_eq(ebfarm("up --run \"\""), "");
    ck_assert_str_eq(ebfarm("soak \"\""), "a.yaml\nrun\nsub\n");
    ck_assert_str_eq(ebfarm("soak --out \"\""), "run\nsub\n");
    ck_assert_str_eq(ebfarm("soak --duration \"\""), "");
    ck_assert_str_eq(ebfarm("stop --farm \"\""), "up1\nup2\n");
    ck_assert_str_eq(ebfarm("top --farm up2"), "up2\n");
    ck_assert_str_eq(ebfarm("loopback --plot \"\""), "plot.svg\nrun\nsub\n");
    ck_assert_str_eq(ebfarm("loopback --csv n"), "notes.txt\n");
    ck_assert_str_eq(ebfarm("events \"\""), "dump\nstats\nverify\n");
    ck_assert_str_eq(ebfarm("events v"), "verify\n");
    ck_assert_str_eq(ebfarm("events verify \"\""), "r1.ebfev\nrun\nsub\n");
    ck_assert_str_eq(ebfarm("events stats --json r"), "r1.ebfev\nrun\n");
    ck_assert_str_eq(ebfarm("events dump --"), "--bytes\n--help\n--ids\n--json\n--pattern\n");
}
END_TEST

START_TEST(values)
{
    ck_assert_str_eq(ebfarm("demo --frag-dist \"\""), "fixed\nlognormal\nuniform\n");
    ck_assert_str_eq(ebfarm("demo --frag-dist l"), "lognormal\n");
    ck_assert_str_eq(ebfarm("loopback --mode \"\""), "back-to-back\nlatency\nloss\nthroughput\n");
    ck_assert_str_eq(ebfarm("loopback --role \"\""), "both\nrx\ntx\n");
    ck_assert_str_eq(ebfarm("loopback --idle \"\""), "auto\nbackoff\nspin\n");
    ck_assert_str_eq(ebfarm("loopback --search \"\""), "binary\nmlr\n");
    ck_assert_str_eq(ebfarm("demo --events \"\""), "");
    ck_assert_str_eq(ebfarm("top --interval \"\""), "");
    ck_assert_str_eq(ebfarm("metrics --listen \"\""), "");
    ck_assert_str_eq(ebfarm("demo --udp \"\""), "");
    ck_assert_str_eq(ebfarm("loopback --ro"), "--role\n");
}
END_TEST

/* As sort(1) orders words in the C locale. */
static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Every subcommand's options as completed: the options its --help names,
 * and --help. */
START_TEST(options_are_the_help)
{
    static const char *const subs[] = {
        "demo", "up", "start", "stop", "down", "status", "top", "metrics", "loopback", "bench",
        "logs", "soak", "events", "pause", "resume", "reset",
    };
    static char help[16384];
    char cmd[1024], want[OUT_MAX], words[64];
    struct words opts = {0};

    for (unsigned i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
        snprintf(cmd, sizeof(cmd), "%s/tools/ebfarm %s --help", build_dir(), subs[i]);
        memset(&opts, 0, sizeof(opts));
        ck_assert_int_eq(run_cmd(cmd, help, sizeof(help)), 0);
        options_in(help, &opts);
        words_add(&opts, "--help", 6);
        qsort(opts.w, opts.n, sizeof(opts.w[0]), by_name);
        want[0] = '\0';
        for (unsigned k = 0; k < opts.n; k++)
            snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s\n", opts.w[k]);
        snprintf(words, sizeof(words), "%s --", subs[i]);
        ck_assert_msg(strcmp(ebfarm(words), want) == 0, "ebfarm %s: completed\n%s\nwant\n%s",
                      words, out, want);
        ck_assert_uint_ge(opts.n, 2);
    }
}
END_TEST

Suite *completion_suite(void);

Suite *completion_suite(void)
{
    Suite *s = suite_create("completion");
    TCase *tc = tcase_create("completion");

    /* Once around all the tests, in the runner's process: the teardown
     * runs also after a failed test (the tests only read the directory). */
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, subcommands);
    tcase_add_test(tc, wrapper);
    tcase_add_test(tc, farm_files_and_farms);
    tcase_add_test(tc, values);
    tcase_add_test(tc, options_are_the_help);
    suite_add_tcase(s, tc);
    return s;
}
