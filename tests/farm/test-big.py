#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-big.py - events of many frames through a whole farm: 1.5 MB events at MTU 1500 and 10 MB events at 9000 built, sent over many polls, held whole at the nodes, accepted, stored and verified byte for byte.
#
# `ebfarm demo --sources 1` with fixed fragments of 1,500,000 B at MTU 1500
# (1,066 frames an event, more than the 1,023 a node port's queue takes)
# and of 10,000,000 B at MTU 9000 (1,127 frames; the nodes are given the
# run's largest event as --max-event, so their pools and storage blocks
# hold one), every event accepted and stored.
# Checked exactly: the ledger closes with every event accepted, none
# incomplete, none lost, every one stored; the storage holds exactly
# events * (size + 52) bytes (one fragment a record); no node rejected an
# event as view_overflow; `ebfarm events verify --pattern` passes every
# file (each byte against the readout's pattern) and `events stats` counts
# every event with its one source whole.
# Usage: test-big.py BUILD_DIR. Exit 0 passed, 1 failed.
import json
import os
import shutil
import subprocess
import sys
import tempfile

REC_OVERHEAD = 52                # a record of one fragment: 44 B of record, 8 of fragment


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail("%s: exit %d\nstdout: %s\nstderr: %s"
             % (" ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def check(ebfarm, mtu, size, events, extra):
    d = tempfile.mkdtemp(prefix="ebftest-big-")
    try:
        # A timeout an event of many frames arrives within on a loaded machine.
        out = run([ebfarm, "demo", "--sources", "1", "--mtu", str(mtu), "--frag-size", str(size),
                   "--events", str(events), "--accept", "1", "--timeout-ms", "5000",
                   "--store", d, "--json"] + extra).stdout
        j = json.loads(out)
        led = j["ledger"]
        got = (led["closed"], led["generated"], led["accepted"], led["incomplete"],
               led["lost_total"], led["stored"])
        if got != (True, events, events, 0, 0, events):
            fail("MTU %d, %d B: ledger (closed, generated, accepted, incomplete, lost, stored) "
                 "%r, want %r" % (mtu, size, got, (True, events, events, 0, 0, events)))
        st = led["store"]
        if st["bytes"] != events * (size + REC_OVERHEAD) or not st["balanced"]:
            fail("MTU %d: store %r (want %d bytes)" % (mtu, st, events * (size + REC_OVERHEAD)))
        for n in j["nodes"]:
            if n["trigger_fail"].get("view_overflow", 0) != 0 or n["events_bad"] != 0:
                fail("MTU %d: node %s: %r" % (mtu, n["name"], n))
        files = sorted(os.path.join(d, f) for f in os.listdir(d))
        v = run([ebfarm, "events", "verify", "--pattern"] + files).stdout.splitlines()
        total = "files %d: %d ok, 0 bad; events %d" % (len(files), len(files), events)
        if v[-1] != total:
            fail("MTU %d: verify: %r" % (mtu, v))
        s = json.loads(run([ebfarm, "events", "stats", "--json"] + files).stdout)
        if s["events"] != events or s["incomplete"] != 0:
            fail("MTU %d: stats %r" % (mtu, s))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("ok: MTU %d: %d events of %d B built, held, stored and verified" % (mtu, events, size))


def main(build):
    ebfarm = os.path.join(build, "tools", "ebfarm")
    check(ebfarm, 1500, 1500000, 30, [])
    check(ebfarm, 9000, 10000000, 8, [])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
