#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-netns-sfc_restart.py - the network-namespace farm (farms/netns.yaml: 4 readouts, 2 SFCs, 4 nodes, each on its own host over ssh, af_packet links) with failover on and sfc1 restarted mid-run (`ebfarm restart sfc1`): it rejoins and builds again, and the ledger closes with lost 0.
#
# farms/netns.yaml renamed for the test (its namespaces ebd<pid>-<process>,
# CURVE keys made by `ebfarm keygen` in the test's directory), with
# run.replay_mb 64 (failover on) and 2,500 events/s (the one survivor's
# af_packet ring takes it all while sfc1 is away, as in netns_failover):
# 1. `up`; once ro0 generated 10,000 events, `restart sfc1`: "sfc1
#    restarted (killed T s after its freeze, once every readout declared
#    it dead) into run 1, rejoins at event J" (the freeze and SIGKILL go to
#    its host over ssh);
# 2. every readout passes J (at least 65,536 ids ahead: 26 s at this rate,
#    most of the test's time); the new sfc1 builds: its events.complete grow
#    from one look to the next a second later, and it built at least 1,000
#    events (about 0.8 s of its half share);
# 3. `stop --json`: exit 0; the ledger closed (unaccounted 0, the id
#    records matching), generated = accepted + rejected, lost 0 and no
#    loss by any reason; no SFC gone at the end, one failed over and
#    restarted, something replayed, redecided <= replayed; the failover view:
#    both SFCs live with half the share each;
# 4. `down`: no namespace, sshd or DPDK runtime directory of the farm left.
# Usage: test-netns-sfc_restart.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

from farmrig import (Rig, check, counter, namespaces, netns_leftovers, procs_naming,
                     wait_events)

RATE = 2500


def farm_text(src, tag):
    """farms/netns.yaml with its namespaces TAG-<process>, keys in the
    test's directory, failover on at RATE events/s."""
    text = open(os.path.join(src, "farms", "netns.yaml")).read()
    text = re.sub(r"netns: netns-", "netns: %s-" % tag, text)
    text = text.replace("keys: netns-keys\n", "keys: @TMP@/keys\n")
    text = text.replace("  rate: 5000\n", "  rate: %d\n  replay_mb: 64\n" % RATE)
    check("replay_mb: 64" in text and "@TMP@/keys" in text, "farms/netns.yaml changed shape")
    return text


def restart_sfc1(rig):
    p = rig.ebfarm("restart", "sfc1", "--farm", rig.name, timeout=240)
    m = re.match(r"sfc1 restarted \(killed [0-9.]+ s after its freeze, once every readout "
                 r"declared it dead\) into run 1, rejoins at event (\d+), [0-9.]+ s\n$", p.stdout)
    check(p.returncode == 0 and m, "restart sfc1: %r" % p.stdout)
    return int(m.group(1))


def builds_again(rig, join):
    """Every readout passes JOIN; then sfc1's events.complete grows."""
    t0 = time.time()
    while True:
        last = {x["name"]: (x.get("counters") or {}).get("last_event", 0)
                for x in rig.status()["processes"] if x["name"].startswith("ro")}
        if len(last) == 4 and min(last.values()) > join:
            break
        check(time.time() - t0 < 120, "the readouts did not pass event %d within 120 s: %r"
              % (join, last))
        time.sleep(1)
    a = counter(rig, "sfc1", "events.complete")
    time.sleep(1)
    b = counter(rig, "sfc1", "events.complete")
    print("sfc1 after its join at %d: events.complete %d, then %d a second later" % (join, a, b))
    check(b > a, "sfc1 built nothing after its join (events.complete %d, then %d)" % (a, b))
    check(b >= 1000, "sfc1 built %d events after its join, fewer than 1000" % b)


def stop(rig):
    """`stop --json`, parsed; on a failed stop, status and the logs' last
    lines first (what did not stop)."""
    p = subprocess.run([rig.exe, "stop", "--json", "--farm", rig.name], env=rig.env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    if p.returncode != 0:
        rig.ebfarm("status", "--farm", rig.name)
        for log in sorted(glob.glob(os.path.join(rig.run, "*", "*.log"))):
            print("--- %s\n%s" % (log, "".join(open(log, errors="replace").readlines()[-15:])))
    check(p.returncode == 0, "stop: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    j = json.loads(p.stdout)
    print("$ ebfarm stop --json: ledger %s" % json.dumps(j["ledger"], sort_keys=True))
    return j


def stopped(rig):
    j = stop(rig)
    led = j["ledger"]
    check(led["closed"] and led["unaccounted"] == 0 and led["ids_match"], "ledger not closed")
    check(led["generated"] == led["accepted"] + led["rejected"],
          "generated %d != accepted %d + rejected %d"
          % (led["generated"], led["accepted"], led["rejected"]))
    check(led["lost_total"] == 0 and led["lost"] == {}, "lost %d: %r"
          % (led["lost_total"], led["lost"]))
    g = led.get("sfc_gone") or {}
    check((g.get("sfcs"), g.get("failover"), g.get("sfcs_restarted")) == (0, True, 1),
          "sfc_gone (no SFC gone, 1 restarted, failed over): %r" % g)
    check(g["replayed"] > 0 and g["redecided"] <= g["replayed"],
          "replayed %d, redecided %d" % (g["replayed"], g["redecided"]))
    states = [(s["name"], s["state"], s["share"]) for s in j["failover"]["sfcs"]]
    check(states == [("sfc0", "live", 0.5), ("sfc1", "live", 0.5)], "failover view: %r" % states)
    print("netns farm: generated %d, replayed %d, redecided %d, incomplete %d; closed, lost 0"
          % (led["generated"], g["replayed"], g["redecided"], led["incomplete"]))


def main():
    t0 = time.time()
    tag = "ebd%d" % os.getpid()
    before = namespaces()
    rig = Rig("nssfcrst", "netns.yaml", text=farm_text(sys.argv[1], tag))
    try:
        keys = rig.ebfarm("keygen", os.path.join(rig.tmp, "keys"))
        check(keys.returncode == 0, "keygen")
        check(rig.ebfarm("up", rig.path, timeout=300).returncode == 0, "up")
        wait_events(rig, "ro0", 10000)
        builds_again(rig, restart_sfc1(rig))
        stopped(rig)
        check(rig.ebfarm("down", "--farm", rig.name, timeout=300).returncode == 0, "down")
        ns, dpdk, ssh = netns_leftovers(before, os.getpid())
        check(not ns and not dpdk and not ssh,
              "left behind: namespaces %r, runtime dirs %r, sshd %r" % (ns, dpdk, ssh))
        rig.nothing_running()
    finally:
        rig.cleanup()
        for pid in procs_naming(rig.tmp):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    print("passed in %.0f s" % (time.time() - t0))


main()
