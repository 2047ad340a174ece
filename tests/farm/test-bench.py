#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-bench.py - `ebfarm bench --quick --json`: the schema of its one JSON object, every ratio a positive finite number, nothing left behind.
#
# No timing assertion: the figures depend on the machine and its load.
# Checked exactly: the metadata keys and their types, the frame size of a
# 1024-byte fragment (1078 B), the results by name, unit and reference in
# their order (the last: an SFC of 2 workers against one), 5 pairs each,
# median within min-max, sfc_cycles' frames per busy poll (the SFC's
# positive, testpmd's 0 or more), each result's exact key set (sfc_cycles
# with its link split: the SFC's receive and transmit copies, its own part,
# the like-for-like and own ratios positive, each below the whole), the three capacity sweeps (fragment sizes, sources,
# workers 1 and 2: their points and MTUs, 8000 B twice, in 1500- and in
# 9000-byte frames; each figure positive, one SVG each), and
# after the run no DPDK runtime directory of the bench's runs and no
# scratch directory (its own: other benches may run at the same time).
# Also: a bad option exits 2 with its message and runs nothing; the latency
# case, left out of --quick, run on its own (--quick --only latency): its
# two results, "pinned" a boolean, and when it is false a note in the
# result and in meta.notes.
# Usage: test-bench.py BUILD_DIR. Exit 0 passed, 1 failed.
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

RESULTS = [  # name, unit, reference
    ("readout_tx", "frames/s", "testpmd_txonly"),
    ("node_verify", "bytes/s", "crc32c"),
    ("sfc_cycles", "cycles/frame", "testpmd_io"),
    ("sfc_capacity", "frames/s", "crc32c_pass"),
    ("sfc_sampled", "frames/s", "header_forward"),
    ("sfc_workers", "frames/s", "one_worker"),
]
SWEEPS = [  # name, x, the fixed parameter and its value, the points' x
    ("sfc_frag_size", "frag_size", "sources", 8, [64, 256, 1024, 4096, 8000, 8000]),
    ("sfc_sources", "sources", "frag_size", 1024, [1, 2, 8, 32, 128]),
    ("sfc_workers", "workers", "frag_size", 1024, [1, 2]),
]
META = {"cpu_model": str, "cpu_mhz": (int, float), "cpus": int, "dpdk_version": str,
        "driver": str, "frame_size": int, "frag_size": int, "pairs": int, "quick": bool,
        "date": str}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def positive(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def runtime_dirs(pid):
    """The DPDK runtime directories of the runs of the bench with this pid
    (ebfbench<pid>-<n>): other benches may run on the machine at the same
    time."""
    pat = "ebfbench%d-*" % pid
    return set(glob.glob("/var/run/dpdk/" + pat)) | set(glob.glob("/tmp/dpdk/" + pat))


def scratch_of(pid, before):
    """The scratch directories made since before that hold a file of the
    bench with this pid, or nothing (another bench's hold its own)."""
    mine = []
    for d in set(glob.glob("/tmp/ebfarm-bench.*")) - before:
        names = os.listdir(d) if os.path.isdir(d) else []
        if not names or any(n.startswith("ebfbench%d-" % pid) for n in names):
            mine.append(d)
    return mine


def run_bench(args, timeout):
    """ebfarm bench args: (returncode, stdout, stderr); fails on leftovers."""
    scratch = set(glob.glob("/tmp/ebfarm-bench.*"))
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=timeout)
    sys.stderr.write(err)
    if runtime_dirs(p.pid):
        fail("DPDK runtime directories left behind: %r" % sorted(runtime_dirs(p.pid)))
    if scratch_of(p.pid, scratch):
        fail("scratch directory left behind: %r" % scratch_of(p.pid, scratch))
    return p.returncode, out


def check_meta(m):
    for k, t in META.items():
        if not isinstance(m.get(k), t):
            fail("meta.%s is %r, not a %s" % (k, m.get(k), t))
    if m["driver"] != "net_null, net_memif (sfc_cycles, latency), net_ring (sfc_capacity)" or m["frame_size"] != 1078 or m["frag_size"] != 1024:
        fail("meta driver/frame/frag: %r" % m)
    if m["pairs"] != 5 or m["quick"] is not True or not m["date"].endswith("Z"):
        fail("meta pairs/quick/date: %r" % m)
    if not m["dpdk_version"].startswith("22.11"):
        fail("meta.dpdk_version %r" % m["dpdk_version"])


def check_result(r, want):
    name, unit, ref = want
    for k in ("name", "value", "unit", "reference", "reference_value", "ratio"):
        if k not in r:
            fail("result %s lacks %s" % (name, k))
    if (r["name"], r["unit"], r["reference"]) != want:
        fail("result %r, expected %r" % ((r["name"], r["unit"], r["reference"]), want))
    if r["pairs"] != 5:
        fail("%s: %r pairs" % (name, r["pairs"]))
    for k in ("value", "reference_value", "ratio"):
        lo, mid, hi = r[k + "_min"], r[k], r[k + "_max"]
        if not (positive(lo) and positive(mid) and positive(hi)):
            fail("%s: %s %r [%r-%r] is not a positive finite number" % (name, k, mid, lo, hi))
        if not lo <= mid <= hi:
            fail("%s: %s median %r outside [%r, %r]" % (name, k, mid, lo, hi))


BASE_KEYS = {"name", "value", "unit", "reference", "reference_value", "ratio", "pairs",
             "value_min", "value_max", "reference_value_min", "reference_value_max",
             "ratio_min", "ratio_max"}
LINK_KEYS = {"link_cycles_per_frame", "link_rx_cycles_per_frame", "link_tx_cycles_per_frame",
             "own_cycles_per_frame", "like_for_like_ratio", "like_for_like_ratio_min",
             "like_for_like_ratio_max", "own_ratio", "own_ratio_min", "own_ratio_max"}
CYCLES_KEYS = BASE_KEYS | LINK_KEYS | {"pinned", "frames_per_busy_poll",
                                       "reference_frames_per_busy_poll"}


def check_keys(r, want):
    """r's keys are exactly want, and a "note" when it has one."""
    got = set(r) - {"note"}
    if got != want:
        fail("%s: keys %r, expected %r" % (r["name"], sorted(got), sorted(want)))


def check_link(cyc):
    """sfc_cycles' split: the SFC's receive and transmit copies and its own
    part each positive, the like-for-like and own ratios positive medians
    within their min-max, each part below the whole."""
    for k in ("link_cycles_per_frame", "link_rx_cycles_per_frame", "link_tx_cycles_per_frame",
              "own_cycles_per_frame"):
        if not positive(cyc[k]):
            fail("sfc_cycles: %s %r is not a positive finite number" % (k, cyc[k]))
    for k in ("like_for_like_ratio", "own_ratio"):
        lo, mid, hi = (cyc[k + s] for s in ("_min", "", "_max"))
        if not (positive(lo) and lo <= mid <= hi):
            fail("sfc_cycles: %s %r [%r-%r]" % (k, mid, lo, hi))
        if not hi <= cyc["ratio_max"]:
            fail("sfc_cycles: %s above the whole's ratio: %r" % (k, cyc))
    for k in ("link_cycles_per_frame", "own_cycles_per_frame"):
        if not cyc[k] < cyc["value_max"]:
            fail("sfc_cycles: %s is not part of the whole: %r" % (k, cyc))


LATENCY = [("latency_p50", "us", "idle_backoff"), ("latency_p99", "us", "idle_backoff")]


def check_latency(ebfarm):
    rc, out = run_bench([ebfarm, "bench", "--quick", "--only", "latency", "--json"], 240)
    if rc != 0:
        fail("ebfarm bench --quick --only latency --json exited %d" % rc)
    doc = json.loads(out)
    if sorted(doc) != ["meta", "results"]:
        fail("latency: top-level keys %r" % sorted(doc))
    res = doc["results"]
    if len(res) != 2:
        fail("latency: %d results, expected 2" % len(res))
    for r, w in zip(res, LATENCY):
        check_result(r, w)
        check_keys(r, BASE_KEYS | {"pinned"})
        if not isinstance(r.get("pinned"), bool):
            fail("%s: pinned is %r, not a boolean" % (r["name"], r.get("pinned")))
        if r["value_min"] < 1 or r["reference_value_min"] < 1:
            fail("%s: below 1 us: %r" % (r["name"], r))
    p50, p99 = res
    if p50["value"] > p99["value"] or p50["reference_value"] > p99["reference_value"]:
        fail("latency: p50 above p99: %r %r" % (p50, p99))
    cpus = doc["meta"]["cpus"]
    if p99["pinned"] != (cpus >= 4):
        fail("latency: pinned %r on %d CPUs" % (p99["pinned"], cpus))
    if not p99["pinned"]:
        note = "%d CPUs, 4 needed: only " % cpus
        if not p99.get("note", "").startswith(note):
            fail("latency: note %r, expected it to start %r" % (p99.get("note"), note))
        if doc["meta"].get("notes") != ["latency_p50: " + p50["note"],
                                        "latency_p99: " + p99["note"]]:
            fail("latency: meta.notes %r" % doc["meta"].get("notes"))
    return res


def check_sweeps(sweeps):
    if len(sweeps) != len(SWEEPS):
        fail("%d sweeps, expected %d" % (len(sweeps), len(SWEEPS)))
    for s, (name, x, fixed, fixed_v, xs) in zip(sweeps, SWEEPS):
        if (s["name"], s["x"], s.get(fixed)) != (name, x, fixed_v):
            fail("sweep %r, expected %r" % ((s["name"], s["x"], s.get(fixed)), (name, x, fixed_v)))
        if [p["x"] for p in s["points"]] != xs:
            fail("sweep %s: points at %r" % (name, [p["x"] for p in s["points"]]))
        for p in s["points"]:
            for k in ("frames_per_busy_s", "payload_gbit_per_busy_s", "cycles_per_frame",
                      "frames_per_wall_s"):
                if not positive(p[k]):
                    fail("sweep %s x=%r: %s %r is not a positive finite number" % (name, p["x"], k, p[k]))
        mtus = [p["mtu"] for p in s["points"]]
        if mtus != [1500] * (len(xs) - 1) + [9000 if name == "sfc_frag_size" else 1500]:
            fail("sweep %s: MTUs %r (the last fragment-size point is jumbo)" % (name, mtus))


def check_svgs(d):
    for name, _, _, _, xs in SWEEPS:
        path = os.path.join(d, name + ".svg")
        text = open(path).read()
        if not text.startswith("<svg ") or not text.endswith("</svg>\n") or text.count("<circle ") != 2 * len(xs):
            fail("%s is not the sweep's figure (two panels of %d points)" % (path, len(xs)))


def main():
    ebfarm = os.path.join(sys.argv[1], "tools", "ebfarm")
    p = subprocess.run([ebfarm, "bench", "--pairs", "4"], capture_output=True, text=True)
    want = "ebfarm bench: option '--pairs': '4' is not an integer in 5..100\n"
    if p.returncode != 2 or p.stderr != want or p.stdout:
        fail("bad option: rc %d, stderr %r" % (p.returncode, p.stderr))
    svg = tempfile.mkdtemp(prefix="test-bench-svg.")
    rc, out = run_bench([ebfarm, "bench", "--quick", "--json", "--svg", svg], 180)
    if rc != 0:
        fail("ebfarm bench --quick --json exited %d" % rc)
    lines = out.splitlines()
    if len(lines) != 1:
        fail("expected one line of JSON, got %d" % len(lines))
    doc = json.loads(lines[0])
    if sorted(doc) != ["meta", "results", "sweeps"]:
        fail("top-level keys %r" % sorted(doc))
    check_meta(doc["meta"])
    if len(doc["results"]) != len(RESULTS):
        fail("%d results, expected %d" % (len(doc["results"]), len(RESULTS)))
    for i, (r, w) in enumerate(zip(doc["results"], RESULTS)):
        check_result(r, w)
        check_keys(r, CYCLES_KEYS if i == 2 else BASE_KEYS)
    cyc = doc["results"][2]
    check_link(cyc)
    if cyc.get("pinned") is not (doc["meta"]["cpus"] >= 2):
        fail("sfc_cycles: pinned %r on %d CPUs" % (cyc.get("pinned"), doc["meta"]["cpus"]))
    if any("pinned" in r for i, r in enumerate(doc["results"]) if i != 2):
        fail("a result other than sfc_cycles has pinned: %r" % doc["results"])
    # Burst occupancy: the SFC's always, testpmd's 0 when its burst
    # statistics were too coarse to tell; no other result has it.
    ref_poll = cyc.get("reference_frames_per_busy_poll")
    if not positive(cyc.get("frames_per_busy_poll")) or not (
            isinstance(ref_poll, (int, float)) and math.isfinite(ref_poll) and ref_poll >= 0):
        fail("sfc_cycles: frames per busy poll %r, reference %r" % (
            cyc.get("frames_per_busy_poll"), ref_poll))
    if any("frames_per_busy_poll" in r for i, r in enumerate(doc["results"]) if i != 2):
        fail("a result other than sfc_cycles has frames_per_busy_poll: %r" % doc["results"])
    check_sweeps(doc["sweeps"])
    check_svgs(svg)
    shutil.rmtree(svg)
    lat = check_latency(ebfarm)
    for r in doc["results"] + lat:
        print("%s %.4g %s, %s %.4g, ratio %.3f" % (r["name"], r["value"], r["unit"],
                                                  r["reference"], r["reference_value"],
                                                  r["ratio"]))
    print("PASS")


main()
