#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-stop_down.py - `ebfarm down` of a running farm stops it in stages and prints the ledger; `ebfarm stop` of a stopped farm says so with exit 3 instead of reprinting a summary; no lock file is left once the farm is down.
#
# farms/demo.yaml renamed, run.events 0 (the run goes on until stopped):
# 0. After `up`, each daemon's parent (its keeper) is titled for what it is:
#    /proc/PID/comm "ebfkeep-NAME", cmdline "ebfarm-keeper NAME RUN_DIR/FARM"
#    (before, it carried `ebfarm up FILE` for the farm's life).
# 1. `up`, `stop`: exit 0 with the ledger (CLOSED); `stop` again: exit 3,
#    "farm 'NAME' is already stopped: run 1 is not in progress", no ledger.
# 2. `start`, `down`: exit 0, the summary of run 2 with its ledger CLOSED,
#    then "farm 'NAME' is down: 4 processes stopped"; the run directory
#    holds only NAME.next-run (no .NAME.lock: lock files piled up there).
# 3. `up --no-start`, `down`: exit 0, no ledger (no run was in progress);
#    again only NAME.next-run.
# Usage: test-stop_down.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import os
import re

from farmrig import Rig, check


def ledger(text):
    return re.search(r"^  ledger +generated \d+ = .*\n(.*\n)*? +CLOSED$", text, re.M)


def only_counter(rig):
    left = sorted(os.listdir(rig.run))
    check(left == [rig.name + ".next-run"], "run directory after down: %r" % left)


def keepers_titled(rig):
    for p in rig.status()["processes"]:
        ppid = int(open("/proc/%d/stat" % p["pid"]).read().rsplit(")", 1)[1].split()[1])
        comm = open("/proc/%d/comm" % ppid).read().strip()
        cmd = open("/proc/%d/cmdline" % ppid, "rb").read().split(b"\0")[0].decode()
        want = "ebfarm-keeper %s %s/%s" % (p["name"], rig.run, rig.name)
        check(comm == ("ebfkeep-" + p["name"])[:15], "keeper of %s: comm %r" % (p["name"], comm))
        check(cmd == want, "keeper of %s: cmdline %r, want %r" % (p["name"], cmd, want))


def main():
    rig = Rig("stopdown", "demo.yaml", {"events": 0})
    name = rig.name
    try:
        check(rig.ebfarm("up", rig.path).returncode == 0, "up")
        keepers_titled(rig)
        p = rig.ebfarm("stop", "--farm", name, merge=False)
        check(p.returncode == 0 and ledger(p.stdout), "first stop: exit %d" % p.returncode)
        p = rig.ebfarm("stop", "--farm", name, merge=False)
        check(p.returncode == 3, "second stop: exit %d, not 3" % p.returncode)
        check(p.stdout == "", "second stop printed %r" % p.stdout)
        check("ebfarm stop: farm '%s' is already stopped: run 1 is not in progress" % name
              in p.stderr, "second stop's message")
        check(rig.ebfarm("start", "--farm", name).returncode == 0, "start")
        p = rig.ebfarm("down", "--farm", name, merge=False)
        check(p.returncode == 0, "down of a running farm: exit %d" % p.returncode)
        check(ledger(p.stdout), "down of a running farm printed no closed ledger")
        check(re.search(r"^  run +farm %s, run 2," % name, p.stdout, re.M), "not run 2's summary")
        check(p.stdout.rstrip().endswith("farm '%s' is down: 4 processes stopped" % name),
              "down's last line")
        only_counter(rig)
        check(rig.ebfarm("up", rig.path, "--no-start").returncode == 0, "up --no-start")
        p = rig.ebfarm("down", "--farm", name, merge=False)
        check(p.returncode == 0 and "ledger" not in p.stdout, "down with no run: %d" %
              p.returncode)
        check(p.stdout == "farm '%s' is down: 4 processes stopped\n" % name, "down's output")
        only_counter(rig)
    finally:
        rig.cleanup()
    print("passed")


main()
