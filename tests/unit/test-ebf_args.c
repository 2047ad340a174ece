/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_args.c - unit tests of the daemons' option tables: every shared option, refusals, usage. */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_args.h"

#define ARGV_MAX 32

/* A daemon with one option of every kind. */
static struct {
    const char *str;
    int flag, seen_u32;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    uint32_t frag;
    double num;
    uint8_t mac[6];
    uint32_t ip;
    enum ebf_idle_mode idle;
    int fn_calls;
    char fn_last[32];
} own;

static int cross_calls;
static int cross_refuse;

static int parse_even(void *arg, const char *val, char *err, size_t len)
{
    char *end;
    long v = strtol(val, &end, 10);

    (void)arg;
    own.fn_calls++;
    if (*end || v % 2) {
        snprintf(err, len, "\"%s\" is not an even number", val);
        return -EINVAL;
    }
    snprintf(own.fn_last, sizeof(own.fn_last), "%s", val);
    return 0;
}

static int cross_check(char *err, size_t len)
{
    cross_calls++;
    if (!cross_refuse)
        return 0;
    snprintf(err, len, "--u16 and --u32 need each other");
    return -EINVAL;
}

static const struct ebf_arg table[] = {
    EBF_ARG_VAL(EBF_ARG_STR, "str", &own.str, "S", "a string"),
    EBF_ARG_VAL(EBF_ARG_FLAG, "flag", &own.flag, NULL, "a flag"),
    EBF_ARG_INT(EBF_ARG_U16, "u16", &own.u16, 1, 64, "N", "16 bits"),
    {.name = "u32", .kind = EBF_ARG_U32, .dst = &own.u32, .min = 0, .max = 100000,
     .seen = &own.seen_u32, .meta = "N", .help = "32 bits"},
    EBF_ARG_INT(EBF_ARG_U64, "u64", &own.u64, 0, UINT64_MAX, "N", "64 bits"),
    EBF_ARG_NUM("num", &own.num, 0.5, 2.5, "X", "a number"),
    EBF_ARG_VAL(EBF_ARG_MAC, "hw", own.mac, "MAC", "a MAC"),
    EBF_ARG_VAL(EBF_ARG_IPV4, "ip", &own.ip, "A", "an address"),
    EBF_ARG_VAL(EBF_ARG_IDLE, "poll", &own.idle, "spin|backoff", "an idle mode"),
    EBF_ARG_CALL("even", parse_even, NULL, "N", "an even number"),
    EBF_ARG_PARAM(FRAG_SIZE, &own.frag, "B", "a shared parameter"),
};

static struct ebf_cmdline cl;
static char err[512];

static void setup(void)
{
    memset(&own, 0, sizeof(own));
    cross_calls = cross_refuse = 0;
    memset(&cl, 0, sizeof(cl));
    cl.component = "sfc";
    cl.synopsis = "--port NAME";
    cl.port_help = "the port";
    cl.own = table;
    cl.n_own = sizeof(table) / sizeof(table[0]);
    cl.check = cross_check;
    ebf_common_defaults(&cl.common);
    err[0] = '\0';
}

/* Parse the NULL-terminated options (after "--"); the result of ebf_args_parse. */
static int parse(const char *first, ...)
{
    static char store[ARGV_MAX][128];
    char *argv[ARGV_MAX + 1];
    int argc = 0;
    va_list ap;

    snprintf(store[argc], sizeof(store[0]), "ebfarm-sfc");
    argv[argc] = store[argc];
    argc++;
    va_start(ap, first);
    for (const char *a = first; a && argc < ARGV_MAX; a = va_arg(ap, const char *)) {
        snprintf(store[argc], sizeof(store[0]), "%s", a);
        argv[argc] = store[argc];
        argc++;
    }
    va_end(ap);
    argv[argc] = NULL;
    return ebf_args_parse(&cl, argc, argv, err, sizeof(err));
}

START_TEST(test_defaults)
{
    struct ebf_common_opts o;

    memset(&o, 0xa5, sizeof(o));
    ebf_common_defaults(&o);
    ck_assert_ptr_null(o.port);
    ck_assert_int_eq(o.have_mac, 0);
    ck_assert_uint_eq(o.link_timeout_ms, 10000);
    ck_assert_int_eq(o.idle, EBF_IDLE_SPIN);
    ck_assert_ptr_null(o.control);
    ck_assert_ptr_null(o.metrics);
    ck_assert(o.period_ms == 1000);
    ck_assert_uint_eq(o.mtu, 1500);
    ck_assert_ptr_null(o.stats);
    ck_assert_ptr_null(o.name);
}
END_TEST

/* Every shared option, in both spellings (--opt value, --opt=value). */
START_TEST(test_common_options)
{
    ck_assert_int_eq(parse("--port", "net_memif0", "--mac=02:eb:00:00:00:01",
                           "--link-timeout", "0", "--mtu", "9000", "--idle=backoff",
                           "--control", "ipc:///tmp/c", "--metrics=tcp://*:5555",
                           "--metrics-period-ms", "250.5", "--stats=/tmp/s", "--name", "sfc3",
                           "--curve-keys", "/k", "--insecure", NULL), 0);
    const struct ebf_common_opts *o = &cl.common;
    ck_assert_str_eq(o->curve_keys, "/k");
    ck_assert_int_eq(o->insecure, 1);
    ck_assert_str_eq(o->port, "net_memif0");
    ck_assert_int_eq(o->have_mac, 1);
    ck_assert_uint_eq(o->mac[0], 0x02);
    ck_assert_uint_eq(o->mac[1], 0xeb);
    ck_assert_uint_eq(o->mac[5], 0x01);
    ck_assert_uint_eq(o->link_timeout_ms, 0);
    ck_assert_uint_eq(o->mtu, 9000);
    ck_assert_int_eq(o->idle, EBF_IDLE_BACKOFF);
    ck_assert_str_eq(o->control, "ipc:///tmp/c");
    ck_assert_str_eq(o->metrics, "tcp://*:5555");
    ck_assert(o->period_ms == 250.5);
    ck_assert_str_eq(o->stats, "/tmp/s");
    ck_assert_str_eq(o->name, "sfc3");
    ck_assert_int_eq(cross_calls, 1);
}
END_TEST

/* The daemon's own options of every kind. */
START_TEST(test_own_options)
{
    ck_assert_int_eq(parse("--port=p", "--str", "hello", "--flag", "--u16=64", "--u32", "100k",
                           "--u64", "18446744073709551615", "--num=2.5", "--hw",
                           "aa:BB:cc:00:11:22", "--ip", "10.1.2.3", "--poll", "backoff",
                           "--even", "42", "--frag-size", "16777216", NULL), 0);
    ck_assert_str_eq(own.str, "hello");
    ck_assert_int_eq(own.flag, 1);
    ck_assert_uint_eq(own.u16, 64);
    ck_assert_uint_eq(own.u32, 100000);
    ck_assert_int_eq(own.seen_u32, 1);
    ck_assert(own.u64 == UINT64_MAX);
    ck_assert(own.num == 2.5);
    ck_assert_uint_eq(own.mac[1], 0xbb);
    ck_assert_uint_eq(own.mac[5], 0x22);
    ck_assert_uint_eq(own.ip, 0x0a010203);
    ck_assert_int_eq(own.idle, EBF_IDLE_BACKOFF);
    ck_assert_int_eq(own.fn_calls, 1);
    ck_assert_str_eq(own.fn_last, "42");
    ck_assert_uint_eq(own.frag, EBF_FRAG_MAX);
    ck_assert_int_eq(cl.common.have_mac, 0);
    /* A shared parameter not given starts from the table's default. */
    own.frag = 7;
    cl.common.mtu = 9000;
    ck_assert_int_eq(parse("--port=p", NULL), 0);
    ck_assert_uint_eq(own.frag, 1024);
    ck_assert_uint_eq(cl.common.mtu, 1500);
    ck_assert_int_eq(own.seen_u32, 1);
}
END_TEST

/* A bad value names the option, the value and what is allowed. */
static const struct {
    const char *opt, *val, *msg;
} bad[] = {
    {"--mac", "zz:00", "option '--mac': \"zz:00\" is not a MAC address (aa:bb:cc:dd:ee:ff)"},
    {"--link-timeout", "-1", "option '--link-timeout': \"-1\" is not an integer in 0..3600000"},
    {"--link-timeout", "3600001",
     "option '--link-timeout': \"3600001\" is out of range: an integer in 0..3600000"},
    {"--mtu", "255", "option '--mtu': \"255\" is out of range: an integer in 256..9600"},
    {"--mtu", "9601", "option '--mtu': \"9601\" is out of range: an integer in 256..9600"},
    {"--idle", "sleep", "option '--idle': \"sleep\" is not spin or backoff"},
    {"--metrics-period-ms", "5",
     "option '--metrics-period-ms': \"5\" is out of range: a number in 10..60000"},
    {"--metrics-period-ms", "1e9x",
     "option '--metrics-period-ms': \"1e9x\" is not a number in 10..60000"},
    {"--u16", "0", "option '--u16': \"0\" is out of range: an integer in 1..64"},
    {"--u16", "65", "option '--u16': \"65\" is out of range: an integer in 1..64"},
    {"--u32", "1.5", "option '--u32': \"1.5\" is not an integer in 0..100000"},
    {"--u64", "", "option '--u64': \"\" is not an integer in 0..18446744073709551615"},
    {"--num", "2.6", "option '--num': \"2.6\" is out of range: a number in 0.5..2.5"},
    {"--hw", "02:eb:00:00:00", "option '--hw': \"02:eb:00:00:00\" is not a MAC address "
                               "(aa:bb:cc:dd:ee:ff)"},
    {"--ip", "10.1.2", "option '--ip': \"10.1.2\" is not an IPv4 address"},
    {"--poll", "Spin", "option '--poll': \"Spin\" is not spin or backoff"},
    {"--even", "7", "option '--even': \"7\" is not an even number"},
    /* Numbers are strict: no blanks or sign before, nothing after. */
    {"--u64", " -1", "option '--u64': \" -1\" is not an integer in 0..18446744073709551615"},
    {"--u16", "+5", "option '--u16': \"+5\" is not an integer in 1..64"},
    {"--u16", "5 ", "option '--u16': \"5 \" is not an integer in 1..64"},
    {"--num", " 1", "option '--num': \" 1\" is not a number in 0.5..2.5"},
    {"--num", "0x1p0", "option '--num': \"0x1p0\" is not a number in 0.5..2.5"},
    {"--num", "inf", "option '--num': \"inf\" is not a number in 0.5..2.5"},
    /* A shared parameter: its option name and range from ebf_param.h. */
    {"--frag-size", "16777217", "option '--frag-size': \"16777217\" is out of range: an integer in "
                                "1..16777216"},
    {"--frag-size", "0", "option '--frag-size': \"0\" is out of range: an integer in 1..16777216"},
};

START_TEST(test_bad_value)
{
    ck_assert_int_eq(parse("--port", "p", bad[_i].opt, bad[_i].val, NULL), -EINVAL);
    ck_assert_str_eq(err, bad[_i].msg);
    ck_assert_int_eq(cross_calls, 0);
}
END_TEST

START_TEST(test_refusals)
{
    ck_assert_int_eq(parse("--port", "p", "--rx-port", "q", NULL), -EINVAL);
    ck_assert_str_eq(err, "unknown option '--rx-port' (see --help)");
    ck_assert_int_eq(parse("--port", "p", "--rx-port=q", NULL), -EINVAL);
    ck_assert_str_eq(err, "unknown option '--rx-port' (see --help)");
    ck_assert_int_eq(parse("--port", "p", "-x", NULL), -EINVAL);
    ck_assert_str_eq(err, "unknown option '-x' (see --help)");
    ck_assert_int_eq(parse("--port", "p", "--stats", NULL), -EINVAL);
    ck_assert_str_eq(err, "option '--stats' needs a value");
    ck_assert_int_eq(parse("--port", "p", "--flag=1", NULL), -EINVAL);
    ck_assert_str_eq(err, "option '--flag' takes no value");
    ck_assert_int_eq(parse("--port", "p", "stray", NULL), -EINVAL);
    ck_assert_str_eq(err, "unexpected argument 'stray'");
    ck_assert_int_eq(parse("--name", "x", NULL), -EINVAL);
    ck_assert_str_eq(err, "option '--port' is required");
    ck_assert_int_eq(cross_calls, 0);
}
END_TEST

/* The cross check runs last and its refusal is the parse's. */
START_TEST(test_cross_check)
{
    cross_refuse = 1;
    ck_assert_int_eq(parse("--port", "p", "--u16", "3", NULL), -EINVAL);
    ck_assert_str_eq(err, "--u16 and --u32 need each other");
    ck_assert_int_eq(cross_calls, 1);
    ck_assert_uint_eq(own.u16, 3);
}
END_TEST

/* A later value wins; a required option may come anywhere. */
START_TEST(test_repeat)
{
    ck_assert_int_eq(parse("--u16", "3", "--u16", "4", "--port", "a", "--port", "b", NULL), 0);
    ck_assert_uint_eq(own.u16, 4);
    ck_assert_str_eq(cl.common.port, "b");
    ck_assert_int_eq(own.seen_u32, 0);
}
END_TEST

START_TEST(test_help_version)
{
    ck_assert_int_eq(parse("--help", NULL), EBF_ARGS_HELP);
    ck_assert_int_eq(parse("--version", NULL), EBF_ARGS_VERSION);
    ck_assert_int_eq(parse("--port", "p", "--u16", "3", "--version", "--u16", "0", NULL),
                     EBF_ARGS_VERSION);
    ck_assert_uint_eq(own.u16, 3);
    ck_assert_int_eq(cross_calls, 0);
}
END_TEST

START_TEST(test_early)
{
    char a0[] = "ebfarm-sfc", h[] = "--help", sh[] = "-h", v[] = "--version", dd[] = "--",
         eal[] = "--no-huge", p[] = "--port";
    char *help_eal[] = {a0, eal, h, NULL};
    char *help_own[] = {a0, eal, dd, p, h, NULL};
    char *short_eal[] = {a0, sh, dd, NULL};
    char *short_own[] = {a0, dd, sh, NULL};
    char *version[] = {a0, dd, v, NULL};
    char *none[] = {a0, eal, dd, p, a0, NULL};

    ck_assert_int_eq(ebf_args_early(3, help_eal), EBF_ARGS_HELP);
    ck_assert_int_eq(ebf_args_early(5, help_own), EBF_ARGS_HELP);
    ck_assert_int_eq(ebf_args_early(3, short_eal), EBF_ARGS_HELP);
    ck_assert_int_eq(ebf_args_early(3, short_own), 0);
    ck_assert_int_eq(ebf_args_early(3, version), EBF_ARGS_VERSION);
    ck_assert_int_eq(ebf_args_early(5, none), 0);
    ck_assert_int_eq(ebf_args_early(1, none), 0);
}
END_TEST

/* The text of an output function, through a memory stream. */
static char *capture(void (*fn)(const struct ebf_cmdline *, FILE *))
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    ck_assert_ptr_nonnull(f);
    fn(&cl, f);
    fclose(f);
    return buf;
}

START_TEST(test_usage)
{
    cl.common.link_timeout_ms = 0;
    char *u = capture(ebf_args_usage);

    const char *head = "usage: ebfarm-sfc [EAL options] -- --port NAME [options]\n"
                       "  --port NAME           the port\n"
                       "  --mac MAC             our MAC on --port (default: the port's)\n"
                       "  --str S               a string\n"
                       "  --flag                a flag\n";
    ck_assert_msg(strncmp(u, head, strlen(head)) == 0, "%s", u);
    ck_assert_msg(strstr(u, "\n  --poll spin|backoff   an idle mode\n") != NULL, "%s", u);
    ck_assert_msg(strstr(u, "\n  --frag-size B         a shared parameter (1024)\n") != NULL,
                  "%s", u);
    ck_assert_ptr_nonnull(strstr(u, "\n  --link-timeout MS     wait for link up at most MS; "
                                    "0: do not wait (0)\n"));
    ck_assert_ptr_nonnull(strstr(u, "\n  --link-timeout MS     wait for link up at most MS; "
                                    "0: do not wait (0)\n  --mtu N               the MTU of "
                                    "every port: frames of at most N + 18 bytes (1500)\n"));
    ck_assert_ptr_nonnull(strstr(u, "\n  --idle spin|backoff   idle policy: spin (production) "
                                    "or back off (spin)\n"));
    ck_assert_ptr_nonnull(strstr(u, "\n  --control EP          run control: ZeroMQ REP endpoint "
                                    "(tcp:// or ipc://);\n                        the daemon"));
    ck_assert_ptr_nonnull(strstr(u, "\n  --metrics-period-ms T snapshot period (1000)\n"));
    ck_assert_ptr_nonnull(strstr(u, "\n  --curve-keys DIR      CURVE keys of tcp:// endpoints "
                                    "(ebfarm keygen DIR): the\n                        server "
                                    "keypair and the authorised clients/*.pub\n"));
    ck_assert_ptr_nonnull(strstr(u, "\n  --insecure            bind tcp:// endpoints without "
                                    "keys: anyone who reaches\n"));
    ck_assert_ptr_nonnull(strstr(u, "\n  --name NAME           instance name in status, metrics "
                                    "and logs (sfc)\n"));
    ck_assert_ptr_nonnull(strstr(u, "\n  --version             the version, then exit\n"));
    /* One line per option; continuation lines only where the help breaks. */
    unsigned lines = 0;
    for (const char *p = u; *p; p++)
        lines += *p == '\n';
    ck_assert_uint_eq(lines, 1 + 11 + 14 + 2 + 1 + 1);
    free(u);
}
END_TEST

START_TEST(test_version)
{
    char *v = capture(ebf_args_version);
    unsigned a, b, c;
    char nl;

    ck_assert_msg(sscanf(v, "ebfarm-sfc %u.%u.%u%c", &a, &b, &c, &nl) == 4 && nl == '\n',
                  "%s", v);
    ck_assert_uint_eq(strlen(v), (size_t)snprintf(NULL, 0, "ebfarm-sfc %u.%u.%u\n", a, b, c));
    free(v);
}
END_TEST

Suite *ebf_args_suite(void);

Suite *ebf_args_suite(void)
{
    Suite *s = suite_create("ebf_args");
    TCase *tc = tcase_create("args");

    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_common_options);
    tcase_add_test(tc, test_own_options);
    tcase_add_loop_test(tc, test_bad_value, 0, sizeof(bad) / sizeof(bad[0]));
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_cross_check);
    tcase_add_test(tc, test_repeat);
    tcase_add_test(tc, test_help_version);
    tcase_add_test(tc, test_early);
    tcase_add_test(tc, test_usage);
    tcase_add_test(tc, test_version);
    suite_add_tcase(s, tc);
    return s;
}
