#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-netns-failover.py - the network-namespace farm (4 readouts, 2 SFCs, 4 nodes, each on its own host, af_packet links) with SFC 1 killed mid-run: every readout declares it dead, replays its unreleased events to SFC 0, and the ledger closes with lost 0.
#
# `ebfarm demo --netns --events 60000 --kill-sfc-after 20000 --json`
# (failover on: replay buffers of 64 MiB, the default rate halved to
# 2,500 events/s so that the one survivor's af_packet ring takes it all;
# the demo freezes SFC 1, then SIGKILLs it once every readout declared it
# dead). On a 2-vCPU machine at a load average near 30 it failed 3 runs in
# 10 (docs/performance.md, "Failover": the survivor fencing itself, an
# af_packet ring overflowing); the open ledger is printed.
# Checked from the JSON:
#   - the rate is the failover default, 2,500 events/s;
#   - the ledger: generated 60000 == accepted + rejected, lost 0,
#     unaccounted 0, the id records match, closed;
#   - sfc1 is the one SFC gone, with failover, its share replayed;
#   - the failover view: sfc0 live with the whole share, sfc1 gone;
#     deaths a multiple of the 4 readouts (each declared sfc1 dead once,
#     and each fence of sfc0 on a loaded machine is one more at each), no
#     replayed event dropped;
#   - no namespace, sshd or DPDK runtime directory of the run is left.
# Usage: test-netns-failover.py SOURCE_ROOT BUILD_DIR. Exit 0 passed, 1 failed.
import json
import os
import subprocess
import sys
import tempfile

from farmrig import namespaces, netns_leftovers

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
EVENTS = 60000
failed = 0


def check(cond, msg):
    global failed
    if not cond:
        print("FAIL: " + msg)
        failed += 1


def main():
    with tempfile.TemporaryDirectory(prefix="ebf-nsfo-") as tmp:
        env = dict(os.environ, EBFARM_RUN_DIR=os.path.join(tmp, "run"), EBFARM_BUILD_DIR=BUILD)
        os.makedirs(env["EBFARM_RUN_DIR"])
        before = namespaces()
        p = subprocess.Popen([EBFARM, "demo", "--netns", "--events", str(EVENTS),
                              "--kill-sfc-after", "20000", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        stdout, stderr = p.communicate(timeout=600)
        check(p.returncode == 0, "demo exit %d: %s" % (p.returncode, stderr[-2000:]))
        try:
            d = json.loads(stdout)      # also after exit 1: the ledger says what is open
        except ValueError:
            d = None
        ns, dpdk, ssh = netns_leftovers(before, p.pid)
        check(not ns and not dpdk and not ssh,
              "left behind: namespaces %r, runtime dirs %r, sshd %r" % (ns, dpdk, ssh))
        if d is None:
            return
        led, fo = d["ledger"], d["failover"]
        check(d["config"]["rate"] == 2500, "rate %r, want 2500" % d["config"]["rate"])
        got = (led["generated"], led["accepted"] + led["rejected"], led["lost_total"],
               led["unaccounted"], led["ids_match"], led["closed"])
        check(got == (EVENTS, EVENTS, 0, 0, True, True),
              "ledger (generated, decided, lost, unaccounted, ids_match, closed): %r" % (got,))
        gone = led.get("sfc_gone") or {}
        check((gone.get("name"), gone.get("sfcs"), gone.get("failover")) == ("sfc1", 1, True),
              "sfc_gone: %r" % gone)
        check(gone.get("replayed", 0) > 0, "nothing of sfc1's share replayed: %r" % gone)
        states = [(s["name"], s["state"], s["share"]) for s in fo["sfcs"]]
        check(states == [("sfc0", "live", 1.0), ("sfc1", "gone", 0.0)],
              "failover view: %r" % states)
        # each readout declares sfc1 dead once; a fence of sfc0 (its poll
        # loop stalled past 80 ms by a loaded machine) is one death more at
        # every readout, so the deaths are a multiple of the 4 readouts
        check(fo["deaths"] >= 4 and fo["deaths"] % 4 == 0 and fo["replay_dropped"] == 0,
              "failover (deaths, replay_dropped): %r" % ((fo["deaths"], fo["replay_dropped"]),))
        if not led["closed"]:
            print("open ledger: %s" % json.dumps(led)[:1500])
        if not failed:
            print("netns farm: %d events at %g/s, sfc1 killed, %d replayed, %d redecided, "
                  "%d incomplete; ledger closed, lost 0" % (
                      led["generated"], d["config"]["rate"], fo["replayed"],
                      gone.get("redecided", 0), led["incomplete"]))


main()
print("test-netns-failover: %d checks failed" % failed)
sys.exit(1 if failed else 0)
