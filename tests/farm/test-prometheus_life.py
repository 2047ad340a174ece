#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-prometheus_life.py - a real Prometheus server with the shipped rules over a whole clean lifecycle of farms/multi.yaml raises no alert, and raises EbfarmProcessDown for a node killed while the farm is up.
#
# farms/multi.yaml renamed (4 readouts, 2 SFCs, 4 nodes), run.events 20000
# at 2000 events/s, so that its readouts finish while the farm is up. One
# exporter (`ebfarm metrics --prometheus`) runs through the whole test, as an
# operator's would, and a Prometheus server (scrape and rule evaluation
# every second) scrapes it with monitoring/prometheus/ebfarm-rules.yml:
# 1. up; every readout finishes its run.events (ebfarm_finished 1 for all 4)
#    and the farm stays so for 10 s; stop (exit 0); 10 s; down (exit 0);
#    then 45 s with the farm down (longer than EbfarmProcessDown's `for`).
#    No alert was ever pending or firing: ALERTS has no sample in the whole
#    window.
# 2. up again; node0 killed (SIGKILL): within 90 s EbfarmProcessDown fires
#    for node0, and for no other process.
# Usage: test-prometheus_life.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1
# failed, 77 skipped (the prometheus server, Debian package prometheus,
# missing). About 3 minutes.
import os
import shutil
import signal
import sys
import time

from farmrig import Rig, check, start_exporter, start_prometheus, stop


def wait_for(what, fn, seconds):
    """Polls fn() every half second until it is true; fails naming what."""
    end = time.time() + seconds
    while time.time() < end:
        try:
            v = fn()
            if v:
                return v
        except OSError:
            pass
        time.sleep(0.5)
    check(False, "%s: not within %d s" % (what, seconds))


def value(prom, expr):
    r = prom.query(expr)
    return float(r[0]["value"][1]) if r else None


def alerts(prom, window):
    """Every alert pending or firing at any time in the last window."""
    r = prom.query('max_over_time(ALERTS[%s])' % window)
    return sorted("%s/%s/%s" % (s["metric"]["alertname"], s["metric"].get("process", "-"),
                                s["metric"]["alertstate"]) for s in r)


def clean_lifecycle(rig, prom):
    f = rig.name
    wait_for("every readout finished",
             lambda: value(prom, 'count(ebfarm_finished{farm="%s"} == 1)' % f) == 4, 120)
    wait_for("10 processes up",
             lambda: value(prom, 'count(ebfarm_up{farm="%s"} == 1)' % f) == 10, 30)
    time.sleep(10)
    check(rig.ebfarm("stop", "--farm", f).returncode == 0, "stop")
    time.sleep(10)
    check(rig.ebfarm("down", "--farm", f).returncode == 0, "down")
    wait_for("ebfarm_farm_up 0",
             lambda: value(prom, 'ebfarm_farm_up{farm="%s"}' % f) == 0, 20)
    time.sleep(45)
    check(value(prom, 'count(ebfarm_up{farm="%s"} == 0)' % f) == 10,
          "the exporter does not serve ebfarm_up 0 for the 10 processes of a farm down")
    seen = alerts(prom, "30m")
    check(seen == [], "alerts over a clean lifecycle: %s" % seen)
    print("clean lifecycle: no alert pending or firing")


def killed_node(rig, prom):
    f = rig.name
    check(rig.ebfarm("up", rig.path).returncode == 0, "second up")
    wait_for("ebfarm_farm_up 1", lambda: value(prom, 'ebfarm_farm_up{farm="%s"}' % f) == 1, 30)
    wait_for("10 processes up again",
             lambda: value(prom, 'count(ebfarm_up{farm="%s"} == 1)' % f) == 10, 60)
    os.kill(rig.pid_of("node0"), signal.SIGKILL)
    t0 = time.time()
    expr = 'ALERTS{alertname="EbfarmProcessDown",alertstate="firing",farm="%s"}' % f
    firing = wait_for("EbfarmProcessDown firing", lambda: prom.query(expr), 90)
    procs = sorted(s["metric"]["process"] for s in firing)
    check(procs == ["node0"], "EbfarmProcessDown fires for %s, want node0 only" % procs)
    print("node0 killed: EbfarmProcessDown fired for node0 after %.0f s" % (time.time() - t0))


def main():
    if not shutil.which("prometheus"):
        print("prometheus not found (Debian package prometheus): skipped")
        return 77
    rig = Rig("promlife", "multi.yaml", {"events": 20000, "rate": 2000})
    exporter = prometheus = None
    try:
        check(rig.ebfarm("up", rig.path).returncode == 0, "up")
        exporter, port = start_exporter(rig)
        prometheus, prom = start_prometheus(rig, port)
        clean_lifecycle(rig, prom)
        killed_node(rig, prom)
    finally:
        stop(prometheus)
        stop(exporter)
        rig.cleanup()
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
