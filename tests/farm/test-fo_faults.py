#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-fo_faults.py - SFC failover under a second fault, one scenario a run: the exact ledger (lost 0 where the design promises it, the loss named where not), redecided, and stored events each accepted id once.
#
# A failover farm (tests/farm/farmrig.py fo_farm: memif links, run.replay_mb
# on, 4 sources over the readouts, 4000 events/s, run.events 0) is brought
# up; the scenario's faults are injected while it runs, at event counts of
# ro0; `stop --json` gives the ledger. Checked, exactly, for every scenario
# (farmrig's fo_checked, which test-fo_more.py shares): exit 0 of the stop,
# the ledger closed with unaccounted 0 and the id checks matching, generated
# = accepted + rejected + lost, redecided equal to the failover view's count
# from the id records (redecided_marked), and, with storage (on in every
# scenario), `ebfarm events verify` passing over every file, the ledger's
# accepted equal to the ids the emulated trigger accepts in the ledger's id
# range (run keys accept_seed and accept, not the payload's seed) less the
# ids lost as replay_full (the ledger's lost_ids), and the files holding
# exactly those ids each once (a survivor's replayed copy of a redecided
# event dropped, and the copy of an event redispatched from a node declared
# dead that decided it late: at most redecided + late_accepted of them; a
# replay_full id may be stored or not: the dead place's node may have
# decided it), the storage balance (nodes' accepted = stored, counting those
# copies). Per scenario:
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
import os
import signal
import sys
import time

from farmrig import (check, counter, fo_checked, fo_run, fo_scenario, signal_proc, stop_begin,
                     stop_json, wait_events, wait_more)

RATE = 4000
ACCEPT_SEED = 7


def checked(rig, j, store, sfcs, **kw):
    """fo_checked with this file's trigger seed."""
    return fo_checked(rig, j, store, sfcs, ACCEPT_SEED, **kw)


def two_sfcs(rig, store):
    wait_events(rig, "ro0", 8000)
    signal_proc(rig, "sfc2")
    wait_events(rig, "ro0", 16000)
    signal_proc(rig, "sfc1")
    wait_events(rig, "ro0", 24000)
    checked(rig, stop_json(rig), store, 2)


def node_stall(rig, store):
    wait_events(rig, "ro0", 8000)
    node0 = signal_proc(rig, "node0", signal.SIGSTOP)
    time.sleep(0.3)
    try:
        signal_proc(rig, "sfc1")
        time.sleep(2)
    finally:
        os.kill(node0, signal.SIGCONT)
    wait_more(rig, "ro0", 8000)
    j = stop_json(rig)
    checked(rig, j, store, 1)
    check(j["ledger"]["nodes_dead"] >= 1, "sfc0 did not declare the frozen node0 dead")


def at_stop(rig, store):
    wait_events(rig, "ro0", 8000)
    p = stop_begin(rig)
    sfc1 = rig.pid_of("sfc1")
    time.sleep(0.3)
    os.kill(sfc1, signal.SIGKILL)
    print("sfc1 (%d): SIGKILL during the stop" % sfc1, flush=True)
    j = stop_json(rig, begun=p)
    # the losses named, failed over or not; the storage when nothing was lost
    checked(rig, j, store if j["ledger"]["lost_total"] == 0 else None, 1, lost0=False,
            failover=False)


def replay_full(rig, store):
    wait_events(rig, "ro0", 8000)
    node0 = signal_proc(rig, "node0", signal.SIGSTOP)
    try:
        time.sleep(2.5)
        held = [counter(rig, ro, "replay.held_ns") for ro in ("ro0", "ro1")]
        drops = sum(counter(rig, ro, "replay.dropped") for ro in ("ro0", "ro1"))
        signal_proc(rig, "sfc0")
    finally:
        os.kill(node0, signal.SIGCONT)
    wait_more(rig, "ro0", 4000)
    j = stop_json(rig)
    led = j["ledger"]
    fo = j["failover"]
    print("replay.held_ns %r, replay.dropped %d before the kill, %d in all; peak %d"
          % (held, drops, fo["replay_dropped"], fo["replay_peak_bytes"]))
    check(all(h >= 1e9 for h in held), "a readout held its trigger less than 1 s: %r" % held)
    check(drops > 0, "no event dropped from a replay buffer before the kill")
    check(fo["replay_peak_bytes"] <= 1 << 20, "peak %d above 1 MiB" % fo["replay_peak_bytes"])
    lost = led["lost"].get("replay_full", 0)
    check(list(led["lost"]) == ["replay_full"] and 1 <= lost <= fo["replay_dropped"],
          "losses %r: not 1 .. %d replay_full" % (led["lost"], fo["replay_dropped"]))
    checked(rig, j, store, 1, lost0=False)


def ro_and_sfc(rig, store):
    wait_events(rig, "ro0", 8000)
    ro2, sfc1 = rig.pid_of("ro2"), rig.pid_of("sfc1")
    os.kill(ro2, signal.SIGKILL)
    os.kill(sfc1, signal.SIGKILL)
    print("ro2 (%d) and sfc1 (%d): SIGKILL" % (ro2, sfc1), flush=True)
    wait_more(rig, "ro0", 8000)
    j = stop_json(rig)
    lost = j["ledger"].get("readout_lost") or {}
    check(lost.get("name") == "ro2" and lost.get("readouts") == 1,
          "the readout's loss is not named: %r" % lost)
    check(j["ledger"]["id_digest_match"], "id digests differ")
    checked(rig, j, store, 1, lost0=False)


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
    run = fo_run(RATE, ACCEPT_SEED, "@TMP@/store" if store_on else None)
    run.update(keys)
    fo_scenario(name, readouts, sfcs, per, run, body, store_on)


main()
