#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-runctl.py - `ebfarm pause`, `resume` and `reset` on a farm that is up: the daemons' PAUSE, RESUME and RESET for the whole farm, with exact outputs and exit statuses.
#
# farms/demo.yaml renamed, run.events 0 at 5000 events/s:
# 1. `pause`: exit 0, "farm 'N': run 1 paused: 1 readout holding ...";
#    status: ro0 PAUSED, the others RUNNING; the events generated do not
#    change over 1.5 s; `pause` again: exit 3, "no readout is running".
# 2. `reset` while the run is in progress: exit 1, "... ebfarm stop first".
# 3. `resume`: exit 0, ro0 RUNNING and generating again; `resume` again:
#    exit 3, "no readout is paused".
# 4. `pause`, then `stop` of the paused run: exit 0 with the ledger CLOSED.
# 5. `reset`: exit 0, "farm 'N' is reset: 4 processes CONFIGURED (0 were in
#    ERROR) ..."; every process CONFIGURED; `start`: run 2 RUNNING.
# 6. `logs ro0 --lines 2`: exit 0, exactly the last 2 lines of ro0's log.
# Usage: test-runctl.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import os
import re
import time

from farmrig import Rig, check


def states(rig):
    return {p["name"]: p["state"] for p in rig.status()["processes"]}


def generated(rig):
    ro = [p for p in rig.status()["processes"] if p["name"] == "ro0"][0]
    return ro["counters"]["events"]


def main():
    rig = Rig("runctl", "demo.yaml", {"events": 0, "rate": 5000})
    n = rig.name
    try:
        check(rig.ebfarm("up", rig.path).returncode == 0, "up")
        p = rig.ebfarm("pause", merge=False)
        check(p.returncode == 0 and p.stdout == "farm '%s': run 1 paused: 1 readout holding "
              "their generation (ebfarm resume goes on, ebfarm stop ends the run)\n" % n,
              "pause")
        check(states(rig) == {"sfc0": "RUNNING", "node0": "RUNNING", "node1": "RUNNING",
                              "ro0": "PAUSED"}, "states after pause: %r" % states(rig))
        g = generated(rig)
        time.sleep(1.5)
        check(generated(rig) == g, "a paused readout generated %d more" % (generated(rig) - g))
        p = rig.ebfarm("pause", merge=False)
        check(p.returncode == 3 and p.stderr == "ebfarm pause: farm '%s': no readout is "
              "running: nothing to pause\n" % n, "second pause")
        p = rig.ebfarm("reset", merge=False)
        check(p.returncode == 1 and p.stderr == "ebfarm reset: farm '%s': sfc0 is RUNNING in "
              "run 1: ebfarm stop first\n" % n, "reset of a running farm")
        p = rig.ebfarm("resume", merge=False)
        check(p.returncode == 0 and p.stdout == "farm '%s': run 1 resumed: 1 readout "
              "generating again\n" % n, "resume")
        check(states(rig)["ro0"] == "RUNNING", "ro0 after resume")
        g = generated(rig)
        time.sleep(1.5)
        check(generated(rig) > g, "a resumed readout does not generate")
        p = rig.ebfarm("resume", merge=False)
        check(p.returncode == 3 and p.stderr == "ebfarm resume: farm '%s': no readout is "
              "paused: nothing to resume\n" % n, "second resume")
        check(rig.ebfarm("pause").returncode == 0, "pause before stop")
        p = rig.ebfarm("stop", merge=False)
        check(p.returncode == 0 and re.search(r"^ +CLOSED$", p.stdout, re.M),
              "stop of a paused run: exit %d" % p.returncode)
        p = rig.ebfarm("reset", merge=False)
        check(p.returncode == 0 and p.stdout == "farm '%s' is reset: 4 processes CONFIGURED "
              "(0 were in ERROR); ebfarm start begins the next run\n" % n, "reset")
        check(set(states(rig).values()) == {"CONFIGURED"}, "after reset: %r" % states(rig))
        p = rig.ebfarm("start", merge=False)
        check(p.returncode == 0 and p.stdout == "farm '%s': run 2 RUNNING\n" % n, "start")
        p = rig.ebfarm("logs", "ro0", "--lines", "2", merge=False)
        log = open(os.path.join(rig.run, n, "ro0.log")).read().splitlines(True)
        check(p.returncode == 0 and len(log) > 2 and p.stdout == "".join(log[-2:]),
              "logs --lines 2: %r" % p.stdout)
    finally:
        rig.cleanup()
    print("passed")


main()
