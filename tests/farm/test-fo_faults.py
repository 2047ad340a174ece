#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-fo_faults.py - SFC failover under a second fault, one scenario a run: the exact ledger (lost 0 where the design promises it, the loss named where not), redecided, and stored events each accepted id once.
#
# A failover farm (tests/farm/farmrig.py fo_farm: memif links, run.replay_mb
# on, 4 sources over the readouts, 4000 events/s, run.events 0) is brought
# up; the scenario's faults are injected while it
# runs, at event counts of ro0; `stop --json` gives the ledger. Checked,
# exactly, for every scenario: exit 0 of the stop, the ledger closed with
# unaccounted 0 and the id checks matching, generated = accepted + rejected
# + lost, and, with storage (on in every scenario), `ebfarm events verify`
# passing over every file, the ledger's accepted equal to the ids the
# emulated trigger accepts in the ledger's id range (run keys accept_seed
# and accept, not the payload's seed) less the ids lost as replay_full
# (the ledger's lost_ids), and the files holding exactly those ids each
# once (a survivor's replayed copy of a redecided event dropped, and the
# copy of an event redispatched from a node declared dead that decided it
# late: at most redecided + late_accepted of them; a replay_full id may be
# stored or not: the dead place's node may have decided it), the storage
# balance (nodes' accepted = stored, counting those copies). Per scenario:
#   two_sfcs   3 SFCs (1 node each), 2 readouts: sfc2 SIGKILLed, then sfc1
#              once sfc2's share moved: both failed over, lost 0, only
#              sfc0 live.
#   node_stall 2 SFCs with 2 nodes each: node0 (of sfc0) frozen (SIGSTOP),
#              sfc1 SIGKILLed 0.3 s later, node0 resumed 2 s later: lost 0,
#              sfc0 declared node0 dead and took it back.
#   at_stop    2 SFCs: `stop` begun, sfc1 SIGKILLed 0.3 s into it: the
#              ledger closes, every loss named (lost 0 when the readouts
#              had not stopped yet: they replay to sfc0).
#   replay_full  run.replay_mb 1: node0 (sfc0's only node)
#              frozen, so that sfc0 releases nothing and the readouts'
#              buffers fill: the trigger is held (replay.held_ns 1 s at
#              least each), then the oldest events dropped from the buffers
#              (replay.dropped); sfc0 SIGKILLed 2.5 s into the freeze: its
#              events the readouts dropped cannot be replayed, and are the
#              only loss, named replay_full (1 .. replay.dropped of them).
#   ro_and_sfc 3 readouts, 2 SFCs: ro2 and sfc1 SIGKILLed together: the
#              readout's loss named (readout ro2 lost from event N on,
#              closed over what the survivors saw), sfc1 failed over, no
#              id counted twice.
# Usage: test-fo_faults.py SOURCE_DIR BUILD_DIR SCENARIO. Exit 0 passed, 1 failed.
import json
import os
import signal
import subprocess
import sys
import time

from farmrig import (accepted_ids, check, counter, fo_scenario, stop_json, stored_once,
                     wait_events)

RATE = 4000
SEED = 1
ACCEPT_SEED = 7
ACCEPT = 0.1


def run_keys(store):
    keys = {"sources": 4, "events": 0, "rate": RATE, "duration_s": 300, "frag_size": 512,
            "seed": SEED, "trigger_us": 1, "accept": ACCEPT, "accept_seed": ACCEPT_SEED,
            "timeout_ms": 2000,
            "replay_mb": 32}
    if store:
        keys["store"] = {"dir": store}
    return keys


def closed(j):
    """The checks every scenario shares; returns the ledger."""
    led = j["ledger"]
    check(led["closed"] and led["unaccounted"] == 0 and led["ids_match"], "ledger not closed")
    gen = led["seen"] if led.get("readout_lost") else led["generated"]     # over the survivors
    check(gen == led["id_range"]["n"] == led["accepted"] + led["rejected"] + led["lost_total"],
          "generated %d != accepted %d + rejected %d + lost %d"
          % (gen, led["accepted"], led["rejected"], led["lost_total"]))
    check(sum(led["lost"].values()) == led["lost_total"], "losses not all named")
    return led


def failed_over(led, sfcs, lost0=True):
    """sfcs SFCs gone and failed over; lost 0 when lost0. Returns redecided."""
    g = led.get("sfc_gone") or {}
    check(g.get("failover") and g.get("sfcs") == sfcs,
          "not %d SFC(s) failed over: %r" % (sfcs, g))
    if lost0:
        check(led["lost_total"] == 0 and led["lost"] == {}, "lost %r" % led["lost"])
    check(g["redecided"] <= g["replayed"], "redecided %d > replayed %d"
          % (g["redecided"], g["replayed"]))
    return g["redecided"]


def stored(rig, led, store, redecided):
    if not store:
        return
    r = led["id_range"]
    lost = set(led.get("lost_ids", {}).get("replay_full", []))
    check(len(lost) == led["lost"].get("replay_full", 0), "replay_full ids not all listed")
    trig = accepted_ids(r["lo"], r["n"], ACCEPT_SEED, ACCEPT)
    want = [i for i in trig if i not in lost]
    check(len(want) == led["accepted"], "accepted %d, the trigger's ids %d (%d lost)"
          % (led["accepted"], len(want), len(trig) - len(want)))
    check(led["store"]["balanced"] and led["store"]["lost_total"] == 0,
          "storage not balanced: %r" % led["store"])
    dropped = stored_once(rig, store, want, maybe=lost)
    check(dropped <= redecided + led["late_accepted"], "%d marked copies dropped > redecided %d "
          "+ late accepts %d" % (dropped, redecided, led["late_accepted"]))
    print("stored: %d accepted ids once each, %d marked copies dropped (redecided %d, late "
          "accepts %d), %d lost accepted" % (len(want), dropped, redecided, led["late_accepted"],
                                             len(trig) - len(want)))


def kill(rig, proc, sig=signal.SIGKILL):
    pid = rig.pid_of(proc)
    os.kill(pid, sig)
    print("%s (%d): %s" % (proc, pid, signal.Signals(sig).name), flush=True)
    return pid


def two_sfcs(rig, store):
    wait_events(rig, "ro0", 8000)
    kill(rig, "sfc2")
    wait_events(rig, "ro0", 16000)
    kill(rig, "sfc1")
    wait_events(rig, "ro0", 24000)
    led = closed(stop_json(rig))
    stored(rig, led, store, failed_over(led, 2))


def node_stall(rig, store):
    wait_events(rig, "ro0", 8000)
    node0 = kill(rig, "node0", signal.SIGSTOP)
    time.sleep(0.3)
    try:
        kill(rig, "sfc1")
        time.sleep(2)
    finally:
        os.kill(node0, signal.SIGCONT)
    n = counter(rig, "ro0", "events")
    wait_events(rig, "ro0", n + 8000)
    j = stop_json(rig)
    led = closed(j)
    stored(rig, led, store, failed_over(led, 1))
    check(led["nodes_dead"] >= 1, "sfc0 did not declare the frozen node0 dead")


def at_stop(rig, store):
    wait_events(rig, "ro0", 8000)
    p = subprocess.Popen([rig.exe, "stop", "--json", "--farm", rig.name], env=rig.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sfc1 = rig.pid_of("sfc1")
    time.sleep(0.3)
    os.kill(sfc1, signal.SIGKILL)
    print("sfc1 (%d): SIGKILL during the stop" % sfc1, flush=True)
    out, err = p.communicate(timeout=240)
    check(p.returncode == 0, "stop: exit %d\n%s%s" % (p.returncode, out, err))
    j = json.loads(out)
    print("$ ebfarm stop --json: ledger %s" % json.dumps(j["ledger"], sort_keys=True))
    led = closed(j)
    g = led.get("sfc_gone") or {}
    check(g.get("sfcs") == 1, "sfc1 not gone: %r" % g)
    redecided = g.get("redecided", 0) if g.get("failover") else 0
    if led["lost_total"] == 0:
        stored(rig, led, store, redecided)


def replay_full(rig, store):
    wait_events(rig, "ro0", 8000)
    node0 = kill(rig, "node0", signal.SIGSTOP)
    try:
        time.sleep(2.5)
        held = [counter(rig, ro, "replay.held_ns") for ro in ("ro0", "ro1")]
        drops = sum(counter(rig, ro, "replay.dropped") for ro in ("ro0", "ro1"))
        kill(rig, "sfc0")
    finally:
        os.kill(node0, signal.SIGCONT)
    n = counter(rig, "ro0", "events")
    wait_events(rig, "ro0", n + 4000)
    j = stop_json(rig)
    led = closed(j)
    fo = j["failover"]
    print("replay.held_ns %r, replay.dropped %d before the kill, %d in all; peak %d"
          % (held, drops, fo["replay_dropped"], fo["replay_peak_bytes"]))
    check(all(h >= 1e9 for h in held), "a readout held its trigger less than 1 s: %r" % held)
    check(drops > 0, "no event dropped from a replay buffer before the kill")
    check(fo["replay_peak_bytes"] <= 1 << 20, "peak %d above 1 MiB" % fo["replay_peak_bytes"])
    redecided = failed_over(led, 1, lost0=False)
    lost = led["lost"].get("replay_full", 0)
    check(list(led["lost"]) == ["replay_full"] and 1 <= lost <= fo["replay_dropped"],
          "losses %r: not 1 .. %d replay_full" % (led["lost"], fo["replay_dropped"]))
    stored(rig, led, store, redecided)


def ro_and_sfc(rig, store):
    wait_events(rig, "ro0", 8000)
    ro2, sfc1 = rig.pid_of("ro2"), rig.pid_of("sfc1")
    os.kill(ro2, signal.SIGKILL)
    os.kill(sfc1, signal.SIGKILL)
    print("ro2 (%d) and sfc1 (%d): SIGKILL" % (ro2, sfc1), flush=True)
    n = counter(rig, "ro0", "events")
    wait_events(rig, "ro0", n + 8000)
    led = closed(stop_json(rig))
    lost = led.get("readout_lost") or {}
    check(lost.get("name") == "ro2" and lost.get("readouts") == 1,
          "the readout's loss is not named: %r" % lost)
    redecided = failed_over(led, 1, lost0=False)
    check(led["id_digest_match"], "id digests differ")
    stored(rig, led, store, redecided)


SCENARIOS = {  # name: (readouts, SFCs, nodes per SFC, STORE, run keys changed, body)
    "two_sfcs": (2, 3, 1, True, {}, two_sfcs),
    "node_stall": (2, 2, 2, True, {}, node_stall),
    "at_stop": (2, 2, 1, True, {}, at_stop),
    "replay_full": (2, 2, 1, True, {"replay_mb": 1}, replay_full),
    "ro_and_sfc": (3, 2, 1, True, {"sources": 6}, ro_and_sfc),
}


def main():
    name = sys.argv[3]
    readouts, sfcs, per, store_on, keys, body = SCENARIOS[name]
    run = run_keys("@TMP@/store" if store_on else None)
    run.update(keys)
    fo_scenario(name, readouts, sfcs, per, run, body, store_on)


main()
