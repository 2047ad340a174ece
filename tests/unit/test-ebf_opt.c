/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_opt.c - Check unit tests of option and parameter parsing: every parser, its bounds, its exact messages. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ebf_opt.h"
#include "ebf_util.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */
#define SENTINEL 0x5a5a5a5a5a5a5a5aull

/* --- stderr capture ------------------------------------------------------- */

static FILE *err_file;
static int err_saved = -1;

/* From here on, what goes to stderr goes to a temporary file. */
static void err_begin(void)
{
    fflush(stderr);
    err_file = tmpfile();
    ck_assert_ptr_nonnull(err_file);
    err_saved = dup(STDERR_FILENO);
    ck_assert_int_ge(err_saved, 0);
    ck_assert_int_ge(dup2(fileno(err_file), STDERR_FILENO), 0);
}

/* stderr back; returns what was written to it meanwhile (static buffer). */
static const char *err_end(void)
{
    static char buf[2048];

    fflush(stderr);
    ck_assert_int_ge(dup2(err_saved, STDERR_FILENO), 0);
    close(err_saved);
    rewind(err_file);
    size_t n = fread(buf, 1, sizeof(buf) - 1, err_file);
    buf[n] = '\0';
    fclose(err_file);
    return buf;
}

/* --- ebf_opt_u64 ------------------------------------------------------------ */

static const struct {
    const char *val;
    uint64_t min, max;
    int rc;
    uint64_t out;                /* on success */
} u64_cases[] = {
    {"5", 1, 64, 0, 5},
    {"1", 1, 64, 0, 1},                          /* both bounds are allowed */
    {"64", 1, 64, 0, 64},
    {"0", 1, 64, -EINVAL, 0},
    {"65", 1, 64, -EINVAL, 0},
    {"2k", 0, UINT64_MAX, 0, 2000},              /* k, M, G: powers of 1000 */
    {"3M", 0, UINT64_MAX, 0, 3000000},
    {"7G", 0, UINT64_MAX, 0, 7000000000ull},
    {"2K", 0, UINT64_MAX, -EINVAL, 0},
    {"0x10", 0, 100, 0, 16},                     /* C prefixes (strtoull base 0) */
    {"010", 0, 100, 0, 8},
    {"18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX},
    {"18446744073709551616", 0, UINT64_MAX, -EINVAL, 0},   /* overflows */
    {"18446744073709552k", 0, UINT64_MAX, -EINVAL, 0},     /* the multiple overflows */
    {"-1", 0, UINT64_MAX, -EINVAL, 0},
    {"", 0, UINT64_MAX, -EINVAL, 0},
    {"5x", 0, UINT64_MAX, -EINVAL, 0},
    {"1.5", 0, UINT64_MAX, -EINVAL, 0},
    {"k", 0, UINT64_MAX, -EINVAL, 0},
};

START_TEST(test_opt_u64)
{
    uint64_t out = SENTINEL;
    char want[256] = "";

    err_begin();
    int rc = ebf_opt_u64("sfc", "--nodes", u64_cases[_i].val, u64_cases[_i].min,
                         u64_cases[_i].max, &out);
    const char *msg = err_end();
    ck_assert_int_eq(rc, u64_cases[_i].rc);
    if (rc == 0) {
        ck_assert_uint_eq(out, u64_cases[_i].out);
    } else {
        ck_assert_uint_eq(out, SENTINEL);       /* left alone */
        snprintf(want, sizeof(want),
                 "sfc: option '--nodes': \"%s\" %s in %llu..%llu\n", u64_cases[_i].val,
                 ebf_parse_why(u64_cases[_i].val, 0), (unsigned long long)u64_cases[_i].min,
                 (unsigned long long)u64_cases[_i].max);
    }
    ck_assert_str_eq(msg, want);
}
END_TEST

/* The message as a user reads it, written out in full once. */
START_TEST(test_opt_u64_message)
{
    uint64_t out;

    err_begin();
    ck_assert_int_eq(ebf_opt_u64("sfc", "--nodes", "0", 1, 64, &out), -EINVAL);
    ck_assert_str_eq(err_end(), "sfc: option '--nodes': \"0\" is out of range: an integer in "
                                "1..64\n");
    err_begin();
    ck_assert_int_eq(ebf_opt_u64("sfc", "--nodes", "64x", 1, 64, &out), -EINVAL);
    ck_assert_str_eq(err_end(), "sfc: option '--nodes': \"64x\" is not an integer in 1..64\n");
}
END_TEST

/* --- ebf_opt_double ---------------------------------------------------------- */

static const struct {
    const char *val;
    double min, max;
    int rc;
    double out;
    const char *msg;             /* on failure */
} double_cases[] = {
    {"0.5", 0, 1, 0, 0.5, NULL},
    {"0", 0, 1, 0, 0, NULL},
    {"1", 0, 1, 0, 1, NULL},
    {"1e3", 0, 1e9, 0, 1000, NULL},
    {"-2.5", -10, 10, 0, -2.5, NULL},
    {"1.0001", 0, 1, -EINVAL, 0, "node: option '--accept': \"1.0001\" is out of range: a number in 0..1\n"},
    {"-0.1", 0, 1, -EINVAL, 0, "node: option '--accept': \"-0.1\" is out of range: a number in 0..1\n"},
    {"2e9", 0, 1e9, -EINVAL, 0, "node: option '--accept': \"2e9\" is out of range: a number in 0..1e+09\n"},
    {"nan", 0, 1, -EINVAL, 0, "node: option '--accept': \"nan\" is not a number in 0..1\n"},
    {"inf", 0, 1e300, -EINVAL, 0,
     "node: option '--accept': \"inf\" is not a number in 0..1e+300\n"},
    {"0.5s", 0, 1, -EINVAL, 0, "node: option '--accept': \"0.5s\" is not a number in 0..1\n"},
    {"", 0, 1, -EINVAL, 0, "node: option '--accept': \"\" is not a number in 0..1\n"},
    {"1e999", 0, 1e300, -EINVAL, 0,
     "node: option '--accept': \"1e999\" is not a number in 0..1e+300\n"},
};

START_TEST(test_opt_double)
{
    double out = -12345;

    err_begin();
    int rc = ebf_opt_double("node", "--accept", double_cases[_i].val, double_cases[_i].min,
                            double_cases[_i].max, &out);
    const char *msg = err_end();
    ck_assert_int_eq(rc, double_cases[_i].rc);
    if (rc == 0) {
        ck_assert_double_eq(out, double_cases[_i].out);
        ck_assert_str_eq(msg, "");
    } else {
        ck_assert_double_eq(out, -12345);
        ck_assert_str_eq(msg, double_cases[_i].msg);
    }
}
END_TEST

/* --- MAC addresses ---------------------------------------------------------- */

START_TEST(test_opt_mac)
{
    static const uint8_t want1[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
    static const uint8_t want2[6] = {0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
    static const uint8_t want3[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0f};
    static const char *const bad[] = {
        "zz:00", "02:00:00:00:00", "02:00:00:00:00:01x", "02:00:00:00:00:01:02",
        "02-00-00-00-00-01", "", "020:00:00:00:00:01",
    };
    uint8_t mac[6];
    char want[256];

    err_begin();
    ck_assert_int_eq(ebf_opt_mac("sfc", "--mac", "02:00:00:00:00:01", mac), 0);
    ck_assert_mem_eq(mac, want1, 6);
    ck_assert_int_eq(ebf_opt_mac("sfc", "--mac", "AA:BB:cc:DD:ee:FF", mac), 0);
    ck_assert_mem_eq(mac, want2, 6);
    ck_assert_int_eq(ebf_opt_mac("sfc", "--mac", "2:0:0:0:0:f", mac), 0);  /* one digit */
    ck_assert_mem_eq(mac, want3, 6);
    ck_assert_str_eq(err_end(), "");
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memcpy(mac, want1, 6);
        err_begin();
        ck_assert_int_eq(ebf_opt_mac("sfc", "--mac", bad[i], mac), -EINVAL);
        snprintf(want, sizeof(want),
                 "sfc: option '--mac': \"%s\" is not a MAC address (aa:bb:cc:dd:ee:ff)\n", bad[i]);
        ck_assert_str_eq(err_end(), want);
        ck_assert_mem_eq(mac, want1, 6);         /* left alone */
    }
}
END_TEST

START_TEST(test_opt_mac_list)
{
    uint8_t macs[3][6];
    char longv[1100];

    err_begin();
    ck_assert_int_eq(ebf_opt_mac_list("sfc", "--nodes-mac", "02:00:00:00:00:01", macs, 3), 1);
    ck_assert_int_eq(ebf_opt_mac_list("sfc", "--nodes-mac",
                                      "02:00:00:00:00:01,02:00:00:00:00:02,,02:00:00:00:00:03",
                                      macs, 3), 3);
    ck_assert_str_eq(err_end(), "");
    ck_assert_uint_eq(macs[0][5], 1);
    ck_assert_uint_eq(macs[1][5], 2);
    ck_assert_uint_eq(macs[2][5], 3);

    err_begin();
    ck_assert_int_eq(ebf_opt_mac_list("sfc", "--nodes-mac",
                                      "02:00:00:00:00:01,02:00:00:00:00:02", macs, 1), -EINVAL);
    ck_assert_str_eq(err_end(), "sfc: option '--nodes-mac': more than 1 MAC addresses\n");

    err_begin();
    ck_assert_int_eq(ebf_opt_mac_list("sfc", "--nodes-mac", "02:00:00:00:00:01,zz", macs, 3),
                     -EINVAL);
    ck_assert_str_eq(err_end(), "sfc: option '--nodes-mac': \"zz\" is not a MAC address "
                                "(aa:bb:cc:dd:ee:ff)\n");

    err_begin();
    ck_assert_int_eq(ebf_opt_mac_list("sfc", "--nodes-mac", ",,", macs, 3), -EINVAL);
    ck_assert_str_eq(err_end(), "sfc: option '--nodes-mac': \",,\" holds no MAC address\n");

    err_begin();
    ck_assert_int_eq(ebf_opt_mac_list("sfc", "--nodes-mac", "", macs, 3), -EINVAL);
    ck_assert_str_eq(err_end(), "sfc: option '--nodes-mac': \"\" holds no MAC address\n");

    memset(longv, 'a', sizeof(longv) - 1);       /* 1024 characters and more */
    longv[sizeof(longv) - 1] = '\0';
    err_begin();
    ck_assert_int_eq(ebf_opt_mac_list("sfc", "--nodes-mac", longv, macs, 3), -EINVAL);
    ck_assert_str_eq(err_end(), "sfc: option '--nodes-mac': list too long\n");
}
END_TEST

/* --- IPv4, idle mode -------------------------------------------------------- */

START_TEST(test_opt_ipv4)
{
    static const char *const bad[] = {"256.0.0.1", "10.0.0", "10.0.0.1.2", "host", "", "10.0.0.1 "};
    uint32_t ip = 7;
    char want[256];

    err_begin();
    ck_assert_int_eq(ebf_opt_ipv4("loopback", "--kernel-dst", "10.0.0.2", &ip), 0);
    ck_assert_uint_eq(ip, 0x0a000002u);                  /* host order */
    ck_assert_int_eq(ebf_opt_ipv4("loopback", "--kernel-dst", "255.255.255.254", &ip), 0);
    ck_assert_uint_eq(ip, 0xfffffffeu);
    ck_assert_str_eq(err_end(), "");
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err_begin();
        ck_assert_int_eq(ebf_opt_ipv4("loopback", "--kernel-dst", bad[i], &ip), -EINVAL);
        snprintf(want, sizeof(want),
                 "loopback: option '--kernel-dst': \"%s\" is not an IPv4 address\n", bad[i]);
        ck_assert_str_eq(err_end(), want);
        ck_assert_uint_eq(ip, 0xfffffffeu);
    }
}
END_TEST

START_TEST(test_opt_idle)
{
    static const char *const bad[] = {"Spin", "busy", "", "spin "};
    enum ebf_idle_mode m = EBF_IDLE_BACKOFF;
    char want[256];

    err_begin();
    ck_assert_int_eq(ebf_opt_idle("readout", "--idle", "spin", &m), 0);
    ck_assert_int_eq(m, EBF_IDLE_SPIN);
    ck_assert_int_eq(ebf_opt_idle("readout", "--idle", "backoff", &m), 0);
    ck_assert_int_eq(m, EBF_IDLE_BACKOFF);
    ck_assert_str_eq(err_end(), "");
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err_begin();
        ck_assert_int_eq(ebf_opt_idle("readout", "--idle", bad[i], &m), -EINVAL);
        snprintf(want, sizeof(want), "readout: option '--idle': \"%s\" is not spin or backoff\n",
                 bad[i]);
        ck_assert_str_eq(err_end(), want);
        ck_assert_int_eq(m, EBF_IDLE_BACKOFF);
    }
}
END_TEST

/* --- Run parameters ----------------------------------------------------------- */

/* The same checks with the message in a buffer; nothing goes to stderr. */
START_TEST(test_param_u64)
{
    char err[128];
    uint64_t out = SENTINEL;

    err_begin();
    memset(err, 'x', sizeof(err));
    ck_assert_int_eq(ebf_param_u64("events", "2M", 0, 1000000000, &out, err, sizeof(err)), 0);
    ck_assert_uint_eq(out, 2000000);
    ck_assert_int_eq(err[0], 'x');               /* untouched on success */
    ck_assert_int_eq(ebf_param_u64("events", "2G", 0, 1000000000, &out, err, sizeof(err)),
                     -EINVAL);
    ck_assert_str_eq(err, "parameter 'events': \"2G\" is out of range: an integer in 0..1000000000");
    ck_assert_uint_eq(out, 2000000);
    ck_assert_int_eq(ebf_param_u64("events", "many", 1, 10, &out, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'events': \"many\" is not an integer in 1..10");
    /* a short buffer holds the message's start, terminated */
    ck_assert_int_eq(ebf_param_u64("events", "0", 1, 10, &out, err, 12), -EINVAL);
    ck_assert_str_eq(err, "parameter '");
    ck_assert_str_eq(err_end(), "");
}
END_TEST

START_TEST(test_param_double)
{
    char err[128];
    double out = -1;

    err_begin();
    ck_assert_int_eq(ebf_param_double("rate", "2.5e5", 0, 1e9, &out, err, sizeof(err)), 0);
    ck_assert_double_eq(out, 250000);
    ck_assert_int_eq(ebf_param_double("rate", "x", 0, 1e9, &out, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'rate': \"x\" is not a number in 0..1e+09");
    ck_assert_int_eq(ebf_param_double("accept", "1.5", 0, 1, &out, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'accept': \"1.5\" is out of range: a number in 0..1");
    ck_assert_double_eq(out, 250000);
    ck_assert_str_eq(err_end(), "");
}
END_TEST

START_TEST(test_param_unknown)
{
    char err[128];

    err_begin();
    ck_assert_int_eq(ebf_param_unknown("speed", "rate, events, duration", err, sizeof(err)),
                     -EINVAL);
    ck_assert_str_eq(err, "unknown parameter 'speed' (allowed: rate, events, duration)");
    ck_assert_str_eq(err_end(), "");
}
END_TEST

/* --- Suite ----------------------------------------------------------------- */

Suite *ebf_opt_suite(void);   /* called by check-main.c, which has no header */

Suite *ebf_opt_suite(void)
{
    Suite *s = suite_create("ebf_opt");
    TCase *tc = tcase_create("options");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_loop_test(tc, test_opt_u64, 0, sizeof(u64_cases) / sizeof(u64_cases[0]));
    tcase_add_test(tc, test_opt_u64_message);
    tcase_add_loop_test(tc, test_opt_double, 0, sizeof(double_cases) / sizeof(double_cases[0]));
    tcase_add_test(tc, test_opt_mac);
    tcase_add_test(tc, test_opt_mac_list);
    tcase_add_test(tc, test_opt_ipv4);
    tcase_add_test(tc, test_opt_idle);
    suite_add_tcase(s, tc);

    tc = tcase_create("parameters");
    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_param_u64);
    tcase_add_test(tc, test_param_double);
    tcase_add_test(tc, test_param_unknown);
    suite_add_tcase(s, tc);
    return s;
}
