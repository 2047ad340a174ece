#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-up_fail.py - a failed `ebfarm up` cleans what it made, so that the next `up` of the fixed farm file works.
#
# farms/demo.yaml renamed, with a plug-in path that is no plug-in
# (run.trigger.plugin: /etc/passwd): `up` exits 1 naming the plug-in; after
# it no process names the test's directory, no DPDK runtime directory of the
# farm is left, the run directory holds only the logs (*.log: what the
# operator reads to learn why), and `down` says the farm is not up (exit 1).
# The same file without the trigger: `up` exits 0, `status` shows the four
# processes RUNNING, `down` exits 0 and leaves nothing but the run counter.
# Usage: test-up_fail.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
NAME = "upfail%d" % os.getpid()


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
    p = subprocess.run([EBFARM] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=180)
    print("$ ebfarm %s -> %d\n%s" % (" ".join(args), p.returncode, p.stdout))
    return p


def nothing_running(tmp):
    time.sleep(0.3)
    left = procs_naming(tmp)
    check(not left, "processes left running: %r" % left)
    left = [d for d in glob.glob("/var/run/dpdk/*") if NAME in d]
    check(not left, "DPDK runtime directories left: %r" % left)


def main():
    tmp = tempfile.mkdtemp(prefix="ebf-upfail-")
    run = os.path.join(tmp, "run")
    os.makedirs(run)
    env = dict(os.environ, EBFARM_RUN_DIR=run, EBFARM_BUILD_DIR=BUILD)
    text = open(os.path.join(SRC, "farms", "demo.yaml")).read()
    text = text.replace("farm: demo\n", "farm: %s\n" % NAME)
    path = os.path.join(tmp, NAME + ".yaml")
    bad = text.replace("  seed: 1\n", "  seed: 1\n  trigger:\n    plugin: /etc/passwd\n")
    check(bad != text, "farm file not changed")
    open(path, "w").write(bad)
    try:
        p = ebfarm(env, "up", path)
        check(p.returncode == 1, "bad up: exit %d, not 1" % p.returncode)
        check("/etc/passwd" in p.stdout, "bad up does not name the plug-in")
        nothing_running(tmp)
        rd = os.path.join(run, NAME)
        left = sorted(f for f in os.listdir(rd) if not f.endswith(".log")) \
            if os.path.isdir(rd) else []
        check(not left, "after the failed up, the run directory holds %r" % left)
        p = ebfarm(env, "down", "--farm", NAME)
        check(p.returncode == 1 and "not up" in p.stdout, "down of a farm not up: %d" %
              p.returncode)
        open(path, "w").write(text)
        p = ebfarm(env, "up", path)
        check(p.returncode == 0, "up of the fixed file: exit %d, not 0" % p.returncode)
        p = subprocess.run([EBFARM, "status", "--json"], env=env, stdout=subprocess.PIPE,
                           text=True, timeout=60)
        states = [x["state"] for x in json.loads(p.stdout)["processes"]]
        check(len(states) == 4 and all(s in ("RUNNING", "CONFIGURED") for s in states),
              "states %r" % states)
        p = ebfarm(env, "down", "--farm", NAME)
        check(p.returncode == 0, "down: exit %d" % p.returncode)
        nothing_running(tmp)
        left = [d for d in os.listdir(run) if not d.startswith(".") and not d.endswith(".next-run")]
        check(not left, "run directory left: %r" % left)
    finally:
        subprocess.run([EBFARM, "down", "--farm", NAME], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
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
