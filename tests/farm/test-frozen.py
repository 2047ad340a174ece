#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-frozen.py - `ebfarm stop` and `start` with a process frozen (SIGSTOP) or killed: stop still yields a ledger naming it gone, start refuses before ordering anyone, so the farm is never in two runs.
#
# farms/demo.yaml renamed, run.events 0 (the run goes on until stopped):
# 1. `up`, node0 frozen (SIGSTOP): `stop` exits 0 within 30 s, its ledger
#    names node0 gone, and every other process is CONFIGURED in run 1.
# 2. `start`: exit 1 naming "node0 is frozen" and "no run started"; every
#    other process still CONFIGURED, the farm's run still 1.
# 3. node0 killed (SIGKILL, then SIGCONT): `start` exits 1 naming "node0 is
#    gone"; the others CONFIGURED in run 1.
# 4. `up` again after `down`, sfc0 frozen: `stop` exits 0 with the ledger
#    naming sfc0 gone; `down` kills it at once (exit 1, "sfc0 was frozen and
#    was killed", within 10 s) and nothing is left running.
# Usage: test-frozen.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import glob
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
NAME = "frozen%d" % os.getpid()


def check(cond, msg):
    if not cond:
        print("FAIL: " + msg)
        sys.exit(1)


def procs_naming(text):
    out = []
    for d in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            if text.encode() in open(d, "rb").read():
                out.append(int(d.split("/")[2]))
        except OSError:
            pass
    return out


def ebfarm(env, *args):
    t0 = time.time()
    p = subprocess.run([EBFARM] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=180)
    p.elapsed = time.time() - t0
    print("$ ebfarm %s -> %d (%.1f s)\n%s" % (" ".join(args), p.returncode, p.elapsed, p.stdout))
    return p


def status(env):
    p = subprocess.run([EBFARM, "status", "--json", "--farm", NAME], env=env,
                       stdout=subprocess.PIPE, text=True, timeout=120)
    return json.loads(p.stdout)


def pid_of(env, name):
    return [x for x in status(env)["processes"] if x["name"] == name][0]["pid"]


def others_configured(env, skip):
    st = status(env)
    states = {x["name"]: x["state"] for x in st["processes"] if x["name"] != skip}
    check(states and all(s == "CONFIGURED" for s in states.values()), "states %r" % states)
    return st


def main():
    tmp = tempfile.mkdtemp(prefix="ebf-frozen-")
    run = os.path.join(tmp, "run")
    os.makedirs(run)
    env = dict(os.environ, EBFARM_RUN_DIR=run, EBFARM_BUILD_DIR=BUILD)
    text = open(os.path.join(SRC, "farms", "demo.yaml")).read()
    text = text.replace("farm: demo\n", "farm: %s\n" % NAME)
    text = text.replace("  events: 200000\n", "  events: 0\n")
    path = os.path.join(tmp, NAME + ".yaml")
    open(path, "w").write(text)
    frozen = []
    try:
        check(ebfarm(env, "up", path).returncode == 0, "up")
        time.sleep(1)
        node0 = pid_of(env, "node0")
        os.kill(node0, signal.SIGSTOP)
        frozen.append(node0)
        p = ebfarm(env, "stop", "--farm", NAME)
        check(p.returncode == 0, "stop with node0 frozen: exit %d, not 0" % p.returncode)
        check(p.elapsed < 30, "stop took %.0f s" % p.elapsed)
        check(re.search(r"^  node0 +gone", p.stdout, re.M), "the summary does not name node0 gone")
        others_configured(env, "node0")
        p = ebfarm(env, "start", "--farm", NAME)
        check(p.returncode == 1, "start with node0 frozen: exit %d, not 1" % p.returncode)
        check("node0 is frozen" in p.stdout and "no run started" in p.stdout, "start's message")
        others_configured(env, "node0")
        os.kill(node0, signal.SIGKILL)
        os.kill(node0, signal.SIGCONT)
        time.sleep(0.5)
        p = ebfarm(env, "start", "--farm", NAME)
        check(p.returncode == 1, "start with node0 killed: exit %d, not 1" % p.returncode)
        check("node0 is gone" in p.stdout and "no run started" in p.stdout, "start's message")
        others_configured(env, "node0")
        check(ebfarm(env, "down", "--farm", NAME).returncode == 0, "down with node0 gone")
        check(ebfarm(env, "up", path).returncode == 0, "second up")
        time.sleep(1)
        sfc0 = pid_of(env, "sfc0")
        os.kill(sfc0, signal.SIGSTOP)
        frozen.append(sfc0)
        p = ebfarm(env, "stop", "--farm", NAME)
        check(p.returncode == 0, "stop with sfc0 frozen: exit %d, not 0" % p.returncode)
        check(re.search(r"sfc0 +gone|sfc0[^\n]*gone", p.stdout), "the summary does not name sfc0 gone")
        others_configured(env, "sfc0")
        p = ebfarm(env, "down", "--farm", NAME)
        check(p.returncode == 1 and "sfc0 was frozen and was killed" in p.stdout,
              "down with sfc0 frozen: exit %d" % p.returncode)
        check(p.elapsed < 10, "down waited %.0f s for a frozen sfc0" % p.elapsed)
        time.sleep(0.5)
        left = procs_naming(tmp)
        check(not left, "processes left running: %r" % left)
    finally:
        for pid in frozen:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
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
    print("passed")


main()
