#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-store.py - a farm with storage on: every file verified, the stored ids exactly the accepted ones, bytes the readout's pattern, the Python reader agreeing with `ebfarm events stats`, a cut file read to its last whole record.
#
# `ebfarm demo --store DIR` over 2 nodes, source 3 silent from event 6000
# (incomplete events), fragments of 100..3000 B, files rotated at 1 MiB.
# Checked exactly: the ledger closes with stored == accepted and the
# storage balanced; `ebfarm events verify --pattern` passes every file
# (every record's CRC32C, fragments, trailer, index, and every byte against
# the readout's pattern); `events dump --ids` over all files is exactly the
# ids the emulated trigger accepts (recomputed here from node_decide), each
# once; every node's files are numbered 0, 1, 2 ... with no gap; the Python
# reader's stats JSON equals `events stats --json` and its ids equal the
# dump; a file cut inside a record is reported cut short after exactly its
# whole records by both readers.
#
# Then a full disk: a 4 MiB tmpfs this test mounts (and unmounts on every
# path), nodes with 1 MiB of blocks writing at most 1 MB/s: they withhold
# credits (store.waits and store.backpressure_ns above 0), the disk fills,
# every node goes to ERROR with the file's path and ENOSPC in its log, and
# the ledger still closes: accepted == stored + lost, every loss under
# store_failed, and the files hold exactly the stored events, each one an
# accepted id with the readout's bytes.
#
# Then 2 SFCs of 2 nodes each (node ids 0 and 1 at both) storing into one
# directory: exactly the 4 files run000001-sfc0S-node0N-s0-000000.ebfev,
# SFC S's holding exactly the accepted ids e with e % 2 == S, every
# accepted id stored once, both readers agreeing.
#
# And streams: a plug-in (stream-plugin.so) that accepts every 4th event
# into 3 streams, and event 400 into stream 200: one series of files per
# stream, each file holding exactly its stream's ids, the ledger balanced
# per stream with the one loss under store_bad_stream.
# Usage: test-store.py SOURCE_DIR BUILD_DIR STREAM_PLUGIN.so. Exit 0 passed, 1 failed.
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

EVENTS = 12000
SILENT_FROM = 6000


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def mix64(x):
    m = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def accepted_ids(n, seed=0, accept=0.1):
    s = mix64(seed)
    return [i for i in range(n) if mix64(i ^ s) % 1000000 < accept * 1e6]


def run(cmd, want_rc=0):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if want_rc is not None and p.returncode != want_rc:
        fail("%s: exit %d (want %d)\nstdout: %s\nstderr: %s"
             % (" ".join(cmd), p.returncode, want_rc, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def main(src, build, stream_so):
    sys.path.insert(0, os.path.join(src, "python"))
    import ebfarm_events as ev

    ebfarm = os.path.join(build, "tools", "ebfarm")
    d = tempfile.mkdtemp(prefix="ebftest-store-")
    try:
        out = run([ebfarm, "demo", "--store", d, "--store-max-file-mb", "1", "--events",
                   str(EVENTS), "--frag-min", "100", "--frag-max", "3000", "--silence",
                   "3@%d" % SILENT_FROM, "--json"]).stdout
        led = json.loads(out)["ledger"]
        want = accepted_ids(EVENTS)
        if not led["closed"] or led["accepted"] != len(want) or led["stored"] != len(want):
            fail("ledger: closed %s accepted %d stored %s, want %d"
                 % (led["closed"], led["accepted"], led["stored"], len(want)))
        st = led["store"]
        if (st["lost_total"], st["lost"], st["balanced"], st["by_stream"]) != (
                0, {}, True, {"0": {"accepted": len(want), "stored": len(want), "lost": 0}}):
            fail("ledger.store: %r" % st)
        files = sorted(os.path.join(d, f) for f in os.listdir(d))
        if len(files) != st["files"] or len(files) < 4:
            fail("%d files, the ledger says %d (want at least 4: rotation at 1 MiB)"
                 % (len(files), st["files"]))
        for node in (0, 1):
            seqs = sorted(int(m.group(1)) for m in (re.search(
                r"run000001-sfc00-node%02d-s0-(\d{6})\.ebfev$" % node, f) for f in files) if m)
            if not seqs or seqs != list(range(len(seqs))):
                fail("node %d files numbered %r" % (node, seqs))
        v = run([ebfarm, "events", "verify", "--pattern"] + files).stdout
        oks = [l for l in v.splitlines() if re.search(r": ok: run 1 node [01] stream 0 file \d+, "
                                                        r"\d+ events$", l)]
        total = "files %d: %d ok, 0 bad; events %d" % (len(files), len(files), len(want))
        if len(oks) != len(files) or v.splitlines()[len(files):] != [total]:
            fail("verify:\n" + v)
        ids = [int(x) for x in run([ebfarm, "events", "dump", "--ids"] + files).stdout.split()]
        if sorted(ids) != want:
            fail("stored ids differ from the accepted ones: %d stored, %d accepted, first "
                 "differences %r" % (len(ids), len(want), sorted(set(ids) ^ set(want))[:10]))
        c_stats = json.loads(run([ebfarm, "events", "stats", "--json"] + files).stdout)
        py_stats = ev.stats(files)
        if c_stats != py_stats:
            fail("python stats differ:\n%r\n%r" % (c_stats, py_stats))
        incomplete = sum(1 for i in want if i >= SILENT_FROM)
        if c_stats["events"] != len(want) or c_stats["incomplete"] != incomplete or \
                c_stats["sources"]["3"]["missing"] != incomplete:
            fail("stats: %r (want %d events, %d incomplete)" % (c_stats, len(want), incomplete))
        py_ids = sorted(e.event_id for e in ev.read_events(files))
        if py_ids != want:
            fail("python reader ids differ")
        check_cut(ebfarm, ev, files[0], d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("ok: %d events accepted, stored, verified in %d files" % (len(want), len(files)))
    check_two_sfcs(ebfarm, ev)
    check_streams(ebfarm, stream_so)
    check_full_disk(ebfarm)
    return 0


def check_streams(ebfarm, so):
    n, every, streams, bad = 6000, 4, 3, 400
    d = tempfile.mkdtemp(prefix="ebftest-streams-")
    try:
        out = run([ebfarm, "demo", "--trigger", so, "--trigger-param", "bad_stream_at=%d" % bad,
                   "--store", d, "--events", str(n), "--frag-size", "256", "--json"]).stdout
        led = json.loads(out)["ledger"]
        ids = {s: [i for i in range(0, n, every) if i // every % streams == s and i != bad]
               for s in range(streams)}
        by = {str(s): {"accepted": len(v), "stored": len(v), "lost": 0} for s, v in ids.items()}
        st = led["store"]
        if not led["closed"] or led["accepted"] != n // every or led["stored"] != n // every - 1 \
                or st["lost"] != {"store_bad_stream": 1} or st["by_stream"] != by \
                or not st["balanced"]:
            fail("streams: ledger %r" % led)
        for s in range(streams):
            files = sorted(os.path.join(d, f) for f in os.listdir(d)
                           if re.search(r"-s%d-\d{6}\.ebfev$" % s, f))
            if len(files) != 2:
                fail("stream %d: files %r (want one per node)" % (s, files))
            run([ebfarm, "events", "verify", "--pattern"] + files)
            got = sorted(int(x) for x in run([ebfarm, "events", "dump", "--ids"] + files)
                         .stdout.split())
            if got != ids[s]:
                fail("stream %d: stored ids differ from those the plug-in sent there" % s)
        allf = sorted(os.path.join(d, f) for f in os.listdir(d))
        c = json.loads(run([ebfarm, "events", "stats", "--json"] + allf).stdout)
        if c["streams"] != {str(s): len(v) for s, v in ids.items()}:
            fail("streams: stats %r" % c["streams"])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("ok: streams: %s" % ", ".join("%d: %d" % (s, len(v)) for s, v in ids.items()))


TWO_EVENTS = 12000


def check_two_sfcs(ebfarm, ev):
    """2 SFCs of 2 nodes each storing into one directory: node ids 0 and 1
    at both SFCs, files told apart by the SFC in their names."""
    d = tempfile.mkdtemp(prefix="ebftest-2sfc-")
    try:
        out = run([ebfarm, "demo", "--sfcs", "2", "--nodes", "4", "--store", d, "--events",
                   str(TWO_EVENTS), "--frag-size", "256", "--json"]).stdout
        led = json.loads(out)["ledger"]
        want = accepted_ids(TWO_EVENTS)
        st = led["store"]
        if not led["closed"] or led["accepted"] != len(want) or led["stored"] != len(want) \
                or st["lost_total"] != 0 or not st["balanced"] or st["files"] != 4:
            fail("2 SFCs: ledger closed %s accepted %d stored %s, want %d; store %r"
                 % (led["closed"], led["accepted"], led["stored"], len(want), st))
        names = sorted(os.listdir(d))
        want_names = ["run000001-sfc%02d-node%02d-s0-000000.ebfev" % (k, n)
                      for k in (0, 1) for n in (0, 1)]
        if names != want_names:
            fail("2 SFCs: files %r, want %r" % (names, want_names))
        files = [os.path.join(d, f) for f in names]
        v = run([ebfarm, "events", "verify", "--pattern"] + files).stdout
        if v.splitlines()[-1] != "files 4: 4 ok, 0 bad; events %d" % len(want):
            fail("2 SFCs: verify:\n" + v)
        for k in (0, 1):
            got = sorted(int(x) for x in run([ebfarm, "events", "dump", "--ids"] +
                                             files[2 * k:2 * k + 2]).stdout.split())
            if got != [i for i in want if i % 2 == k]:
                fail("2 SFCs: SFC %d's files do not hold exactly its accepted ids (e %% 2 == %d)"
                     % (k, k))
        ids = [int(x) for x in run([ebfarm, "events", "dump", "--ids"] + files).stdout.split()]
        if sorted(ids) != want:
            fail("2 SFCs: stored ids are not each accepted id once: %d stored, %d accepted"
                 % (len(ids), len(want)))
        c = json.loads(run([ebfarm, "events", "stats", "--json"] + files).stdout)
        if c != ev.stats(files) or c["events"] != len(want) or \
                c["distinct_events"] != len(want) or c["dropped_copies"] != 0:
            fail("2 SFCs: stats %r, python %r" % (c, ev.stats(files)))
        if sorted(e.event_id for e in ev.unique_events(files)) != want:
            fail("2 SFCs: the python reader's unique events differ")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("ok: 2 SFCs: %d accepted ids stored once each in %s" % (len(want), ", ".join(names)))


FULL_EVENTS = 40000


def check_full_disk(ebfarm):
    d = tempfile.mkdtemp(prefix="ebftest-full-")
    run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", d])
    keep = None
    try:
        p = run([ebfarm, "demo", "--store", d, "--store-buffer-mb", "1", "--store-max-mbs", "1",
                 "--events", str(FULL_EVENTS), "--keep", "--json"])
        m = re.search(r"kept in (\S+)", p.stderr)
        keep = m.group(1) if m else None
        led = json.loads(p.stdout)["ledger"]
        st = led["store"]
        want = accepted_ids(FULL_EVENTS)
        if not led["closed"] or led["accepted"] != len(want) or not st["balanced"]:
            fail("full disk: ledger closed %s accepted %d store %r" % (led["closed"],
                                                                       led["accepted"], st))
        if st["accepted"] != len(want) or st["stored"] + st["lost_total"] != len(want) or \
                list(st["lost"]) != ["store_failed"] or st["lost_total"] == 0:
            fail("full disk: accepted %d = stored %d + lost %r?" % (len(want), st["stored"],
                                                                     st["lost"]))
        if st["failed_nodes"] != 2 or st["waits"] == 0 or st["backpressure_ns"] == 0:
            fail("full disk: no back-pressure before the ERROR, or a node did not fail: %r" % st)
        files = sorted(os.path.join(d, f) for f in os.listdir(d))
        s = json.loads(run([ebfarm, "events", "stats", "--json"] + files, want_rc=1).stdout)
        if s["events"] != st["stored"] or s["damaged"] != 0 or s["cut_short"] != len(files):
            fail("full disk: the files hold %r, the ledger stored %d" % (s, st["stored"]))
        ids = [int(x) for x in run([ebfarm, "events", "dump", "--ids"] + files,
                                   want_rc=1).stdout.split()]
        if len(ids) != len(set(ids)) or not set(ids) <= set(want):
            fail("full disk: stored ids are not distinct accepted ids")
        v = run([ebfarm, "events", "verify", "--pattern"] + files, want_rc=1).stdout
        total = "files %d: 0 ok, %d bad; events %d" % (len(files), len(files), st["stored"])
        if v.splitlines()[-1] != total:
            fail("full disk: verify ends %r, want %r" % (v.splitlines()[-1], total))
        for line in v.splitlines()[:-1]:
            if not (line.endswith(": no trailer: the file was cut short") or
                    re.search(r": BAD: run 1 node [01] stream 0 file 0, \d+ events$", line)):
                fail("full disk: verify says %r" % line)
        for node in (0, 1):
            with open(os.path.join(keep, "node%d.log" % node)) as f:
                log = f.read()
            want_err = ("storage: write %s/run000001-sfc00-node%02d-s0-000000.ebfev: No space left on "
                        "device (errno 28)" % (d, node))
            if want_err not in log:
                fail("full disk: node%d's log lacks %r" % (node, want_err))
    finally:
        subprocess.run(["umount", d])
        os.rmdir(d)
        if keep:
            shutil.rmtree(keep, ignore_errors=True)
    print("ok: full disk: %d accepted = %d stored + %d store_failed, %.3f s of back-pressure"
          % (len(want), st["stored"], st["lost_total"], st["backpressure_ns"] / 1e9))


def check_cut(ebfarm, ev, path, d):
    """Cut a copy of path inside its third record: 2 whole records, reported by both readers."""
    f = ev.EventFile(path)
    off3 = f.index[2][1]
    cut = os.path.join(d, "cut.ebfev")
    with open(path, "rb") as a, open(cut, "wb") as b:
        b.write(a.read(off3 + 50))
    p = run([ebfarm, "events", "verify", cut], want_rc=1)
    want = ("%s: cut short after 2 whole records: 50 bytes at offset %d are not a whole record"
            % (cut, off3))
    lines = p.stdout.splitlines()
    if len(lines) != 3 or not lines[0].startswith(want) or \
            not lines[1].endswith(", 2 events (cut short)") or \
            lines[2] != "files 1: 0 ok, 1 bad; events 2":
        fail("verify of a cut file:\n%s\nwant it to start with %s" % (p.stdout, want))
    s = json.loads(run([ebfarm, "events", "stats", "--json", cut], want_rc=1).stdout)
    if (s["events"], s["cut_short"], s["whole"]) != (2, 1, 0):
        fail("stats of a cut file: %r" % s)
    g = ev.EventFile(cut)
    got = [e.event_id for e in g]
    if got != [f.index[0][0], f.index[1][0]] or not g.truncated or g.complete:
        fail("python reader on a cut file: %r truncated %s" % (got, g.truncated))
    if ev.stats([cut]) != s:
        fail("python stats of a cut file differ: %r %r" % (ev.stats([cut]), s))
    os.unlink(cut)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.stderr.write("usage: test-store.py SOURCE_DIR BUILD_DIR STREAM_PLUGIN.so\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
