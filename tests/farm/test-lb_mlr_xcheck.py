#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test-lb_mlr_xcheck.py - ebfarm's MLRsearch against CSIT's (PyPI mlrsearch 1.2.1) on the same emulated device.

Both searches drive one trial function: ebfarm-loopback-emu, a device that
forwards at most CAPACITY frames/s and loses the rest (loopback/lb_emu.c).
ebfarm's search runs inside it (the sender probe, lb_mlr_probe, then
lb_mlr_search, as ebfarm-loopback --search mlr does); CSIT's Python package
drives it over a pipe (--serve) with the same max load (the one ebfarm's
probe left: the sender's reach less the tolerance when the sender cannot
offer MAX_FPS). For each case the two conditional throughputs of each goal
must agree within the goal's relative width (the precision both searches
stop at), each must bracket the known answer (or equal it when the max load
is a lower bound), and ebfarm must say what bounds it.

The package is installed from PyPI into a venv under the build directory
(never vendored); without network the test is skipped (exit 77).

By hand, on a real cable (not a test: the cable's answers vary from trial
to trial, more so on a shared machine):
    test-lb_mlr_xcheck.py --cable SIZE MAX_FPS PORT-ARGS...
runs `ebfarm-loopback PORT-ARGS --search mlr` and CSIT's search over
`ebfarm-loopback PORT-ARGS --trials-stdin`, one zero-loss goal each (1 s
trials, width 1 %), CSIT's with the max load of ebfarm's sender probe, and
prints both conditional throughputs.
"""
import json
import os
import subprocess
import sys
import venv

PACKAGE = "mlrsearch==1.2.1"
BUILD = os.environ.get("EBFARM_BUILD_DIR", os.path.join(os.path.dirname(__file__), "../../build"))
EMU = os.path.join(BUILD, "loopback", "ebfarm-loopback-emu")
VENV = os.path.join(BUILD, "mlrsearch-venv")
MIN_FPS, MAX_FPS = 1000.0, 1e6

# (name, capacity fps, sender limit fps or 0, goals, the known answer per
# goal, what bounds it per goal); the max load a sender limit leaves is
# limit * (1 - 0.01), the tolerance; the answer is then that max load
# goal: (loss ratio, exceed ratio, final duration s, duration sum s, width)
CASES = [
    ("zero loss", 612345, 0, [(0.0, 0.0, 1.0, 1.0, 0.005)], [612345], ["loss"]),
    ("two goals", 500000, 0, [(0.0, 0.0, 1.0, 1.0, 0.005), (0.1, 0.0, 1.0, 1.0, 0.005)],
     [500000, 500000 / 0.9], ["loss", "loss"]),
    ("exceed ratio and duration sum", 300000, 0, [(0.005, 0.5, 1.0, 3.0, 0.01)],
     [300000 / 0.995], ["loss"]),
    ("sender limit", 700000, 400000, [(0.0, 0.0, 1.0, 1.0, 0.005)], [396000], ["sender"]),
    ("sender limit above the device", 300000, 400000, [(0.0, 0.0, 1.0, 1.0, 0.005)],
     [300000], ["loss"]),
    ("device above the max load", 2000000, 0, [(0.0, 0.0, 1.0, 1.0, 0.005)], [MAX_FPS],
     ["max_load"]),
]


def ensure_venv():
    """The venv's python with the package, or exit 77 when it cannot be had."""
    py = os.path.join(VENV, "bin", "python3")
    if not os.path.exists(py):
        venv.create(VENV, with_pip=True)
    have = subprocess.run([py, "-c", "import importlib.metadata as m; "
                           "assert m.version('MLRsearch') == '1.2.1'"],
                          capture_output=True)
    if have.returncode != 0:
        pip = subprocess.run([py, "-m", "pip", "install", "--quiet", PACKAGE],
                             capture_output=True, text=True)
        if pip.returncode != 0:
            print(f"SKIP: cannot install {PACKAGE} from PyPI:\n{pip.stderr}")
            sys.exit(77)
    return py


def ebfarm_search(capacity, sender, goals):
    """ebfarm's conditional throughput per goal (lb_mlr_probe, lb_mlr_search),
    its trial count (not the probe) and the max load its search used."""
    args = [EMU, "--capacity", str(capacity), "--sender", str(sender),
            "--min", str(MIN_FPS), "--max", str(MAX_FPS)]
    for loss, exceed, dur, dsum, width in goals:
        args += ["--goal-loss", repr(loss), "--goal-exceed", repr(exceed),
                 "--goal-duration", repr(dur), "--goal-duration-sum", repr(dsum),
                 "--goal-width", repr(width)]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert not out["timed_out"], out
    return out["goals"], len(out["trials"]), out["max_fps"]


def csit_search(capacity, sender, goals, serve=None, max_fps=MAX_FPS):
    """CSIT's conditional throughput per goal, over the same trial function
    (the emulated device, or the command serve answering trials)."""
    from MLRsearch import (AbstractMeasurer, Config, MeasurementResult,
                           MultipleLossRatioSearch, SearchGoal)

    class EmuMeasurer(AbstractMeasurer):
        def __init__(self):
            cmd = serve or [EMU, "--capacity", str(capacity), "--sender", str(sender), "--serve"]
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True)
            self.trials = 0

        def measure(self, intended_duration, intended_load):
            self.proc.stdin.write(f"{intended_load!r} {intended_duration!r}\n")
            self.proc.stdin.flush()
            sent, lost, achieved, valid = self.proc.stdout.readline().split()
            self.trials += 1
            intended = round(intended_load * intended_duration)
            # The sender offered what it achieved; the rest is unsent, which
            # CSIT counts as bad just as ebfarm counts an invalid trial.
            offered = int(sent) if int(valid) else round(float(achieved) * intended_duration)
            lost = min(int(lost), offered)
            return MeasurementResult(intended_duration=intended_duration,
                                     intended_load=intended_load, offered_count=offered,
                                     loss_count=lost, intended_count=intended)

        def close(self):
            self.proc.stdin.close()
            self.proc.wait()

    sgoals = [SearchGoal(loss_ratio=loss, exceed_ratio=exceed, relative_width=width,
                         initial_trial_duration=dur / 4, final_trial_duration=dur,
                         duration_sum=dsum, preceding_targets=2, fail_fast=False)
              for loss, exceed, dur, dsum, width in goals]
    config = Config()
    config.goals = sgoals
    config.min_load = MIN_FPS
    config.max_load = max_fps
    config.search_duration_max = 3600.0
    config.warmup_duration = None
    m = EmuMeasurer()
    try:
        res = MultipleLossRatioSearch(config=config).search(measurer=m, debug=lambda s: None)
    finally:
        m.close()
    out = []
    for g in sgoals:
        ct = res[g].conditional_throughput
        out.append(float(ct) if ct is not None else None)
    return out, m.trials


def inside():
    failures = 0
    for name, capacity, sender, goals, answers, bounds in CASES:
        ours, n_ours, max_fps = ebfarm_search(capacity, sender, goals)
        theirs, n_theirs = csit_search(capacity, sender, goals, max_fps=max_fps)
        for k, goal in enumerate(goals):
            width = goal[4]
            a, b = ours[k]["conditional_fps"], theirs[k]
            lo, hi = ours[k]["lower_fps"], ours[k]["upper_fps"]
            bracket = (lo == answers[k] == max_fps if hi == 0
                       else lo <= answers[k] < hi and hi - lo <= width * hi)
            ok = (ours[k]["found"] and b is not None
                  and abs(a - b) <= width * max(a, b) and bracket
                  and ours[k]["bound_by"] == bounds[k]
                  and b <= answers[k] * (1 + 1e-9))
            print(f"{'ok  ' if ok else 'FAIL'} {name}, goal {k} {goal}: max load {max_fps:.0f}, "
                  f"ebfarm {a:.1f} (bounds {lo:.0f} .. {hi:.0f}, {ours[k]['bound_by']}-bound, "
                  f"{n_ours} trials), CSIT mlrsearch 1.2.1 "
                  f"{b if b is None else round(b, 1)} ({n_theirs} trials), known {answers[k]:.1f}")
            failures += not ok
    return 1 if failures else 0


def cable(size, max_fps, ports):
    """Both searches on a real cable (by hand, see the top)."""
    lb = os.path.join(BUILD, "loopback", "ebfarm-loopback")
    common = [lb] + ports + ["--sizes", size, "--quiet", "--rate", f"{max_fps}fps"]
    goal = (0.0, 0.0, 1.0, 1.0, 0.01)
    doc = json.loads(subprocess.run(common + ["--search", "mlr", "--json", "--resolution", "1"],
                                    check=True, capture_output=True, text=True).stdout)
    ours = doc["results"][0]["dpdk"]["mlr"][0]
    probe = doc["results"][0]["dpdk"]["mlr_probe"]
    search_trials = [t for t in doc["trials"] if t["phase"] != "sender probe"]
    theirs, n = csit_search(0, 0, [goal], serve=common + ["--trials-stdin"],
                            max_fps=float(probe["max_fps"]))
    a, b = ours["conditional_fps"], theirs[0]
    print(f"{size} B: sender probe at {float(max_fps):.0f} fps reached "
          f"{probe['achieved_fps']:.0f}: max load {probe['max_fps']:.0f} on both sides")
    print(f"{size} B: ebfarm --search mlr {a:.0f} fps (bounds {ours['lower_fps']:.0f} .. "
          f"{ours['upper_fps']}, {ours['bound_by']}-bound, {len(search_trials)} trials, "
          f"{sum(not t['valid'] for t in search_trials)} invalid); CSIT mlrsearch 1.2.1 "
          f"{b if b is None else round(b)} fps ({n} trials); "
          f"{'within' if b and abs(a - b) <= 0.01 * max(a, b) else 'NOT within'} 1 %")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        sys.exit(inside())
    if len(sys.argv) > 1 and sys.argv[1] == "--inside-cable":
        sys.exit(cable(sys.argv[2], sys.argv[3], sys.argv[4:]))
    if len(sys.argv) > 4 and sys.argv[1] == "--cable":
        py = ensure_venv()
        sys.exit(subprocess.run([py, os.path.abspath(__file__), "--inside-cable"]
                                + sys.argv[2:]).returncode)
    if not os.path.exists(EMU):
        print(f"FAIL: {EMU} is not built")
        sys.exit(1)
    py = ensure_venv()
    sys.exit(subprocess.run([py, os.path.abspath(__file__), "--inside"]).returncode)
