#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-restart.py - `ebfarm restart` of a readout and of a node of a running farm closes the ledger exactly; restart, drain and undrain refuse what they cannot do, by name.
#
# farms/demo.yaml renamed, run.events 0 (the run goes on until stopped):
# 1. `up`; `restart ro0`: "ro0 restarted (stopped in stages at event L) into
#    run 1, from event L+1"; `restart node1`: "node1 restarted (killed T s
#    after its freeze, once its SFC declared it dead) into run 1"; `stop`: exit 0, the ledger CLOSED with lost 0 and incomplete 0
#    (the only readout rejoins at the next event: nothing is missing), the
#    SFC's seq.resync 1 for each of the 8 sources (the restarted readout's
#    frames are numbered anew) and no seq.dup, and 1 node rejoin.
# 2. Refusals, each exit 1 with its message (2 for usage): no process, no
#    name, two names, a node drained, an SFC drained or undrained or
#    restarted without failover, --timeout 0, restart on a farm not up.
# Usage: test-restart.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
NAME = "restart%d" % os.getpid()


def check(cond, msg):
    if not cond:
        print("FAIL: " + msg)
        sys.exit(1)


def ebfarm(env, *args):
    p = subprocess.run([EBFARM] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=180)
    print("$ ebfarm %s -> %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def refused(env, args, rc, msg):
    p = ebfarm(env, *args)
    check(p.returncode == rc, "%s: exit %d, not %d" % (" ".join(args), p.returncode, rc))
    check(msg in p.stderr, "%s: no %r in %r" % (" ".join(args), msg, p.stderr))


def restarts(env):
    p = ebfarm(env, "restart", "ro0", "--farm", NAME)
    m = re.match(r"ro0 restarted \(stopped in stages at event (\d+)\) into run 1, from event "
                 r"(\d+), [0-9.]+ s\n$", p.stdout)
    check(p.returncode == 0 and m, "restart ro0: %r" % p.stdout)
    check(int(m.group(2)) == int(m.group(1)) + 1, "ro0 does not rejoin at the next event")
    p = ebfarm(env, "restart", "node1", "--farm", NAME)
    check(p.returncode == 0 and re.match(r"node1 restarted \(killed [0-9.]+ s after its freeze, "
                                         r"once its SFC declared it dead\) into run 1, "
                                         r"[0-9.]+ s\n$", p.stdout),
          "restart node1: %r" % p.stdout)


def refusals(env):
    procs = "(it has: sfc0 node0 node1 ro0)"
    refused(env, ["restart", "nosuch", "--farm", NAME], 1,
            "ebfarm restart: farm '%s' has no process 'nosuch' %s" % (NAME, procs))
    refused(env, ["restart", "--farm", NAME], 2, "ebfarm restart: name one process\n")
    refused(env, ["restart", "ro0", "node0", "--farm", NAME], 2,
            "ebfarm restart: name one process, not several\n")
    refused(env, ["drain", "node0", "--farm", NAME], 1,
            "ebfarm drain: node0 is a node, not an SFC: only SFCs are drained")
    off = ("failover is off in farm '%s' (run: replay_mb in the farm file): without it the "
           "readouts cannot move an SFC's share" % NAME)
    refused(env, ["drain", "sfc0", "--farm", NAME], 1, "ebfarm drain: " + off)
    refused(env, ["undrain", "sfc0", "--farm", NAME], 1, "ebfarm undrain: " + off)
    refused(env, ["restart", "sfc0", "--farm", NAME], 1,
            "ebfarm restart: restarting SFC sfc0 needs failover (run: replay_mb in the farm "
            "file): without it the readouts give a stopped SFC up for the rest of the run")
    refused(env, ["drain", "sfc0", "--timeout", "0", "--farm", NAME], 2,
            "ebfarm drain: --timeout: \"0\" is not a number of seconds (above 0, at most 86400)")


def closed(text):
    check(re.search(r"^  ledger +generated (\d+) = accepted \d+ \+ rejected \d+ \+ lost 0; "
                    r"incomplete 0$", text, re.M), "ledger: not lost 0, incomplete 0")
    check(re.search(r"^ +CLOSED$", text, re.M), "ledger not CLOSED")
    resync = ", ".join("%d 1" % s for s in range(8))
    flat = " ".join(text.split())
    check("seq.dup: none;" in flat, "seq.dup is not none")
    check("seq.resync: %s;" % resync in flat, "seq.resync is not 1 per source")
    check(" 1 rejoins," in flat, "not 1 node rejoin")


def main():
    tmp = tempfile.mkdtemp(prefix="ebf-restart-")
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
        restarts(env)
        refusals(env)
        p = ebfarm(env, "stop", "--farm", NAME)
        check(p.returncode == 0, "stop: exit %d" % p.returncode)
        closed(p.stdout)
        check(ebfarm(env, "down", "--farm", NAME).returncode == 0, "down")
        refused(env, ["restart", "node0"], 1, "ebfarm restart: no farm is up")
    finally:
        subprocess.run([EBFARM, "down", "--farm", NAME], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        for d in glob.glob("/var/run/dpdk/*%s*" % NAME):
            shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print("passed")


main()
