#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-up_fail.py - a failed `ebfarm up` cleans what it made, so that the next `up` of the fixed farm file works.
#
# farms/demo.yaml renamed, with a plug-in path that is no plug-in
# (run.trigger.plugin: /etc/passwd): `up` exits 1 naming the plug-in; after
# it no process names the test's directory, no DPDK runtime directory of the
# farm is left, the run directory holds only the logs (*.log: what the
# operator reads to learn why), and `down` says the farm is not up (exit 1).
# The same file without the trigger: `up` exits 0, `status` shows the four
# processes RUNNING, `down` exits 0 and leaves nothing but the run counter.
# Usage: test-up_fail.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import os

from farmrig import Rig, check, procs_naming


def main():
    rig = Rig("upfail")
    run, name = rig.run, rig.name
    text = open(rig.path).read()
    bad = text.replace("  seed: 1\n", "  seed: 1\n  trigger:\n    plugin: /etc/passwd\n")
    check(bad != text, "farm file not changed")
    open(rig.path, "w").write(bad)
    try:
        p = rig.ebfarm("up", rig.path)
        check(p.returncode == 1, "bad up: exit %d, not 1" % p.returncode)
        check("/etc/passwd" in p.stdout, "bad up does not name the plug-in")
        rig.nothing_running()
        rd = os.path.join(run, name)
        left = sorted(f for f in os.listdir(rd) if not f.endswith(".log")) \
            if os.path.isdir(rd) else []
        check(not left, "after the failed up, the run directory holds %r" % left)
        p = rig.ebfarm("down", "--farm", name)
        check(p.returncode == 1 and "not up" in p.stdout, "down of a farm not up: %d" %
              p.returncode)
        open(rig.path, "w").write(text)
        p = rig.ebfarm("up", rig.path)
        check(p.returncode == 0, "up of the fixed file: exit %d, not 0" % p.returncode)
        states = [x["state"] for x in rig.status()["processes"]]
        check(len(states) == 4 and all(s in ("RUNNING", "CONFIGURED") for s in states),
              "states %r" % states)
        p = rig.ebfarm("down", "--farm", name)
        check(p.returncode == 0, "down: exit %d" % p.returncode)
        rig.nothing_running()
        left = [d for d in os.listdir(run) if not d.endswith(".next-run")]
        check(not left, "run directory left: %r" % left)
    finally:
        rig.cleanup()
        for pid in procs_naming(rig.tmp):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
    print("passed")


main()
