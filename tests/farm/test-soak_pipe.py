#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-soak_pipe.py - `ebfarm soak --json | head -1`: the soak outlives its closed stdout, stops the farm in stages, writes its report and leaves nothing running.
#
# The soak (farms/demo.yaml renamed, --duration 30 --interval 2 --json) has
# its stdout read for one line (the header), then the pipe is closed. The
# soak must see the closed pipe at its first interval and: exit 141
# (128 + SIGPIPE) within 60 s, say "standard output closed" on stderr, write
# soak.jsonl ending in a summary with "interrupted": true and a closed ledger,
# soak.csv and soak.html; and leave nothing: no process whose command line
# names the test's directory (daemons and keepers), no DPDK runtime directory
# of the farm, nothing in the run directory but the run counter.
# Usage: test-soak_pipe.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import json
import os
import subprocess
import time

from farmrig import Rig, check, procs_naming


def main():
    rig = Rig("soakpipe")
    out = os.path.join(rig.tmp, "report")
    try:
        p = subprocess.Popen([rig.exe, "soak", rig.path, "--duration", "30", "--interval", "2",
                              "--json", "--out", out], env=rig.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        first = p.stdout.readline()
        check(json.loads(first)["type"] == "soak", "first line %r" % first)
        p.stdout.close()                 # as `| head -1` does
        t0 = time.time()
        try:
            err = p.stderr.read().decode()
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            check(False, "the soak did not end within 60 s of its stdout closing")
        print(err)
        check(rc == 141, "exit %d, not 141" % rc)
        check(time.time() - t0 < 30, "the soak ran on (%.0f s) after its stdout closed" %
              (time.time() - t0))
        check("ebfarm soak: standard output closed" in err, "no word of the closed stdout")
        check("verdict: INTERRUPTED after " in err, "the terminal does not say interrupted")
        recs = [json.loads(l) for l in open(os.path.join(out, "soak.jsonl")) if l.strip()]
        check(recs[0]["type"] == "soak" and recs[-1]["type"] == "summary", "soak.jsonl ends")
        s = recs[-1]
        check(s["interrupted"] is True, "summary not interrupted: %r" % s.get("interrupted"))
        check(s["ledger"]["closed"] is True, "ledger not closed: %r" % s["ledger"])
        check(len(recs) >= 3, "no interval in soak.jsonl")
        for f in ("soak.csv", "soak.html"):
            check(os.path.getsize(os.path.join(out, f)) > 0, f + " missing")
        rig.nothing_running()
        left = [d for d in os.listdir(rig.run) if not d.endswith(".next-run")]
        check(not left, "run directory left: %r" % left)
    finally:
        for pid in procs_naming(rig.tmp):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        rig.cleanup()
    print("passed")


main()
