#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-store-copies.py - an event stored twice after an SFC's death: `ebfarm events verify|stats` and the Python reader keep each id once, drop the replayed copy and say so, and report a copy stored twice unmarked.
#
# Two nodes' files written by docs/storage.md's rules: node 1 (the dead
# SFC's) stored 1, 3 and 5 before the death; node 0 (a survivor's) stored
# 0, 2, 4, and 5 and 7 built from replayed pieces (record flag 0x0002).
# verify: exit 0, "replayed 2 records; events 6 once each: 1 replayed
# copies dropped" before the files line; stats --json equal in C and
# Python; unique_events yields 0, 1, 2, 3, 4, 5, 7 once, 5 from node 1.
# A third file with 3 again, unmarked: verify exits 1 naming event 3.
import json
import os
import struct
import subprocess
import sys
import tempfile


def fail(msg):
    sys.stderr.write("FAIL: %s\n" % msg)
    sys.exit(1)


def record(ev, eid, flags, n_sources=2, frag=b"\x11" * 16):
    """One record: both sources present, each fragment frag."""
    body = b""
    for s in range(n_sources):
        body += struct.pack("<HHI", s, 0, len(frag)) + frag
    length = 40 + len(body) + 4
    head = struct.pack("<IIQHHHHQQ", 0x43525645, length, eid, flags, n_sources, n_sources, 0,
                       (1 << n_sources) - 1, 0)
    rec = head + body
    return rec + struct.pack("<I", ev.crc32c(rec))


def write_file(ev, path, node, records):
    """A whole file: header, records, trailer with its index."""
    hdr = struct.pack("<8sHHIHHIQ44s", b"EBFARMEV", 1, 80, 7, node, 0, 0, 0, b"copies")
    hdr += struct.pack("<I", ev.crc32c(hdr))
    data, idx, off = b"", b"", 80
    for eid, flags in records:
        r = record(ev, eid, flags)
        idx += struct.pack("<QQ", eid, off)
        data += r
        off += len(r)
    trl = struct.pack("<IIQQ", 0x52545645, 0, len(records), len(data)) + idx
    trl += struct.pack("<Q", off)
    trl += struct.pack("<I", ev.crc32c(trl)) + struct.pack("<I", 0x444E5645)
    with open(path, "wb") as f:
        f.write(hdr + data + trl)


def run(cmd, want_rc):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != want_rc:
        fail("%s: exit %d, want %d\n%s%s" % (" ".join(cmd), p.returncode, want_rc, p.stdout,
                                              p.stderr))
    return p.stdout


def main(src, ebfarm):
    sys.path.insert(0, os.path.join(src, "python"))
    import ebfarm_events as ev

    with tempfile.TemporaryDirectory() as d:
        dead = os.path.join(d, "run000007-sfc00-node01-s0-000000.ebfev")
        live = os.path.join(d, "run000007-sfc00-node00-s0-000000.ebfev")
        write_file(ev, dead, 1, [(1, 0), (3, 0), (5, 0)])
        write_file(ev, live, 0, [(0, 0), (2, 0), (4, 0), (5, 2), (7, 2)])
        files = [live, dead]
        out = run([ebfarm, "events", "verify"] + files, 0).splitlines()
        want = ["replayed 2 records; events 7 once each: 1 replayed copies dropped",
                "files 2: 2 ok, 0 bad; events 8"]
        if out[-2:] != want:
            fail("verify says %r, want %r" % (out[-2:], want))
        c = json.loads(run([ebfarm, "events", "stats", "--json"] + files, 0))
        py = ev.stats(files)
        if c != py:
            fail("stats differ:\n%r\n%r" % (c, py))
        got = {k: c[k] for k in ("events", "replayed", "distinct_events", "dropped_copies",
                                 "unmarked_copies")}
        if got != {"events": 8, "replayed": 2, "distinct_events": 7, "dropped_copies": 1,
                   "unmarked_copies": 0}:
            fail("stats: %r" % got)
        said = {}
        kept = [(e.event_id, e.replayed) for e in ev.unique_events(files, said=said)]
        if sorted(kept) != [(0, False), (1, False), (2, False), (3, False), (4, False),
                            (5, False), (7, True)]:
            fail("unique_events: %r" % kept)
        if said != {"dropped_copies": 1, "unmarked_copies": 0}:
            fail("unique_events said %r" % said)
        again = os.path.join(d, "run000007-sfc00-node02-s0-000000.ebfev")
        write_file(ev, again, 2, [(3, 0)])
        out = run([ebfarm, "events", "verify"] + files + [again], 1).splitlines()
        want = ("replayed 2 records; events 7 once each: 1 replayed copies dropped, 1 copies "
                "stored twice unmarked (first: event 3)")
        if out[-2] != want:
            fail("verify of an unmarked copy says %r, want %r" % (out[-2], want))
        py = ev.stats(files + [again])
        if py["unmarked_copies"] != 1 or py["dropped_copies"] != 1:
            fail("python stats of an unmarked copy: %r" % py)
        # no copy and nothing replayed: verify's output as before, no copies line
        out = run([ebfarm, "events", "verify", dead], 0).splitlines()
        if len(out) != 2 or not out[1].startswith("files 1: 1 ok"):
            fail("verify of one plain file says %r" % out)
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
