#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-stop_down.py - `ebfarm down` of a running farm stops it in stages and prints the ledger; `ebfarm stop` of a stopped farm says so with exit 3 instead of reprinting a summary.
#
# farms/demo.yaml renamed, run.events 0 (the run goes on until stopped):
# 1. `up`, `stop`: exit 0 with the ledger (CLOSED); `stop` again: exit 3,
#    "farm 'NAME' is already stopped: run 1 is not in progress", no ledger.
# 2. `start`, `down`: exit 0, the summary of run 2 with its ledger CLOSED,
#    then "farm 'NAME' is down: 4 processes stopped".
# 3. `up --no-start`, `down`: exit 0, no ledger (no run was in progress).
# Usage: test-stop_down.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
NAME = "stopdown%d" % os.getpid()


def check(cond, msg):
    if not cond:
        print("FAIL: " + msg)
        sys.exit(1)


def ebfarm(env, *args):
    p = subprocess.run([EBFARM] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=180)
    print("$ ebfarm %s -> %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def ledger(text):
    return re.search(r"^  ledger +generated \d+ = .*\n(.*\n)*? +CLOSED$", text, re.M)


def main():
    tmp = tempfile.mkdtemp(prefix="ebf-stopdown-")
    run = os.path.join(tmp, "run")
    os.makedirs(run)
    env = dict(os.environ, EBFARM_RUN_DIR=run, EBFARM_BUILD_DIR=BUILD)
    text = open(os.path.join(SRC, "farms", "demo.yaml")).read()
    text = text.replace("farm: demo\n", "farm: %s\n" % NAME)
    text = text.replace("  events: 200000\n", "  events: 0\n")
    path = os.path.join(tmp, NAME + ".yaml")
    open(path, "w").write(text)
    try:
        check(ebfarm(env, "up", path).returncode == 0, "up")
        p = ebfarm(env, "stop", "--farm", NAME)
        check(p.returncode == 0 and ledger(p.stdout), "first stop: exit %d" % p.returncode)
        p = ebfarm(env, "stop", "--farm", NAME)
        check(p.returncode == 3, "second stop: exit %d, not 3" % p.returncode)
        check(p.stdout == "", "second stop printed %r" % p.stdout)
        check("ebfarm stop: farm '%s' is already stopped: run 1 is not in progress" % NAME
              in p.stderr, "second stop's message")
        check(ebfarm(env, "start", "--farm", NAME).returncode == 0, "start")
        p = ebfarm(env, "down", "--farm", NAME)
        check(p.returncode == 0, "down of a running farm: exit %d" % p.returncode)
        check(ledger(p.stdout), "down of a running farm printed no closed ledger")
        check(re.search(r"^  run +farm %s, run 2," % NAME, p.stdout, re.M), "not run 2's summary")
        check(p.stdout.rstrip().endswith("farm '%s' is down: 4 processes stopped" % NAME),
              "down's last line")
        check(ebfarm(env, "up", path, "--no-start").returncode == 0, "up --no-start")
        p = ebfarm(env, "down", "--farm", NAME)
        check(p.returncode == 0 and "ledger" not in p.stdout, "down with no run: %d" %
              p.returncode)
        check(p.stdout == "farm '%s' is down: 4 processes stopped\n" % NAME, "down's output")
    finally:
        subprocess.run([EBFARM, "down", "--farm", NAME], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        for d in glob.glob("/var/run/dpdk/*%s*" % NAME):
            shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print("passed")


main()
