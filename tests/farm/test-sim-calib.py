#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-sim-calib.py - the simulator's prediction of the demo's farm (farms/sim-demo.yaml) against the real demo, in the regimes where a loaded machine cannot move the answer.
#
# Runs of `ebfarm demo --json` and, for each, `ebfarm sim
# farms/sim-demo.yaml --json` with the same rate and trigger time over the
# demo's measured seconds (docs/scale.md, "Calibration"):
#  - below capacity (100 events/s, 1000 us a node, 2 nodes: 5% of the
#    2,000 events/s the nodes allow): the readout paces the events, so
#    both rates are the offered one; the bound is 5% (the span of the
#    first to the last event on a loaded machine; measured: 0.0%). Neither
#    throttles: the nodes would need to be 20 times slower than their
#    busy-wait for the table to reach its throttle mark.
#  - above capacity (8,000 events/s offered, 4 times what the nodes allow):
#    both throttle (the table fills 6,000 events/s faster than the nodes
#    empty it, its 3,072-event mark is reached in about half a second of a
#    run of 12,000 events), and the real farm generates no more than the
#    simulated one in the same time (plus 5%): the simulated nodes take
#    exactly trigger_us an event, a real node busy-waits at least that
#    long (whole microseconds of CLOCK_MONOTONIC), so it cannot be faster.
#  - the multi farm's shape (`--readouts 4 --sfcs 2 --nodes 4`, the
#    processes of farms/multi.yaml, against farms/sim-multi.yaml) below
#    capacity: 200 events/s at 1000 us, 5% of its 4,000: the same 5%.
#  - the netns farm (`--netns`: 4 readouts, 2 SFCs, 4 nodes, each on a
#    network namespace of its own, af_packet over a bridge, launched over
#    ssh; the multi farm's shape, so farms/sim-multi.yaml) below capacity,
#    200 events/s at 1000 us: the same 5%. As root only (it makes
#    namespaces); about a minute more, most of it the launch.
#  - the latency median below capacity on the demo's farm (one readout):
#    the simulated SFC and nodes back off when idle as the real ones do
#    (farms/sim-demo.yaml's idle_* keys, lib/ebf_idle.c's rule), so at
#    100/s each event waits for the SFC and its node to wake (0 to 275 us
#    each) on top of its 1000 us: predicted p50 1.30 ms. What a sleep takes
#    beyond its ask (timer slack and the wake-up) is the machine's: it is
#    measured beside each run (sleep_extra_us) and given to the simulator
#    (idle_extra_us), for every regime; with farms/sim-demo.yaml's fixed
#    75 us, a quiet CI machine's run measured 1.70 ms (+3 buckets), as
#    does this machine with a timer slack of 300 us (docs/scale.md,
#    "Latency at low load"). Both medians are
#    buckets of the same histogram (eight an octave: 131 us wide between
#    1.05 and 2.10 ms), so they are compared in buckets: the measured one
#    at most one below the predicted (the resolution) and at most two
#    above it (the spread measured on this machine, 21 runs at load
#    averages of 8 to 15: one or two buckets above; docs/scale.md,
#    "Calibration"). The model without the back-off (1.02 ms) is three or
#    more below every measured median: the bound rejects it.
#  - the latency median below capacity on the multi farm's shape (four
#    readouts): the runner gives the readouts one start instant and each
#    paces from it; what is left between an event's first fragment, from
#    whose send the latency counts, and its last is four readouts waking
#    on shared cores (farms/sim-multi.yaml's readouts and ro_skew_us: 0.4
#    ms, measured as the SFCs' build median with four readouts less that
#    with one): predicted p50 1.70 ms (the top of its bucket). In buckets
#    (131 us wide between 1.05 and 2.10 ms): at most one below (the
#    resolution) and at most three above, the spread measured
#    (docs/scale.md: 1.70 to 2.10 ms in eight runs at load 7 to 17, 0, +1,
#    +1, +2, +2, +2, +3, +3; +0 at load 2.4). The model of the old skew, readouts pacing each from
#    its own START (3.5 ms: predicted 5.06 ms), is 10 to 13 buckets above
#    every run measured since: the bound rejects it.
#  - the netns farm (the multi farm's processes, each on a namespace of its
#    own, af_packet over a bridge, launched over ssh) below capacity: the
#    same prediction and upper bound as the multi farm's; with the common
#    start instant its median was the multi farm's (1.57 to 2.10 ms in
#    nine runs at load 1.6 to 18; 8.4 to 31.5 ms before, the start skew),
#    but its build median, the readouts' residual skew, is up to 0.1 ms
#    smaller (0.36 to 0.59 ms against 0.46 to 0.66): -1 bucket at load 2.4,
#    so two below are allowed.
# Usage: test-sim-calib.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import json
import os
import re
import shutil
import subprocess
import sys
import time

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(SRC, "ebfarm")
FARM = os.path.join(SRC, "farms", "sim-demo.yaml")
MULTI = os.path.join(SRC, "farms", "sim-multi.yaml")
BOUND = 0.05
LAT_BELOW, LAT_ABOVE = 1, 2      # buckets of the latency histogram (ebf_hist)
MULTI_BELOW, MULTI_ABOVE = 1, 3  # the multi farm's: the resolution, its measured spread
NETNS_BELOW = 2                  # the netns farm's: its readouts' residual skew is smaller
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def demo(rate, trigger_us, events, extra):
    out = subprocess.run([EBFARM, "demo", "--json", "--rate", str(rate), "--trigger-us",
                          str(trigger_us), "--events", str(events)] + extra,
                         capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, EBFARM_BUILD=BUILD))
    if out.returncode != 0:
        sys.stderr.write(out.stderr[-2000:])
        raise SystemExit("FAIL ebfarm demo exited %d" % out.returncode)
    return json.loads(out.stdout)


def sleep_extra_us(farm, n=200):
    """What a sleep of the farm's idle_sleep_us takes beyond it here, now: the median over n.

    The real poll loops sleep with nanosleep (lib/ebf_idle.c), as
    time.sleep does, so timer slack and the wake-up of an idle vCPU are the
    same for both; on a quiet virtual machine the wake-up is the longer.
    """
    us = int(re.search(r"^\s*idle_sleep_us:\s*(\d+)", open(farm).read(), re.M).group(1))
    took = []
    for _ in range(n):
        t = time.perf_counter_ns()
        time.sleep(us / 1e6)
        took.append(time.perf_counter_ns() - t)
    took.sort()
    return max(0, round(took[n // 2] / 1000 - us))


def sim(farm, rate, trigger_us, seconds, extra_us):
    exe = os.path.join(BUILD, "tools", "ebfarm")
    out = subprocess.run([exe, "sim", farm, "--json", "--set", "rate_hz=%g" % rate, "--set",
                          "trigger_us=%g" % trigger_us, "--set", "idle_extra_us=%d" % extra_us,
                          "--duration", "%.3f" % seconds],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        sys.stderr.write(out.stderr[-2000:])
        raise SystemExit("FAIL ebfarm sim exited %d" % out.returncode)
    return json.loads(out.stdout)


def bucket(ns):
    """The bucket of lib/ebf_hist.c that holds ns (eight an octave)."""
    ns = int(ns)
    if ns < 16:
        return ns
    msb = ns.bit_length() - 1
    return 16 + (msb - 4) * 8 + ((ns >> (msb - 3)) & 7)


def regime(name, rate, trigger_us, events, farm=FARM, extra=()):
    before = sleep_extra_us(farm)
    d = demo(rate, trigger_us, events, list(extra))
    wake = (before + sleep_extra_us(farm)) // 2
    secs = d["rates"]["seconds"]
    s = sim(farm, rate, trigger_us, secs, wake)
    measured, predicted = d["rates"]["events_per_s"], s["events_per_s"]
    err = (measured - predicted) / predicted
    real_thr = d["sfc"]["throttle_on"]
    sim_thr = s["network"]["throttle_on"]
    e2e, build = d["latency_ns"]["end_to_end"], d["latency_ns"]["build"]
    print("%s: measured %.0f events/s over %.2f s, predicted %.0f, error %+.1f%%; throttle "
          "on %d (real) %d (sim); latency p50 %.2f ms (real, end to end; min %.2f; build "
          "p50 %.2f) %.2f ms (sim, a sleep's extra %d us); load average %s"
          % (name, measured, secs, predicted, 100 * err, real_thr, sim_thr,
             (e2e["p50"] if e2e else 0) / 1e6, (e2e["min"] if e2e else 0) / 1e6,
             (build["p50"] if build else 0) / 1e6, s["latency"]["p50_ms"], wake,
             open("/proc/loadavg").read().split()[0]))
    check(d["ledger"]["closed"] and s["ledger"]["closed"], name + ": both ledgers close")
    lat = ((e2e["p50"] if e2e else 0), round(s["latency"]["p50_ms"] * 1e6))
    return measured, predicted, err, real_thr, sim_thr, lat


m, p, err, rt, st, lat = regime("below capacity", 100, 1000, 1000)
check(abs(err) <= BOUND, "below capacity: |error| %.3f <= %.2f" % (abs(err), BOUND))
check(rt == 0 and st == 0, "below capacity: neither throttles")
steps = bucket(lat[0]) - bucket(lat[1])
check(-LAT_BELOW <= steps <= LAT_ABOVE,
      "below capacity: latency p50 %.3f ms measured, %.3f ms predicted: %+d buckets, within "
      "[-%d, +%d]" % (lat[0] / 1e6, lat[1] / 1e6, steps, LAT_BELOW, LAT_ABOVE))
m, p, err, rt, st, lat = regime("above capacity", 8000, 1000, 12000)
check(rt >= 1 and st >= 1, "above capacity: both throttle")
check(m <= p * (1 + BOUND), "above capacity: measured %.0f <= predicted %.0f + 5%%" % (m, p))
m, p, err, rt, st, lat = regime("multi below capacity", 200, 1000, 2000, MULTI,
                          ["--readouts", "4", "--sfcs", "2", "--nodes", "4"])
check(abs(err) <= BOUND, "multi below capacity: |error| %.3f <= %.2f" % (abs(err), BOUND))
check(rt == 0 and st == 0, "multi below capacity: neither throttles")
steps = bucket(lat[0]) - bucket(lat[1])
check(-MULTI_BELOW <= steps <= MULTI_ABOVE,
      "multi below capacity: latency p50 %.3f ms measured, %.3f ms predicted: %+d buckets, "
      "within [-%d, +%d]" % (lat[0] / 1e6, lat[1] / 1e6, steps, MULTI_BELOW, MULTI_ABOVE))
if os.geteuid() == 0 and shutil.which("ip"):
    m, p, err, rt, st, lat = regime("netns below capacity", 200, 1000, 2000, MULTI, ["--netns"])
    check(abs(err) <= BOUND, "netns below capacity: |error| %.3f <= %.2f" % (abs(err), BOUND))
    check(rt == 0 and st == 0, "netns below capacity: neither throttles")
    steps = bucket(lat[0]) - bucket(lat[1])
    check(-NETNS_BELOW <= steps <= MULTI_ABOVE,
          "netns below capacity: latency p50 %.3f ms measured, %.3f ms predicted: %+d buckets, "
          "within [-%d, +%d]" % (lat[0] / 1e6, lat[1] / 1e6, steps, NETNS_BELOW, MULTI_ABOVE))
else:
    print("skip netns: it needs root and ip(8) to make namespaces")
print("%d passed, %d failed" % (checks - len(failures), len(failures)))
sys.exit(1 if failures else 0)
