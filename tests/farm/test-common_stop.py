#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-common_stop.py - the staged stop ends every readout of a 4-readout farm at one common event id: no incomplete event, the exact ledger, no event waiting out timeout_ms.
#
# farms/multi.yaml (4 readouts of 2 sources, 2 SFCs, 4 nodes) renamed,
# run.events 0 (the run goes on until stopped), run.rate 5000 and then 0
# (unpaced: the readouts race and drift apart), and run.timeout_ms 60000:
# an event a readout stopped short of would wait in its SFC, then be
# delivered incomplete. Stopped mid-run
# (`stop --json`, after each readout generated at least 2,000 events):
# - every readout's row (readouts[]) has stop_at X > 0, next_event X and
#   events X (ids 0 .. X-1: the same ids on every readout);
# - the ledger: closed, generated X = accepted + rejected, incomplete 0,
#   lost_total 0, unaccounted 0;
# - every SFC's row (sfcs[]): events_incomplete 0 (none timed out, so the
#   stop waited for no timeout_ms), and their events_complete add up to X.
# Before, the readouts stopped at different events: this test saw 237
# incomplete events at 5,000 events/s (ledger generated 6476, readouts
# from 6239 on).
# Usage: test-common_stop.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import json
import time

from farmrig import Rig, check


def readout_events(rig):
    out = {}
    for p in rig.status()["processes"]:
        if p["name"].startswith("ro"):
            out[p["name"]] = (p.get("counters") or {}).get("events", 0)
    return out


def stopped_mid_run(rate):
    rig = Rig("cstop", "multi.yaml", {"events": 0, "rate": rate, "timeout_ms": 60000})
    try:
        check(rig.ebfarm("up", rig.path).returncode == 0, "up")
        end = time.time() + 60
        while time.time() < end:
            ev = readout_events(rig)
            if len(ev) == 4 and min(ev.values()) >= 2000:
                break
            time.sleep(0.5)
        p = rig.ebfarm("stop", "--farm", rig.name, "--json", merge=False)
        check(p.returncode == 0, "stop: exit %d" % p.returncode)
        s = json.loads(p.stdout)
        ro = s["readouts"]
        check([r["name"] for r in ro] == ["ro0", "ro1", "ro2", "ro3"], "readouts: %r" % ro)
        x = ro[0]["stop_at"]
        check(x > 0, "no common end: %r" % ro)
        for r in ro:
            got = (r["gone"], r["stop_at"], r["next_event"], r["events"])
            check(got == (False, x, x, x), "%s: (gone, stop_at, next_event, events) %r, want %r"
                  % (r["name"], got, (False, x, x, x)))
        led = s["ledger"]
        got = (led["closed"], led["generated"], led["accepted"] + led["rejected"],
               led["incomplete"], led["lost_total"], led["unaccounted"])
        want = (True, x, x, 0, 0, 0)
        check(got == want, "ledger (closed, generated, decided, incomplete, lost, unaccounted) "
              "%r, want %r" % (got, want))
        sfcs = s["sfcs"]
        check([f["name"] for f in sfcs] == ["sfc0", "sfc1"], "sfcs: %r" % sfcs)
        for f in sfcs:
            check(f["events_incomplete"] == 0, "%s: events_incomplete %d (timed out)"
                  % (f["name"], f["events_incomplete"]))
        total = sum(f["events_complete"] for f in sfcs)
        check(total == x, "events built %d, want %d" % (total, x))
        print("ok: rate %d: 4 readouts stopped at event %d, ledger exact, nothing incomplete"
              % (rate, x))
    finally:
        rig.cleanup()
    rig.nothing_running()


def main():
    stopped_mid_run(5000)
    stopped_mid_run(0)      # unpaced: the readouts race; a proposed end may be passed
    print("passed")


main()
