#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-mtu_memory.py - `run.mtu: 9000` with the SFC's memory_mb of an MTU-1500 farm is refused before anything starts, naming the key and the memory_mb to give; with that memory_mb the farm runs.
#
# farms/demo.yaml renamed, run.mtu 9000, run.events 20000:
# 1. `up`: exit 1 with "ebfarm up: farm 'N': key 'sfcs[0].memory_mb': 256 MB
#    cannot hold sfc0's mbuf pools at run.mtu 9000: they take at least 334
#    MB (...); give memory_mb: 512 or more, ..." (before: sfc0 exited while
#    starting, "mempool ... Cannot allocate memory"); nothing started, the
#    run directory empty.
# 2. sfc0's memory_mb set to the 512 asked for: `up` exits 0, the run
#    finishes its 20000 events, `stop` exits 0 with the ledger CLOSED.
# Usage: test-mtu_memory.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import os
import re
import time

from farmrig import Rig, check


def main():
    rig = Rig("mtumem", "demo.yaml", {"mtu": 9000, "events": 20000})
    n = rig.name
    try:
        p = rig.ebfarm("up", rig.path, merge=False)
        want = ("ebfarm up: farm '%s': key 'sfcs[0].memory_mb': 256 MB cannot hold sfc0's mbuf "
                "pools at run.mtu 9000: they take at least 334 MB (32767 receive mbufs of 9018 "
                "B, and its clone, ack and header pools); give memory_mb: 512 or more, or a "
                "smaller run.mtu or sfcs[0].mbufs\n" % n)
        check(p.returncode == 1 and p.stderr == want, "up at MTU 9000: %r" % p.stderr)
        rig.nothing_running()
        check(os.listdir(rig.run) == [], "left in the run directory: %r" % os.listdir(rig.run))
        text = open(rig.path).read()
        check(text.count("    memory_mb: 256\n") == 1, "sfc0's memory_mb line")
        open(rig.path, "w").write(text.replace("    memory_mb: 256\n", "    memory_mb: 512\n"))
        check(rig.ebfarm("up", rig.path).returncode == 0, "up with memory_mb 512")
        for _ in range(120):
            ro = [x for x in rig.status()["processes"] if x["name"] == "ro0"][0]
            if ro["finished"]:
                break
            time.sleep(0.5)
        check(ro["finished"], "ro0 did not finish its 20000 events")
        p = rig.ebfarm("stop", merge=False)
        check(p.returncode == 0 and re.search(r"^ +CLOSED$", p.stdout, re.M),
              "stop at MTU 9000: exit %d" % p.returncode)
        check(re.search(r"^  ledger +generated 20000 = ", p.stdout, re.M), "not 20000 generated")
    finally:
        rig.cleanup()
    print("passed")


main()
