#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-top_down.py - `ebfarm top` on a terminal ends saying the farm is down once `ebfarm down` took it down, instead of showing every process STALE.
#
# farms/demo.yaml renamed, run.events 0, up; `ebfarm top --interval 0.5` on
# a pseudo-terminal; after 2 s, `ebfarm down`: top exits 0 within 5 s and
# its last line is "ebfarm top: farm 'NAME' is down (ebfarm down removed its
# state)", and it never drew STALE.
# Usage: test-top_down.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import glob
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
NAME = "topdown%d" % os.getpid()


def check(cond, msg):
    if not cond:
        print("FAIL: " + msg)
        sys.exit(1)


def read_for(fd, seconds, out):
    end = time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            out.append(data)
    return True


def main():
    tmp = tempfile.mkdtemp(prefix="ebf-topdown-")
    run = os.path.join(tmp, "run")
    os.makedirs(run)
    env = dict(os.environ, EBFARM_RUN_DIR=run, EBFARM_BUILD_DIR=BUILD)
    text = open(os.path.join(SRC, "farms", "demo.yaml")).read()
    text = text.replace("farm: demo\n", "farm: %s\n" % NAME)
    text = text.replace("  events: 200000\n", "  events: 0\n")
    path = os.path.join(tmp, NAME + ".yaml")
    open(path, "w").write(text)
    pid = None
    try:
        up = subprocess.run([EBFARM, "up", path], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=120)
        check(up.returncode == 0, "up: %s" % up.stdout)
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(EBFARM, [EBFARM, "top", "--farm", NAME, "--interval", "0.5"], env)
        out = []
        read_for(fd, 2, out)
        dn = subprocess.run([EBFARM, "down", "--farm", NAME], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=120)
        check(dn.returncode == 0, "down: %s" % dn.stdout)
        t0 = time.time()
        status = None
        while time.time() - t0 < 5 and status is None:
            read_for(fd, 0.2, out)
            w, st = os.waitpid(pid, os.WNOHANG)
            if w:
                status = st
        read_for(fd, 0.2, out)
        text = b"".join(out).decode(errors="replace")
        check(status is not None, "top still runs 5 s after down")
        pid = None
        check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "top's status %r" % status)
        last = text.strip().splitlines()[-1].split("\x1b[?1049l")[-1].strip()
        want = "ebfarm top: farm '%s' is down (ebfarm down removed its state)" % NAME
        check(last == want, "top's last line %r" % last)
        check("STALE" not in text, "top drew STALE")
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
        subprocess.run([EBFARM, "down", "--farm", NAME], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        for d in glob.glob("/var/run/dpdk/*%s*" % NAME):
            shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print("passed")


main()
