#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-top_states.py - `ebfarm top --once` names a process's state as `status` does: EXITED for a killed node (it said NO_DATA), FINISHED for a readout that generated its run.events (it said RUNNING).
#
# farms/demo.yaml renamed, run.events 5000: once ro0 has finished, node1
# is killed (SIGKILL); `top --once` then shows exactly one row per process,
# node1 "EXITED" with no rates, ro0 "FINISHED", sfc0 and node0 "RUNNING",
# and the totals name node1 as giving no counters; `status` says node1
# EXITED too.
# Usage: test-top_states.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import os
import re
import signal
import time

from farmrig import Rig, check


def main():
    rig = Rig("topstates", "demo.yaml", {"events": 5000})
    try:
        check(rig.ebfarm("up", rig.path).returncode == 0, "up")
        for _ in range(120):
            if [x for x in rig.status()["processes"] if x["name"] == "ro0"][0]["finished"]:
                break
            time.sleep(0.5)
        os.kill(rig.pid_of("node1"), signal.SIGKILL)
        time.sleep(0.5)
        p = rig.ebfarm("top", "--once", merge=False)
        rows = {m.group(1): m.group(2) for m in
                re.finditer(r"^(\w+) +(?:sfc|node|readout) +(\S+)", p.stdout, re.M)}
        check(rows == {"sfc0": "RUNNING", "node0": "RUNNING", "node1": "EXITED",
                       "ro0": "FINISHED"}, "top's states %r" % rows)
        check(re.search(r"^node1 +node +EXITED +- +- +- +-$", p.stdout, re.M),
              "node1's row is not EXITED without rates")
        check("(no counters from node1)" in p.stdout, "the totals do not name node1")
        st = {x["name"]: x["state"] for x in rig.status()["processes"]}
        check(st["node1"] == "EXITED", "status says node1 is %s" % st["node1"])
    finally:
        rig.cleanup()
    print("passed")


main()
