#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-top_down.py - `ebfarm top` on a terminal ends saying the farm is down once `ebfarm down` took it down, instead of showing every process STALE.
#
# farms/demo.yaml renamed, run.events 0, up; `ebfarm top --interval 0.5` on
# a pseudo-terminal; after 2 s, `ebfarm down`: top exits 0 within 5 s and
# its last line is "ebfarm top: farm 'NAME' is down (ebfarm down removed its
# state)", and it never drew STALE.
# Usage: test-top_down.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import os
import pty
import select
import signal
import time

from farmrig import Rig, check


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
    rig = Rig("topdown", "demo.yaml", {"events": 0})
    exe, env, name = rig.exe, rig.env, rig.name
    pid = None
    try:
        check(rig.ebfarm("up", rig.path).returncode == 0, "up")
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(exe, [exe, "top", "--farm", name, "--interval", "0.5"], env)
        out = []
        read_for(fd, 2, out)
        check(rig.ebfarm("down", "--farm", name).returncode == 0, "down")
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
        want = "ebfarm top: farm '%s' is down (ebfarm down removed its state)" % name
        check(last == want, "top's last line %r" % last)
        check("STALE" not in text, "top drew STALE")
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
        rig.cleanup()
    print("passed")


main()
