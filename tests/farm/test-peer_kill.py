#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-peer_kill.py - plain SIGKILLs of busy readouts, SFCs and nodes on memif links: no survivor crashes, every run's ledger closes.
#
# A farm of 4 readouts, 4 SFCs and 8 nodes (two per SFC) on this host over
# memif links, 2000 events/s (every link busy; the SFCs keep up, so that a
# killed readout is not far ahead of the others: docs/status.md), run.events
# 0. Each round is one run: `up`, 1 s of traffic, then 4 processes of one
# role (every readout, every SFC, or one node of each SFC) are SIGKILLed one
# after another, 0.3 s apart, without SIGSTOP first (the kill may land in
# the middle of a survivor's burst on the dead peer's link: DPDK 22.11's
# memif race, docs/status.md). Checked per round, exactly:
# - every process that was not killed is still running (not a zombie, not
#   gone) 1.5 s after the last kill, and answers `status` in state RUNNING;
# - `stop` exits 0 with a closed ledger (no "NOT CLOSED");
# - the summary names each killed process gone (a readout "lost from event
#   N on", the SFCs "sfc0 gone, 4 SFC(s)", a node "gone").
# ROUNDS rounds per role (default 5: 20 kills of each role); ROLES a comma
# list of ro, sfc, node (default all three).
# Usage: test-peer_kill.py SOURCE_DIR BUILD_DIR [ROUNDS [ROLES]]. Exit 0 passed, 1 failed.
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SRC, BUILD = sys.argv[1], sys.argv[2]
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
NAME = "peerkill%d" % os.getpid()
ROLES = sys.argv[4].split(",") if len(sys.argv) > 4 else ["ro", "sfc", "node"]

FARM = """farm: %s
defaults:
  idle: backoff
  no_huge: true
  memory_mb: 128
  lcores: auto
  metrics_period_ms: 1000
run:
  sources: 8
  events: 0
  rate: 2000
  duration_s: 600
  frag_size: 1024
  encap: eth
  mtu: 1500
  seed: 1
  trigger_us: 1
  accept: 0.1
  timeout_ms: 500
readouts:
%s
sfcs:
%s
nodes:
%s
"""


def farm_text():
    sfcs = ["sfc%d" % i for i in range(4)]
    ro = "\n".join("  - {name: ro%d, port: memif, mac: 02:eb:00:00:00:1%d, sfcs: [%s]}"
                   % (i, i, ", ".join(sfcs)) for i in range(4))
    sf = "\n".join("  - {name: sfc%d, id: %d, port: memif, mac: 02:eb:00:00:00:3%d, memory_mb: 256}"
                   % (i, i, i) for i in range(4))
    nd = "\n".join("  - {name: node%d, sfc: sfc%d, port: 'memif:sfc%d-node%d', mac: 02:eb:00:00:02:0%d, "
                   "sfc_mac: 02:eb:00:00:01:0%d}" % (i, i // 2, i // 2, i, i, i) for i in range(8))
    return FARM % (NAME, ro, sf, nd)


def check(cond, msg):
    if not cond:
        print("FAIL: " + msg)
        sys.exit(1)


def ebfarm(env, *args, quiet=False):
    p = subprocess.run([EBFARM] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=180)
    if not quiet:
        print("$ ebfarm %s -> %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def status(env):
    """Each process's pid and state (status exits 1 once one is gone)."""
    st = json.loads(ebfarm(env, "status", "--json", "--farm", NAME, quiet=True).stdout)
    return {x["name"]: (x["pid"], x["state"]) for x in st["processes"]}


def running(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def procs_naming(text):
    out = []
    for d in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            if text.encode() in open(d, "rb").read():
                out.append(int(d.split("/")[2]))
        except OSError:
            pass
    return out


def one_round(env, path, role, r):
    t0 = time.time()
    check(ebfarm(env, "up", path, quiet=True).returncode == 0, "up")
    time.sleep(1)
    pids = {n: v[0] for n, v in status(env).items()}
    victims = sorted(n for n in pids if re.fullmatch(role + r"\d+", n))
    if role == "node":           # one node of each SFC: the other keeps it building
        victims = victims[::2]
    check(len(pids) == 16 and len(victims) == 4, "processes %r" % pids)
    for v in victims:
        os.kill(pids[v], signal.SIGKILL)
        time.sleep(0.3)
    time.sleep(1.5)
    dead = [n for n, pid in pids.items() if n not in victims and not running(pid)]
    check(not dead, "round %d (%s killed): survivors crashed: %r" % (r, role, dead))
    states = {n: v[1] for n, v in status(env).items() if n not in victims}
    check(all(s == "RUNNING" for s in states.values()), "survivors' states %r" % states)
    p = ebfarm(env, "stop", "--farm", NAME, quiet=True)
    check(p.returncode == 0 and "NOT CLOSED" not in p.stdout,
          "round %d (%s killed): stop exit %d, ledger not closed\n%s" % (r, role, p.returncode, p.stdout))
    gone = {"ro": [r"readout %s lost from event \d+ on" % v for v in victims],
            "sfc": [r"\(SFC sfc0 gone, 4 SFC\(s\): "],
            "node": [r"^  %s +gone" % v for v in victims]}[role]
    for g in gone:
        check(re.search(g, p.stdout, re.M), "the summary does not say /%s/" % g)
    ebfarm(env, "down", "--farm", NAME, quiet=True)
    print("round %d: 4 %s processes SIGKILLed, 12 survivors running, ledger closed (%.0f s)"
          % (r, role, time.time() - t0), flush=True)


def main():
    tmp = tempfile.mkdtemp(prefix="ebf-peerkill-")
    run = os.path.join(tmp, "run")
    os.makedirs(run)
    env = dict(os.environ, EBFARM_RUN_DIR=run, EBFARM_BUILD_DIR=BUILD)
    path = os.path.join(tmp, NAME + ".yaml")
    open(path, "w").write(farm_text())
    t0 = time.time()
    try:
        for r in range(ROUNDS):
            for role in ROLES:
                one_round(env, path, role, r)
        left = procs_naming(tmp)
        check(not left, "processes left running: %r" % left)
    finally:
        subprocess.run([EBFARM, "down", "--farm", NAME], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        for pid in procs_naming(tmp):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        for d in glob.glob("/var/run/dpdk/*%s*" % NAME):
            shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print("passed: %d SIGKILLs each of %s in %.0f s" % (4 * ROUNDS, ", ".join(ROLES), time.time() - t0))


main()
