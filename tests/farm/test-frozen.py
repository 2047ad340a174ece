#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-frozen.py - `ebfarm stop` and `start` with a process frozen (SIGSTOP) or killed: stop still yields a ledger naming it gone, start refuses before ordering anyone, so the farm is never in two runs.
#
# farms/demo.yaml renamed, run.events 0 (the run goes on until stopped):
# 1. `up`, node0 frozen (SIGSTOP): `stop` exits 0 within 30 s, its ledger
#    names node0 gone, and every other process is CONFIGURED in run 1.
# 2. `start`: exit 1 naming "node0 is frozen" and "no run started"; every
#    other process still CONFIGURED, the farm's run still 1.
# 3. node0 killed (SIGKILL, then SIGCONT): `start` exits 1 naming "node0 is
#    gone"; the others CONFIGURED in run 1.
# 4. `up` again after `down`, sfc0 frozen: `stop` exits 0 with the ledger
#    naming sfc0 gone; `down` kills it at once (exit 1, "sfc0 was frozen and
#    was killed", within 10 s) and nothing is left running.
# Usage: test-frozen.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import os
import re
import signal
import time

from farmrig import Rig, check, procs_naming


def others_configured(rig, skip):
    st = rig.status()
    states = {x["name"]: x["state"] for x in st["processes"] if x["name"] != skip}
    check(states and all(s == "CONFIGURED" for s in states.values()), "states %r" % states)
    return st


def main():
    rig = Rig("frozen", "demo.yaml", {"events": 0})
    frozen = []
    try:
        check(rig.ebfarm("up", rig.path).returncode == 0, "up")
        time.sleep(1)
        node0 = rig.pid_of("node0")
        os.kill(node0, signal.SIGSTOP)
        frozen.append(node0)
        p = rig.ebfarm("stop")
        check(p.returncode == 0, "stop with node0 frozen: exit %d, not 0" % p.returncode)
        check(p.elapsed < 30, "stop took %.0f s" % p.elapsed)
        check(re.search(r"^  node0 +gone", p.stdout, re.M), "the summary does not name node0 gone")
        others_configured(rig, "node0")
        p = rig.ebfarm("start")
        check(p.returncode == 1, "start with node0 frozen: exit %d, not 1" % p.returncode)
        check("node0 is frozen" in p.stdout and "no run started" in p.stdout, "start's message")
        others_configured(rig, "node0")
        os.kill(node0, signal.SIGKILL)
        # SIGKILL ends a stopped process too: its keeper may have reaped it
        # before the SIGCONT (the test died of ProcessLookupError on a loaded
        # machine)
        try:
            os.kill(node0, signal.SIGCONT)
        except ProcessLookupError:
            pass
        time.sleep(0.5)
        p = rig.ebfarm("start")
        check(p.returncode == 1, "start with node0 killed: exit %d, not 1" % p.returncode)
        check("node0 is gone" in p.stdout and "no run started" in p.stdout, "start's message")
        others_configured(rig, "node0")
        check(rig.ebfarm("down").returncode == 0, "down with node0 gone")
        check(rig.ebfarm("up", rig.path).returncode == 0, "second up")
        time.sleep(1)
        sfc0 = rig.pid_of("sfc0")
        os.kill(sfc0, signal.SIGSTOP)
        frozen.append(sfc0)
        p = rig.ebfarm("stop")
        check(p.returncode == 0, "stop with sfc0 frozen: exit %d, not 0" % p.returncode)
        check(re.search(r"sfc0 +gone|sfc0[^\n]*gone", p.stdout), "the summary does not name sfc0 gone")
        others_configured(rig, "sfc0")
        p = rig.ebfarm("down")
        check(p.returncode == 1 and "sfc0 was frozen and was killed" in p.stdout,
              "down with sfc0 frozen: exit %d" % p.returncode)
        check(p.elapsed < 10, "down waited %.0f s for a frozen sfc0" % p.elapsed)
        time.sleep(0.5)
        left = procs_naming(rig.tmp)
        check(not left, "processes left running: %r" % left)
    finally:
        for pid in frozen:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        rig.cleanup()
        for pid in procs_naming(rig.tmp):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
    print("passed")


main()
