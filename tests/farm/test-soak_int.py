#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-soak_int.py - Ctrl-C on `ebfarm soak`: once, the soak stops in stages and gives no verdict on the whole soak; twice, it still exits 130 (not 2) and leaves nothing running.
#
# farms/demo.yaml renamed; `ebfarm soak --duration 60 --interval 1`:
# 1. SIGINT once after its second interval: exit 130 within 60 s, stderr
#    says "verdict: INTERRUPTED after T of 60 s (the part run: PASS)" and
#    never a bare "verdict: PASS"; soak.jsonl ends in a summary with
#    "interrupted": true; nothing left running.
# 2. SIGINT twice, 0.2 s apart, after its second interval: exit 130 within
#    60 s; nothing left running (no process names the test's directory, no
#    DPDK runtime directory), the run directory holds only the run counter.
# Usage: test-soak_int.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import json
import os
import re
import signal
import subprocess
import time

from farmrig import Rig, check


def soak(rig, out, signals):
    """The soak, SIGINT sent `signals` times once two intervals are out:
    (exit status, stderr)."""
    p = subprocess.Popen([rig.exe, "soak", rig.path, "--duration", "60", "--interval", "1",
                          "--json", "--out", out], env=rig.env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    lines = 0
    for line in p.stdout:
        lines += json.loads(line)["type"] == "interval"
        if lines == 2:
            break
    check(lines == 2, "no two intervals")
    for _ in range(signals):
        p.send_signal(signal.SIGINT)
        time.sleep(0.2)
    try:
        p.stdout.read()
        err = p.stderr.read()
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        check(False, "the soak did not end within 60 s of %d SIGINT" % signals)
    print("soak, %d SIGINT -> %d\n%s" % (signals, rc, err))
    return rc, err


def left_nothing(rig):
    rig.nothing_running()
    left = [d for d in os.listdir(rig.run) if not d.endswith(".next-run")]
    check(not left, "left in the run directory: %r" % left)


def main():
    rig = Rig("soakint")
    try:
        out = os.path.join(rig.tmp, "once")
        rc, err = soak(rig, out, 1)
        check(rc == 130, "one SIGINT: exit %d, not 130" % rc)
        check(re.search(r"^verdict: INTERRUPTED after \d+ of 60 s \(the part run: PASS\)$", err,
                        re.M), "no interrupted verdict line")
        check(not re.search(r"^verdict: PASS", err, re.M), "a bare 'verdict: PASS'")
        recs = [json.loads(l) for l in open(os.path.join(out, "soak.jsonl")) if l.strip()]
        check(recs[-1]["type"] == "summary" and recs[-1]["interrupted"] is True,
              "soak.jsonl's summary not interrupted")
        left_nothing(rig)
        rc, err = soak(rig, os.path.join(rig.tmp, "twice"), 2)
        check(rc == 130, "two SIGINT: exit %d, not 130" % rc)
        left_nothing(rig)
    finally:
        rig.cleanup()
    print("passed")


main()
