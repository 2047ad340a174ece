/* SPDX-License-Identifier: BSD-3-Clause */
/* test-bench_parse.c - Check unit tests of what the bench reads: testpmd's stats, a readout's stats file, cpuinfo, its verification pieces. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_meta.h"
#include "bench_parse.h"
#include "bench_verify.h"
#include "ebf_proto.h"

static FILE *text(const char *s)
{
    FILE *f = fmemopen((void *)s, strlen(s), "r");
    ck_assert_ptr_nonnull(f);
    return f;
}

/* Three periods: the first left out, the median of 36.8M and 38.0M. */
START_TEST(test_testpmd_pps)
{
    FILE *f = text("Port statistics ====\n"
                   "  TX-packets: 33452032   TX-errors: 0          TX-bytes:  0\n"
                   "  Tx-pps:     33353858          Tx-bps:            0\n"
                   "  Tx-pps:     38000000          Tx-bps:            0\n"
                   "  Rx-pps:            0          Rx-bps:            0\n"
                   "  Tx-pps:     36800000          Tx-bps:            0\n"
                   "  TX-packets: 217189888      TX-dropped: 0\n");
    ck_assert(bench_testpmd_tx_pps(f) == 37400000);
    fclose(f);
    f = text("  Tx-pps:     1000          Tx-bps:            0\n");
    ck_assert(bench_testpmd_tx_pps(f) == 1000); /* one sample: kept */
    fclose(f);
    f = text("EAL: Error - exiting with code: 1\n  Tx-pps: none\n");
    ck_assert(bench_testpmd_tx_pps(f) == -1);
    fclose(f);
}
END_TEST

/* The end of a testpmd io run with --record-core-cycles (22.11). */
START_TEST(test_testpmd_io_cycles)
{
    FILE *f = text("  TX-packets: 5          TX-errors: 0          TX-bytes:  0\n"
                   "  ---------------------- Forward statistics for port 1  ----------\n"
                   "  TX-packets: 400000         TX-dropped: 0             TX-total: 400000\n"
                   "  +++++++++++++++ Accumulated forward statistics for all ports++++++\n"
                   "  RX-packets: 0              RX-dropped: 0             RX-total: 0\n"
                   "  TX-packets: 400000         TX-dropped: 0             TX-total: 400000\n"
                   "  CPU cycles/packet=INF (total cycles=361800292 / total io packets=0) at "
                   "2600 MHz Clock\n");
    double c, p;
    ck_assert_int_eq(bench_testpmd_io_cycles(f, &c, &p), 0);
    ck_assert(c == 361800292 && p == 400000);
    fclose(f);
    f = text("  TX-packets: 400000         TX-dropped: 0\n"
             "  CPU cycles/packet=INF (total cycles=361800292 / total io packets=0)\n");
    ck_assert_int_eq(bench_testpmd_io_cycles(f, &c, &p), -1); /* no accumulated stats */
    fclose(f);
}
END_TEST

/* --record-burst-stats (22.11): packets per non-empty burst, exactly from
 * the transmitting port's bursts, else rounded from the receiving port's;
 * the idle port and too many empty bursts tell nothing. */
START_TEST(test_testpmd_rx_per_burst)
{
    FILE *f = text("  ---------------------- Forward statistics for port 0  ----------\n"
                   "  RX-packets: 400000         RX-dropped: 0             RX-total: 400000\n"
                   "  RX-bursts : 200000 [75% of 0 pkts + 20% of 32 pkts + 5% of other]\n"
                   "  TX-packets: 0              TX-dropped: 0             TX-total: 0\n"
                   "  ---------------------- Forward statistics for port 1  ----------\n"
                   "  RX-packets: 0              RX-dropped: 0             RX-total: 0\n"
                   "  RX-bursts : 900000 [100% of 0 pkts]\n"
                   "  +++++++++++++++ Accumulated forward statistics for all ports++++++\n"
                   "  RX-packets: 400000         RX-dropped: 0             RX-total: 400000\n");
    double b;
    ck_assert_int_eq(bench_testpmd_rx_per_burst(f, &b), 0);
    ck_assert(b == 8);          /* 400000 over 50000 non-empty bursts */
    fclose(f);
    f = text("  RX-packets: 6400         RX-dropped: 0\n"
             "  RX-bursts : 200 [100% of 32 pkts]\n");
    ck_assert_int_eq(bench_testpmd_rx_per_burst(f, &b), 0);
    ck_assert(b == 32);         /* no empty bursts at all */
    fclose(f);
    f = text("  RX-packets: 400000         RX-dropped: 0\n"
             "  RX-bursts : 9000000 [95% of 0 pkts + 5% of 8 pkts]\n");
    ck_assert_int_eq(bench_testpmd_rx_per_burst(f, &b), -1);   /* 1% is too coarse */
    fclose(f);
    /* 22.11's io forward from memif to net_null: the memif port's counts
     * gone with its client, 99% of the polls empty; the null port's
     * transmit bursts tell exactly (400000 over 12800) */
    f = text("  ---------------------- Forward statistics for port 0  ----------\n"
             "  RX-packets: 0              RX-dropped: 0             RX-total: 0\n"
             "  TX-packets: 0              TX-dropped: 0             TX-total: 0\n"
             "  RX-bursts : 13260631 [99% of 0 pkts + 1% of 32 pkts]\n"
             "  ---------------------- Forward statistics for port 1  ----------\n"
             "  RX-packets: 0              RX-dropped: 0             RX-total: 0\n"
             "  TX-packets: 400000         TX-dropped: 0             TX-total: 400000\n"
             "  RX-bursts : 13260631 [100% of 0 pkts]\n"
             "  TX-bursts : 12800 [0% of 0 pkts + 87% of 32 pkts + 13% of other]\n"
             "  +++++++++++++++ Accumulated forward statistics for all ports++++++\n"
             "  RX-packets: 0              RX-dropped: 0             RX-total: 0\n"
             "  TX-packets: 400000         TX-dropped: 0             TX-total: 400000\n");
    ck_assert_int_eq(bench_testpmd_rx_per_burst(f, &b), 0);
    ck_assert(b == 31.25);
    fclose(f);
    /* the exact figure wins over the rounded one; no transmit burst, none */
    f = text("  RX-packets: 400000         RX-dropped: 0\n"
             "  RX-bursts : 200000 [75% of 0 pkts + 25% of 8 pkts]\n"
             "  TX-packets: 400000         TX-dropped: 0\n"
             "  TX-bursts : 40000 [100% of 10 pkts]\n");
    ck_assert_int_eq(bench_testpmd_rx_per_burst(f, &b), 0);
    ck_assert(b == 10);
    fclose(f);
    f = text("  TX-packets: 0         TX-dropped: 0\n"
             "  TX-bursts : 0 [100% of 0 pkts]\n");
    ck_assert_int_eq(bench_testpmd_rx_per_burst(f, &b), -1);
    fclose(f);
}
END_TEST

START_TEST(test_json_number)
{
    static const char *const path[] = {"capacity", "sfc", "cycles_per_frame"};
    const char *doc = "{\"sfc\":{\"cycles_per_frame\":1},\"capacity\":{\"readout\":"
                      "{\"cycles_per_frame\": 2},\"sfc\":{\"busy_s\":0.5,"
                      "\"cycles_per_frame\": 6435.1}}}";
    double v = 0;
    ck_assert_int_eq(bench_json_number(doc, path, 3, &v), 0);
    ck_assert(v == 6435.1);
    ck_assert_int_eq(bench_json_number("{\"capacity\":{\"sfc\":{}}}", path, 3, &v), -1);
    /* the object after the command's standard error; a key only inside
     * the one before it on the path */
    ck_assert_int_eq(bench_json_number("ebfarm demo: logs kept in /tmp/x {\n{\"capacity\": "
                                       "{\"sfc\": {\"cycles_per_frame\": 12.5}}}\n", path, 3, &v),
                     0);
    ck_assert(v == 12.5);
    ck_assert_int_eq(bench_json_number("{\"capacity\":{\"readout\":{\"cycles_per_frame\":2}},"
                                       "\"sfc\":{}}", path, 3, &v), -1);
    ck_assert_int_eq(bench_json_number("no JSON here\n", path, 3, &v), -1);
    ck_assert_int_eq(
        bench_json_number("{\"capacity\":{\"sfc\":{\"cycles_per_frame\":null}}}", path, 3, &v),
        -1);
}
END_TEST

START_TEST(test_kv_number)
{
    const char *out = "frames=2270208 events=283776 busy_cycles=1050888582 "
                      "cycles_per_frame=462.9 frames_per_busy_s=5616714\n";
    double v = 0;
    ck_assert_int_eq(bench_kv_number(out, "frames", &v), 0);
    ck_assert(v == 2270208);
    ck_assert_int_eq(bench_kv_number(out, "cycles_per_frame", &v), 0);
    ck_assert(v == 462.9);
    ck_assert_int_eq(bench_kv_number(out, "frames_per_busy_s", &v), 0);
    ck_assert(v == 5616714);
    ck_assert_int_eq(bench_kv_number(out, "busy", &v), -1);       /* not a whole word */
    ck_assert_int_eq(bench_kv_number(out, "tsc_hz", &v), -1);
    ck_assert_int_eq(bench_kv_number("x frames= 3", "frames", &v), -1);
}
END_TEST

static void write_file(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(s, f);
    fclose(f);
}

START_TEST(test_readout_stats)
{
    char path[] = "/tmp/test-bench-ro.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    struct bench_ro_run r;
    write_file(path, "events 200000\nframes 1600000\nbytes 1724800000\n"
                     "start_ns 1000000000\nend_ns 1800000000\nlcore.busy_cycles.0 1970221552\n");
    ck_assert_int_eq(bench_ro_load(path, &r), 0);
    ck_assert_uint_eq(r.frames, 1600000);
    ck_assert_uint_eq(r.bytes, 1724800000);
    ck_assert_uint_eq(r.busy_cycles, 1970221552);
    ck_assert(bench_ro_fps(&r) == 2000000);
    write_file(path, "frames 1600000\nstart_ns 1000000000\nend_ns 1800000000\n");
    ck_assert_int_eq(bench_ro_load(path, &r), -1); /* no busy cycles */
    write_file(path, "frames 0\nstart_ns 1\nend_ns 2\nlcore.busy_cycles.0 1\n");
    ck_assert_int_eq(bench_ro_load(path, &r), -1); /* an empty run */
    write_file(path, "frames 5\nstart_ns 2\nend_ns 2\nlcore.busy_cycles.0 1\n");
    ck_assert_int_eq(bench_ro_load(path, &r), -1);
    unlink(path);
    ck_assert_int_eq(bench_ro_load(path, &r), -1);
}
END_TEST

START_TEST(test_cpuinfo)
{
    struct bench_meta m;
    FILE *f = text("processor\t: 0\nvendor_id\t: GenuineIntel\n"
                   "model name\t: Intel(R) Xeon(R) Processor\ncpu MHz\t\t: 2599.998\n"
                   "processor\t: 1\nmodel name\t: other\ncpu MHz\t\t: 1.0\n");
    bench_meta_cpu(&m, f);
    fclose(f);
    ck_assert_str_eq(m.cpu_model, "Intel(R) Xeon(R) Processor");
    ck_assert(m.cpu_mhz == 2599.998);
    f = text("processor\t: 0\nmodel\t\t: 85\n");
    bench_meta_cpu(&m, f);
    fclose(f);
    ck_assert_str_eq(m.cpu_model, "unknown");
    ck_assert(m.cpu_mhz == 0);
    bench_meta_cpu(&m, NULL);
    ck_assert_str_eq(m.cpu_model, "unknown");
}
END_TEST

/* The pieces pass the node's checks; one flipped byte fails one piece, in
 * the CRC pass's digest too. */
START_TEST(test_pieces)
{
    struct bench_pieces p;
    ck_assert_int_eq(bench_pieces_build(&p, 16, 1024), 0);
    ck_assert_uint_eq(p.stride, EBF_FRAG_HLEN + 1024);
    ck_assert_uint_eq(bench_verify_pass(&p), 16);
    uint32_t d = bench_crc_pass(&p);
    p.buf[5 * p.stride + EBF_FRAG_HLEN + 100] ^= 1;
    ck_assert_uint_eq(bench_verify_pass(&p), 15);
    ck_assert_uint_ne(bench_crc_pass(&p), d);
    bench_pieces_free(&p);
    ck_assert_ptr_null(p.buf);
}
END_TEST

Suite *bench_parse_suite(void);

Suite *bench_parse_suite(void)
{
    Suite *s = suite_create("bench_parse");
    TCase *tc = tcase_create("bench_parse");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_testpmd_pps);
    tcase_add_test(tc, test_testpmd_io_cycles);
    tcase_add_test(tc, test_testpmd_rx_per_burst);
    tcase_add_test(tc, test_json_number);
    tcase_add_test(tc, test_kv_number);
    tcase_add_test(tc, test_readout_stats);
    tcase_add_test(tc, test_cpuinfo);
    tcase_add_test(tc, test_pieces);
    suite_add_tcase(s, tc);
    return s;
}
