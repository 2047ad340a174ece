#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-soak_fo.py - `ebfarm soak` with an SFC killed and restarted, then drained and given its share back, in one soak of the 2-SFC farm: lost 0, the intervals sampled through the drain, nothing in flight at the end.
#
# farms/multi.yaml (4 readouts, 2 SFCs, 4 nodes, memif; failover turned on
# by the soak at 64 MB) paced at 10,000 events/s, 30 s sampled every 2 s
# with --kill-sfc-every 10 and --drain-sfc-every 15: sfc0 is killed at 10 s
# and restarted, drained at 15 s and undrained, sfc1 killed when the drain
# is done. Checked: exit 0; the soak's lines name each fault (sfc0 and sfc1
# killed, every readout declaring the SFC dead within 1 s of its freeze;
# sfc0 drained from event A, at or after its rejoin id, and back from
# event B > A); the summary counts
# 2 SFC kills and 1 drain; the ledger closes with lost 0 and the id records
# match; the intervals add up to its generated, decided and lost and
# nothing is in flight after the staged stop;
# every interval that ends during the drain is at most 1 s longer than the
# 2 s asked for (the soak samples while a drain waits); every verdict rule
# passes; nothing is left running. About 60 s.
# Usage: test-soak_fo.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC, BUILD = sys.argv[1], sys.argv[2]
_spec = importlib.util.spec_from_file_location(
    "soak_checks", os.path.join(os.path.dirname(os.path.abspath(__file__)), "test-soak.py"))
soak_checks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(soak_checks)
check, lines_of = soak_checks.check, soak_checks.lines_of
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
NAME = "soakfo%d" % os.getpid()
KILL = re.compile(r"ebfarm soak: (sfc[01]) killed at (\d+) s \(every readout declared it dead "
                  r"([0-9.]+) s after its freeze\) and restarted, rejoins at event (\d+) "
                  r"\(([0-9.]+) s\)$", re.M)
DRAIN = re.compile(r"ebfarm soak: (sfc[01]) drained at (\d+) s from event (\d+) \(([0-9.]+) s\), "
                   r"back from event (\d+) \(([0-9.]+) s\)$", re.M)


def farm_file(tmp):
    text = open(os.path.join(SRC, "farms", "multi.yaml")).read()
    text = text.replace("farm: multi\n", "farm: %s\n" % NAME)
    # Paced: unpaced, the readouts run the SFCs into their throttle, which
    # holds whole readouts unevenly (docs/status.md, limits); one held more
    # than timeout_ms behind the others makes the events of that time
    # incomplete and the interval's p99 2 s, which is not what this tests.
    text = text.replace("  rate: 0\n", "  rate: 10000\n")
    check("  rate: 10000\n" in text, "farms/multi.yaml has no 'rate: 0' to pace")
    path = os.path.join(tmp, NAME + ".yaml")
    open(path, "w").write(text)
    return path


def adds_up(ivs, led):
    """The intervals add up to the ledger: generated, decided and lost exactly;
    accepted and rejected short by what killed incarnations decided after
    their last samples (in decided, "fo.decided", which the nodes' records
    do not split); nothing in flight after the staged stop."""
    for k, lk in (("generated", "generated"), ("decided", "decided"), ("lost", "lost_total")):
        got = sum(r[k] for r in ivs)
        check(got == led[lk], "intervals' %s %d != ledger %d" % (k, got, led[lk]))
    acc, rej = sum(r["accepted"] for r in ivs), sum(r["rejected"] for r in ivs)
    check(acc <= led["accepted"] and rej <= led["rejected"] and acc + rej <= led["decided"],
          "intervals' accepted %d, rejected %d; ledger %d, %d" % (acc, rej, led["accepted"],
                                                                 led["rejected"]))
    check(ivs[-1]["in_flight"] == 0, "in flight after the stop: %d" % ivs[-1]["in_flight"])


def main():
    tmp = tempfile.mkdtemp(prefix="ebf-soakfo-")
    try:
        env = dict(os.environ, EBFARM_RUN_DIR=os.path.join(tmp, "run"), EBFARM_BUILD_DIR=BUILD)
        os.makedirs(env["EBFARM_RUN_DIR"])
        out = os.path.join(tmp, "report")
        p = subprocess.run([EBFARM, "soak", farm_file(tmp), "--json", "--out", out,
                            "--duration", "30", "--interval", "2", "--kill-sfc-every", "10",
                            "--drain-sfc-every", "15"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=400)
        print(p.stderr)
        check(p.returncode == 0, "exit %d, not 0" % p.returncode)
        head, ivs, s = lines_of(p.stdout)
        kills, drains = KILL.findall(p.stderr), DRAIN.findall(p.stderr)
        check([(k[0], k[1]) for k in kills] == [("sfc0", "10"), ("sfc1", kills[-1][1])] and
              int(kills[-1][1]) >= 15, "kills %r" % kills)
        check(all(0 < float(k[2]) < 1.0 for k in kills), "declared dead after %r" % kills)
        check(len(drains) == 1 and drains[0][:2] == ("sfc0", "15") and
              int(drains[0][4]) > int(drains[0][2]), "drains %r" % drains)
        # drained with its rejoin still ahead (paced, the join id is 65,536
        # ids on): the leave is at or after that join, never an id passed
        check(int(drains[0][2]) >= int(kills[0][3]), "sfc0 drained from event %s, before its "
              "rejoin at %s" % (drains[0][2], kills[0][3]))
        check(s["sfc_kills"] == 2 and s["sfc_drains"] == 1, "summary %r %r" %
              (s["sfc_kills"], s["sfc_drains"]))
        led = s["ledger"]
        check(led["closed"] and led["lost_total"] == 0 and led["digest_match"] and
              led["ids_match"], "ledger %r" % led)
        adds_up(ivs, led)
        t0 = 15.0
        t1 = t0 + float(drains[0][3]) + float(drains[0][5])
        during = [r for r in ivs if t0 + 2 <= r["t1"] <= t1]
        check(during, "no interval ended during the drain (%.1f to %.1f s)" % (t0, t1))
        for r in during:
            check(r["t1"] - r["t0"] <= 3.0, "interval %d (%.3f to %.3f s) during the drain: "
                  "not sampled through it" % (r["index"], r["t0"], r["t1"]))
        v = s["verdict"]
        check(v["result"] == "pass" and all(c["pass"] for c in v["criteria"]), "verdict %r" % v)
        pids = [pr["pid"] for r in ivs for pr in r["processes"] if pr["pid"]]
        check(all(not os.path.exists("/proc/%d" % pid) for pid in pids), "a process is left")
        left = [d for d in os.listdir("/var/run/dpdk") if "-%s-" % NAME in d] \
            if os.path.isdir("/var/run/dpdk") else []
        check(not left, "DPDK runtime directories left: %r" % left)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("passed")


main()
