#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-conform-live.py - ebfarm conform --port on a live interface: a board's good frames pass, and every test vector lands under the rule and counter tests/vectors/index.txt gives it.
#
# A network namespace with a veth pair (IPv6 off, so nothing but the test's
# frames crosses it; MTU 9000, so the oversize vectors can be sent), the
# judge listening on one end (`ebfarm conform --port vb --frames N`), the
# board played by a raw socket on the other end:
# - 20 raw Ethernet frames of source 2 and 20 UDP frames of source 5 (10
#   events of two 8-byte pieces each, seq 0..19 per source): verdict pass,
#   every rule checked on 40 frames, each source 20 frames and 10 events;
# - every frame of tests/vectors in index order: the ARP and wrong-port
#   frames counted not ebfarm, the throttle frame counted as the SFC's,
#   each other refused vector under exactly its index counter in the
#   SFC's frame rules (encapsulation to destination), the accepted ones
#   all judged by the sequence rule (one source, one seq: its first number
#   7 a gap at the start, then repeats), verdict fail, exit 1.
# Usage: test-conform-live.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed, 77 skipped.
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time

NS = "ebfconf-%d" % os.getpid()
SFC_MAC = "02:00:00:00:00:02"
FRAME_RULES = ("encapsulation", "frame_type", "fragment_header", "crc", "size", "unicast",
               "destination")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def sh(*cmd):
    subprocess.run(cmd, check=True)


def netns_up():
    sh("ip", "netns", "add", NS)
    sh("ip", "netns", "exec", NS, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
       "net.ipv6.conf.default.disable_ipv6=1")
    sh("ip", "-n", NS, "link", "add", "va", "type", "veth", "peer", "name", "vb")
    for dev in ("va", "vb"):
        sh("ip", "-n", NS, "link", "set", dev, "mtu", "9000", "up")


def judge(build, frames, n):
    """conform --port vb for the n frames the board sends; its exit status and report."""
    cmd = ["ip", "netns", "exec", NS, os.path.join(build, "tools", "ebfarm"), "conform",
           "--port", "vb", "--seconds", "30", "--frames", str(n), "--json", "--sources", "8",
           "--sfc-mac", SFC_MAC]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)              # the judge's socket is bound
    send = subprocess.run(["ip", "netns", "exec", NS, sys.executable, "-c",
                           "import socket, sys\n"
                           "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
                           "s.bind(('va', 0))\n"
                           "for h in sys.stdin.read().split():\n"
                           "    s.send(bytes.fromhex(h))\n"],
                          input="\n".join(f.hex() for f in frames), text=True)
    if send.returncode != 0:
        p.kill()
        fail("the board's sender failed")
    out, err = p.communicate(timeout=60)
    try:
        return p.returncode, json.loads(out)
    except ValueError:
        fail("conform printed no JSON (exit %d): %r %r" % (p.returncode, out[:300], err[:300]))


def good_frames(mv):
    frames = []
    for e in range(10):
        for k in range(2):
            body = bytes(range(8 * k, 8 * k + 8))
            raw = mv.frag(source=2, seq=2 * e + k, event=e, frag_len=16, offset=8 * k,
                          payload=body)
            udp = mv.frag(source=5, seq=2 * e + k, event=e, frag_len=16, offset=8 * k,
                          payload=body)
            frames += [mv.pad(mv.eth(raw)), mv.pad(mv.udp(udp))]
    return frames


def check_good(build, mv):
    rc, rep = judge(build, good_frames(mv), 40)
    rules = {r["rule"]: (r["checked"], r["deviations"]) for r in rep["rules"]}
    src = {s["source"]: (s["frames"], s["events"]) for s in rep["sources"]}
    if rc != 0 or rep["verdict"] != "pass" or set(rules.values()) != {(40, 0)} or \
            src != {2: (20, 10), 5: (20, 10)}:
        fail("good frames: exit %d, %r" % (rc, rep))
    print("ok: 40 good frames of 2 sources, raw and UDP: pass")


def vectors(src):
    d = os.path.join(src, "tests", "vectors")
    out = []
    for line in open(os.path.join(d, "index.txt")):
        if line.startswith("#") or not line.strip():
            continue
        name, _, counter = line.split()
        data = b""
        for l in open(os.path.join(d, name + ".hex")):
            if not l.startswith("#") and l.strip():
                data += bytes.fromhex("".join(l.split()[1:]))
        out.append((name, counter, data))
    return out


def check_vectors(build, src):
    vec = vectors(src)
    rc, rep = judge(build, [v[2] for v in vec], len(vec))
    counters = [v[1] for v in vec]
    want = {}
    for c in counters:
        if c not in ("accepted", "rx.reject.not_ebfarm", "rx.drop.wrong_type"):
            want[c] = want.get(c, 0) + 1
    got = {}
    for r in rep["rules"]:
        if r["rule"] in FRAME_RULES:
            for k, v in r["reasons"].items():
                got[k] = got.get(k, 0) + v
    seq = [r for r in rep["rules"] if r["rule"] == "sequence"][0]
    accepted = counters.count("accepted")
    if rc != 1 or rep["verdict"] != "fail" or got != want or \
            rep["not_ebfarm"] != counters.count("rx.reject.not_ebfarm") or \
            rep["throttle_frames"] != counters.count("rx.drop.wrong_type") or \
            (seq["checked"], seq["deviations"]) != (accepted, accepted):
        fail("vectors: exit %d\nwant %r\ngot  %r\nreport %r" % (rc, want, got, rep))
    print("ok: %d vectors, each under its counter (%d refused by the frame rules)"
          % (len(vec), sum(want.values())))


def main(src, build):
    if os.geteuid() != 0:
        print("skip: needs root (network namespaces, raw sockets)")
        return 77
    spec = importlib.util.spec_from_file_location(
        "make_vectors", os.path.join(src, "tests", "vectors", "make-vectors.py"))
    mv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mv)
    try:
        netns_up()
        check_good(build, mv)
        check_vectors(build, src)
    finally:
        subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
