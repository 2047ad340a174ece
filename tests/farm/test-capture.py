#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-capture.py - dpdk-dumpcap on every port of every daemon of a live farm: exact frame counts, and the Wireshark dissector's fields of every frame type in that capture.
#
# A farm of 1 readout, 1 SFC and 2 nodes over memif, on hugepages (a
# secondary process such as dpdk-dumpcap cannot attach to a --no-huge
# primary, docs/capture.md). Its run is shaped to send every frame type:
# 200 events of 3 sources, slow nodes so that the SFC throttles the
# readout, and seeded corrupt_payload and corrupt_header faults so that
# some fragments carry a bad CRC and some events go out incomplete.
# One dpdk-dumpcap per port (6) records the whole run. The test checks:
#   - every capture, per direction, holds exactly the frames the port's
#     counters (port.ipackets, port.opackets) say it received and sent,
#     and dpdk-dumpcap dropped none;
#   - the farm lost nothing to the capture: the ledger closes, no frame
#     was refused or dropped other than the injected faults;
#   - tshark with tools/wireshark/ebfarm.lua gives the exact fields of
#     every fragment, event, credit/ack and throttle frame, marks exactly
#     the corrupted fragments with ebfarm.crc.bad (and the header faults
#     with ebfarm.bad_field), and the incomplete events with their
#     missing source;
#   - ebfarm conform (docs/boards.md) fails the readout's capture naming
#     exactly the rules the faults broke, and passes the capture of the
#     same farm run again without faults.
#
# Hugepages: as root the test reserves what it needs and mounts its own
# hugetlbfs, and gives both back afterwards; otherwise it needs a
# hugetlbfs mount with enough free 2 MB pages. Usage: test-capture.py
# SOURCE_ROOT BUILD_DIR. Exit 0 passed, 1 failed, 77 skipped (tshark
# missing, or not root and no free hugepages).
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

SOURCES, EVENTS, FRAG, SFC_ID, CREDITS = 3, 200, 600, 3, 4
PAGES = 256                      # 2 MB pages: 4 x 64 MB, and the capture pools
HP = "/sys/kernel/mm/hugepages/hugepages-2048kB"

FARM = """\
farm: {name}
defaults:
  idle: backoff
  no_huge: false
  memory_mb: 64
  metrics_period_ms: 100
  eal_args: [--huge-dir={huge}]
run:
  sources: {sources}
  events: {events}
  rate: 2000
  frag_size: {frag}
  trigger_us: 4000          # nodes take 500 events/s, the readout sends 2000
  accept: 0.5
  timeout_ms: 100
  faults: corrupt_payload=0.01,corrupt_header=0.01
  fault_seed: 7
readouts:
  - {{name: ro0, port: "memif:ro0-sfc0", mac: "02:eb:00:00:00:10", sfcs: [sfc0]}}
sfcs:
  - {{name: sfc0, id: {sfc_id}, port: "memif:ro0-sfc0", mac: "02:eb:00:00:00:01",
     capacity: 64, mbufs: 2047}}
nodes:
  - {{name: node0, sfc: sfc0, port: "memif:sfc0-node0", mac: "02:eb:00:00:02:00",
     sfc_mac: "02:eb:00:00:01:00", credits: {credits}}}
  - {{name: node1, sfc: sfc0, port: "memif:sfc0-node1", mac: "02:eb:00:00:02:01",
     sfc_mac: "02:eb:00:00:01:01", credits: {credits}}}
"""

# Every port of every process: (process, DPDK port name, port label of
# its counters). The SFC opens its readout port first, then one per node.
PORTS = [("ro0", "net_memif0", "sfc"), ("sfc0", "net_memif0", "readout"),
         ("sfc0", "net_memif1", "node0"), ("sfc0", "net_memif2", "node1"),
         ("node0", "net_memif0", "sfc"), ("node1", "net_memif0", "sfc")]

FIELDS = [
    "frame.packet_flags_direction", "ebfarm.type", "_ws.expert", "ebfarm.crc.bad",
    "ebfarm.bad_field", "ebfarm.event.incomplete",
    "ebfarm.frag.source", "ebfarm.frag.seq", "ebfarm.frag.event_id", "ebfarm.frag.frag_len",
    "ebfarm.frag.offset", "ebfarm.frag.piece_len", "ebfarm.frag.flags",
    "ebfarm.frag.crc.status",
    "ebfarm.event.n_sources", "ebfarm.event.sfc_id", "ebfarm.event.flags",
    "ebfarm.event.flags.incomplete", "ebfarm.event.event_id", "ebfarm.event.frame_index",
    "ebfarm.event.frame_count", "ebfarm.event.n_pieces", "ebfarm.event.event_bytes",
    "ebfarm.event.present0", "ebfarm.event.missing",
    "ebfarm.credit.node_id", "ebfarm.credit.credits", "ebfarm.credit.n_acks",
    "ebfarm.credit.epoch", "ebfarm.credit.seq", "ebfarm.ack.event_id", "ebfarm.ack.decision",
    "ebfarm.ack.status",
    "ebfarm.throttle.sfc_id", "ebfarm.throttle.on", "ebfarm.throttle.fill",
    "ebfarm.throttle.seq", "ebfarm.throttle.reserved", "ebfarm.throttle.reserved2",
]
IN, OUT = "1", "2"               # pcapng direction flags


class Skip(Exception):
    pass


failures = []


def expect(what, got, want):
    if got == want:
        return
    if isinstance(got, list) and isinstance(want, list):
        i = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got),
                                                                              len(want)))
        failures.append("%s: %d items, expected %d; first difference at %d: %r, expected %r"
                        "; items %d..%d: %r, expected %r"
                        % (what, len(got), len(want), i, got[i] if i < len(got) else None,
                           want[i] if i < len(want) else None, max(i - 3, 0), i + 8,
                           got[max(i - 3, 0):i + 9], want[max(i - 3, 0):i + 9]))
    else:
        failures.append("%s: %r, expected %r" % (what, got, want))


def sh(*cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), out.returncode,
                                                   (out.stderr or out.stdout).strip()))
    return out.stdout


# --- Hugepages -----------------------------------------------------------------


def read_int(path):
    with open(path) as f:
        return int(f.read())


def write_int(path, value):
    with open(path, "w") as f:
        f.write("%d\n" % value)


class Hugepages:
    """A hugetlbfs directory with PAGES free 2 MB pages for the farm."""

    def __init__(self, tmp):
        self.dir, self.mounted, self.added = None, False, 0
        self.tmp = tmp

    def __enter__(self):
        free = read_int(HP + "/free_hugepages") if os.path.isdir(HP) else 0
        if os.geteuid() != 0:
            with open("/proc/mounts") as f:
                mounts = [w[1] for w in (l.split() for l in f) if w[2] == "hugetlbfs"]
            if not mounts or free < PAGES:
                raise Skip("needs root (to reserve hugepages) or %d free 2 MB hugepages on a "
                           "hugetlbfs mount (%d free)" % (PAGES, free))
            self.dir = mounts[0]
            return self
        try:
            self.reserve(free)
        except BaseException:
            self.__exit__()
            raise
        return self

    def reserve(self, free):
        """As root: add the pages that are missing, mount our own hugetlbfs."""
        if free < PAGES:
            self.added = PAGES - free
            write_int(HP + "/nr_hugepages", read_int(HP + "/nr_hugepages") + self.added)
            if read_int(HP + "/free_hugepages") < PAGES:
                raise RuntimeError("could not reserve %d hugepages (see %s)" % (PAGES, HP))
        self.dir = os.path.join(self.tmp, "huge")
        os.mkdir(self.dir)
        sh("mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev", self.dir)
        self.mounted = True

    def __exit__(self, *exc):
        """Unmount, and give back the pages we added (by count: another user
        of hugepages may have changed the total meanwhile)."""
        if self.mounted:
            for f in os.listdir(self.dir):
                os.unlink(os.path.join(self.dir, f))
            sh("umount", self.dir)
            self.mounted = False
        if self.added:
            nr = read_int(HP + "/nr_hugepages")
            write_int(HP + "/nr_hugepages", max(nr - self.added, 0))
            self.added = 0


# --- The farm and its capture ----------------------------------------------------


class Farm:
    def __init__(self, tmp, build, huge, faults=True, ports=PORTS):
        self.name = "cap%d%s" % (os.getpid() % 100000, "" if faults else "c")
        self.tmp, self.ebfarm = tmp, os.path.join(build, "tools", "ebfarm")
        self.env = dict(os.environ, EBFARM_RUN_DIR=os.path.join(tmp, "run"))
        self.file = os.path.join(tmp, "farm.yaml")
        text = FARM.format(name=self.name, huge=huge, sources=SOURCES, events=EVENTS,
                           frag=FRAG, sfc_id=SFC_ID, credits=CREDITS)
        if not faults:
            text = re.sub(r"  faults: .*\n", "", text)
        with open(self.file, "w") as f:
            f.write(text)
        self.ports = ports
        self.dumpcaps, self.up = [], False

    def cmd(self, *args):
        return sh(self.ebfarm, *args, env=self.env)

    def prefixes(self):
        """The EAL file prefix of each process, from farm.state."""
        path = os.path.join(self.tmp, "run", self.name, "farm.state")
        with open(path) as f:
            return {w[1]: w[4] for w in (l.split() for l in f) if w and w[0] == "proc"}

    def start_capture(self):
        prefix = self.prefixes()
        for proc, port, _ in self.ports:
            base = os.path.join(self.tmp, "%s-%s" % (proc, port))
            with open(base + ".log", "w") as log:
                p = subprocess.Popen(["dpdk-dumpcap", "--file-prefix=" + prefix[proc], "-i",
                                      port, "-w", base + ".pcapng"], stdout=log, stderr=log)
            self.dumpcaps.append((p, base))
        # Each prints "Packets captured: 0" once its port is being captured.
        deadline = time.time() + 20
        for p, base in self.dumpcaps:
            while "Packets captured" not in open(base + ".log").read():
                if p.poll() is not None or time.time() > deadline:
                    raise RuntimeError("dpdk-dumpcap did not start: " + open(base + ".log").read())
                time.sleep(0.1)

    def stop_capture(self):
        """SIGINT each dump; returns {base: (received, dropped)} from their reports."""
        report = {}
        for p, base in self.dumpcaps:
            p.send_signal(signal.SIGINT)
        for p, base in self.dumpcaps:
            p.wait(timeout=20)
            m = re.search(r"received/dropped on interface '[^']*': (\d+)/(\d+)",
                          open(base + ".log").read())
            expect("%s exit status" % base, p.returncode, 0)
            report[base] = (int(m.group(1)), int(m.group(2))) if m else None
        self.dumpcaps = []
        return report

    def wait_finished(self):
        """Until the readout has generated its events."""
        deadline = time.time() + 60
        while time.time() < deadline:
            out = subprocess.run([self.ebfarm, "status", "--farm", self.name, "--json"],
                                 capture_output=True, text=True, env=self.env, check=False)
            if re.search(r'"component": ?"readout"[^}]*"finished": ?true', out.stdout):
                return
            time.sleep(0.2)
        raise RuntimeError("the run did not finish in 60 s")

    def metrics(self):
        """Counters of the stopped farm: {(process, name, labels): value}."""
        exp = subprocess.Popen([self.ebfarm, "metrics", "--prometheus", "--farm", self.name,
                                "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True,
                               env=self.env)
        try:
            url = re.search(r"http://\S+", exp.stdout.readline()).group(0)
            last = None
            for _ in range(50):      # until every process answered, twice the same
                time.sleep(0.3)
                text = urllib.request.urlopen(url, timeout=5).read().decode()
                got = parse_prom(text)
                counters = {k: v for k, v in got.items() if k[1].endswith("_total")}
                if sum(v for k, v in got.items() if k[1] == "ebfarm_up") == 4 and \
                        counters == last:
                    return got
                last = counters
            raise RuntimeError("the exporter did not settle on the counters of 4 processes")
        finally:
            exp.send_signal(signal.SIGINT)
            exp.wait(timeout=10)

    def teardown(self):
        for p, _ in self.dumpcaps:
            p.kill()
            p.wait()
        if self.up:
            subprocess.run([self.ebfarm, "down", "--farm", self.name], env=self.env,
                           capture_output=True, check=False)


def parse_prom(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r"(\w+)\{([^}]*)\} (\S+)$", line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        proc = labels.pop("process", None) or labels.pop("instance", None)
        for k in ("component", "farm", "run", "job"):
            labels.pop(k, None)
        out[(proc, m.group(1), tuple(sorted(labels.items())))] = float(m.group(3))
    return out


def counter(metrics, proc, name, **labels):
    return int(metrics.get((proc, name, tuple(sorted(labels.items()))), -1))


def dissect(lua, pcap):
    """tshark with the dissector: one dict per frame, each field a list."""
    cmd = ["tshark", "-n", "-X", "lua_script:" + lua, "-r", pcap, "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for name in FIELDS:
        cmd += ["-e", name]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0 or "Lua: Error" in out.stderr:
        raise RuntimeError("tshark on %s: %s" % (pcap, out.stderr.strip()))
    rows = []
    for line in out.stdout.splitlines():
        values = line.split("\t")
        rows.append({k: (v.split(",") if v else []) for k, v in zip(FIELDS, values)})
    for r in rows:
        r["dir"] = r["frame.packet_flags_direction"][0][-1:]
    return rows


def one(row, field):
    return row[field][0] if row[field] else None


# --- The checks ------------------------------------------------------------------


def check_counts(caps, report, metrics):
    """Each capture, per direction, is exactly what its port counted."""
    for (proc, port, label), rows in caps.items():
        what = "%s %s (port=%s)" % (proc, port, label)
        n_in = sum(r["dir"] == IN for r in rows)
        n_out = sum(r["dir"] == OUT for r in rows)
        expect(what + " frames received", n_in,
               counter(metrics, proc, "ebfarm_port_ipackets_total", port=label))
        expect(what + " frames sent", n_out,
               counter(metrics, proc, "ebfarm_port_opackets_total", port=label))
        expect(what + " dpdk-dumpcap received/dropped", report[(proc, port)], (len(rows), 0))
        expect(what + " frames not ebfarm", sum(not r["ebfarm.type"] for r in rows), 0)


def types(rows, direction):
    return sorted({one(r, "ebfarm.type") for r in rows if r["dir"] == direction})


def check_fragments(ro, sfc_ro, summary):
    """The readout's fragments: every (source, seq, event), in order; the
    corrupted ones and only they are marked; the SFC received the same."""
    out = [r for r in ro if r["dir"] == OUT]
    expect("readout frames sent", len(out), EVENTS * SOURCES)
    expect("readout frame types sent / received", (types(ro, OUT), types(ro, IN)),
           (["1"], ["4"]))
    got = [(int(one(r, "ebfarm.frag.source")), int(one(r, "ebfarm.frag.seq")),
            int(one(r, "ebfarm.frag.event_id")), int(one(r, "ebfarm.frag.frag_len")),
            int(one(r, "ebfarm.frag.offset")), int(one(r, "ebfarm.frag.piece_len")))
           for r in out]
    expect("fragments (source, seq, event, frag_len, offset, piece_len)", got,
           [(s, e, e, FRAG, 0, FRAG) for e in range(EVENTS) for s in range(SOURCES)])
    bad_crc = [r for r in out if r["ebfarm.crc.bad"]]
    # corrupt_header XORs the flags' low byte with 0xff: the prebuilt flag
    # (0x0001, the farm's payload: no trigger plug-in) becomes 0x00fe
    bad_hdr = [r for r in out if one(r, "ebfarm.frag.flags") == "0x00fe"]
    ro_sum = summary["readout"]
    expect("fragments marked ebfarm.crc.bad", len(bad_crc),
           ro_sum["fault_corrupted_payload"] + ro_sum["fault_corrupted_header"])
    expect("fragments with flags 0x00fe", len(bad_hdr), ro_sum["fault_corrupted_header"])
    expect("the other fragments' flags (prebuilt)", {one(r, "ebfarm.frag.flags") for r in out
                                                     if r not in bad_hdr}, {"0x0001"})
    expect("ebfarm.bad_field exactly on them", [r for r in out if r["ebfarm.bad_field"]],
           bad_hdr)
    expect("CRC status of the others", {one(r, "ebfarm.frag.crc.status") for r in out
                                        if not r["ebfarm.crc.bad"]}, {"1"})
    expect("expert info on the readout's frames", [r for r in ro if r["_ws.expert"]], bad_crc)
    expect("at least one corrupted fragment of each kind",
           (len(bad_crc) > len(bad_hdr), len(bad_hdr) > 0), (True, True))
    rx = [r for r in sfc_ro if r["dir"] == IN]
    expect("fragments the SFC received", [r["ebfarm.frag.seq"] + r["ebfarm.frag.source"]
                                          for r in rx],
           [r["ebfarm.frag.seq"] + r["ebfarm.frag.source"] for r in out])
    rej = summary["sfc"]["rx_reject"]
    expect("SFC rejects bad_checksum, bad_field",
           (rej["bad_checksum"], rej["bad_field"]),
           (len(bad_crc) - len(bad_hdr), len(bad_hdr)))
    # event -> the sources whose fragment went bad
    bad = {}
    for r in bad_crc:
        bad.setdefault(int(one(r, "ebfarm.frag.event_id")), set()).add(
            int(one(r, "ebfarm.frag.source")))
    return bad


def check_events(node_caps, bad):
    """Every event went out once, in frames of at most 2 pieces, complete
    or INCOMPLETE with exactly the corrupted sources missing."""
    seen = {}
    for k, rows in enumerate(node_caps):
        expect("node%d frame types received / sent" % k, (types(rows, IN), types(rows, OUT)),
               (["2"], ["3"]))
        for r in rows:
            if r["dir"] != IN:
                continue
            ev = int(one(r, "ebfarm.event.event_id"))
            seen.setdefault(ev, []).append((k, r))
    expect("events delivered", sorted(seen), list(range(EVENTS)))
    for ev, frames in sorted(seen.items()):
        missing = sorted(bad.get(ev, ()))
        n = SOURCES - len(missing)
        count = (n + 1) // 2
        want = [("%d" % SFC_ID, "%d" % SOURCES, "0x%04x" % (1 if missing else 0),
                 "1" if missing else "0", str(i), str(count), str(min(2, n - 2 * i)),
                 str(FRAG * n), "0x%016x" % sum(1 << s for s in range(SOURCES)
                                                if s not in missing),
                 ",".join(map(str, missing)), ["1"] * min(2, n - 2 * i), ["1"] if missing else [])
                for i in range(count)]
        got = [(one(r, "ebfarm.event.sfc_id"), one(r, "ebfarm.event.n_sources"),
                one(r, "ebfarm.event.flags"), one(r, "ebfarm.event.flags.incomplete"),
                one(r, "ebfarm.event.frame_index"), one(r, "ebfarm.event.frame_count"),
                one(r, "ebfarm.event.n_pieces"), one(r, "ebfarm.event.event_bytes"),
                one(r, "ebfarm.event.present0"), one(r, "ebfarm.event.missing") or "",
                r["ebfarm.frag.crc.status"], r["ebfarm.event.incomplete"])
               for _, r in frames]
        expect("event %d frames" % ev, got, want)
        expect("event %d went to one node" % ev, len({k for k, _ in frames}), 1)
        pieces = [(int(s), int(e)) for _, r in frames
                  for s, e in zip(r["ebfarm.frag.source"], r["ebfarm.frag.event_id"])]
        expect("event %d pieces (source, event)" % ev, sorted(pieces),
               [(s, ev) for s in range(SOURCES) if s not in missing])
    return {ev: frames[0][0] for ev, frames in seen.items()}


def check_credits(node_caps, sfc_node_caps, node_of, summary, metrics):
    """Each node's credit frames: its id, one epoch, sequence 0, 1, ...;
    first the grant of its credits, then acks of exactly the events it got."""
    for k, rows in enumerate(node_caps):
        out = [r for r in rows if r["dir"] == OUT]
        what = "node%d credit frames" % k
        expect(what + " node_id", {one(r, "ebfarm.credit.node_id") for r in out}, {str(k)})
        expect(what + " one epoch", len({one(r, "ebfarm.credit.epoch") for r in out}), 1)
        expect(what + " seq", [int(one(r, "ebfarm.credit.seq")) for r in out],
               list(range(len(out))))
        first = out[0]
        expect(what + " first (credits, n_acks)", (one(first, "ebfarm.credit.credits"),
                                                    one(first, "ebfarm.credit.n_acks")),
               (str(CREDITS), "0"))
        acked = [int(e) for r in out for e in r["ebfarm.ack.event_id"]]
        expect(what + " n_acks", sum(int(one(r, "ebfarm.credit.n_acks")) for r in out),
               len(acked))
        expect(what + " acked events", sorted(acked),
               sorted(ev for ev, n in node_of.items() if n == k))
        node = summary["nodes"][k]
        expect(what + " acks (events, accepted)",
               (len(acked), sum(d == "1" for r in out for d in r["ebfarm.ack.decision"])),
               (node["events"], node["accepted"]))
        expect(what + " ack status", {s for r in out for s in r["ebfarm.ack.status"]}, {"0x00"})
        expect(what + " credits granted", sum(int(one(r, "ebfarm.credit.credits")) for r in out),
               counter(metrics, "node%d" % k, "ebfarm_credits_granted_total"))
        expect(what + " expert info", [r for r in rows if r["_ws.expert"]
                                       and not r["ebfarm.event.incomplete"]], [])
        sfc_rx = [r for r in sfc_node_caps[k] if r["dir"] == IN]
        expect(what + " the SFC received (seq)", [one(r, "ebfarm.credit.seq") for r in sfc_rx],
               [one(r, "ebfarm.credit.seq") for r in out[:len(sfc_rx)]])
        expect("sfc0 node%d port frame types received / sent" % k,
               (types(sfc_node_caps[k], IN), types(sfc_node_caps[k], OUT)), (["3"], ["2"]))


def check_throttle(sfc_ro, ro, summary):
    """The SFC's throttle frames: its id, sequence 0, 1, ...; on at a fill of
    at least 750 per mille, off at most 500; as many transitions as counted."""
    out = [r for r in sfc_ro if r["dir"] == OUT]
    expect("SFC frame types received / sent on its readout port",
           (types(sfc_ro, IN), types(sfc_ro, OUT)), (["1"], ["4"]))
    expect("throttle frames", len(out), summary["sfc"]["throttle_frames"])
    expect("throttle sfc_id, reserved bytes",
           {(one(r, "ebfarm.throttle.sfc_id"), one(r, "ebfarm.throttle.reserved"),
             one(r, "ebfarm.throttle.reserved2")) for r in out},
           {(str(SFC_ID), "0x00", "0x00000000")})
    expect("throttle seq", [int(one(r, "ebfarm.throttle.seq")) for r in out],
           list(range(len(out))))
    on = [one(r, "ebfarm.throttle.on") for r in out]
    fill = [int(one(r, "ebfarm.throttle.fill")) for r in out]
    ons = [i for i in range(len(on)) if on[i] == "1" and (i == 0 or on[i - 1] == "0")]
    offs = [i for i in range(len(on)) if on[i] == "0"]
    expect("first throttle frame on", on[:1], ["1"])
    expect("throttle on / off transitions", (len(ons), len(offs)),
           (summary["sfc"]["throttle_on"], summary["sfc"]["throttle_off"]))
    expect("fill of the 'on' transitions >= 750", [fill[i] for i in ons if fill[i] < 750], [])
    expect("fill of the 'off' frames <= 500", [fill[i] for i in offs if fill[i] > 500], [])
    expect("throttle expert info", [r for r in out if r["_ws.expert"]], [])
    rx = [one(r, "ebfarm.throttle.seq") for r in ro if r["dir"] == IN]
    expect("throttle frames the readout received (seq)", rx,
           [one(r, "ebfarm.throttle.seq") for r in out[:len(rx)]])
    expect("readout throttle frames counted", len(rx), summary["readout"]["throttle_frames"])


def check_farm(summary, bad):
    """Nothing lost to the capture: only the injected faults show."""
    led = summary["ledger"]
    expect("ledger (generated, accepted + rejected, lost, closed)",
           (led["generated"], led["accepted"] + led["rejected"], led["lost_total"],
            led["closed"]), (EVENTS, EVENTS, 0, True))
    expect("incomplete events", led["incomplete"], len(bad))
    expect("readout tx refused", summary["readout"]["tx_refused"], 0)
    expect("SFC drops", {k: v for k, v in summary["sfc"]["rx_drop"].items() if v}, {})
    for node in summary["nodes"]:
        expect("%s rejects" % node["name"], {k: v for k, v in node["rx_reject"].items() if v},
               {})


def check_conform(build, pcap, bad, summary):
    """ebfarm conform on the readout's capture (docs/boards.md): it fails,
    naming the rules the injected faults broke: the corrupted payloads
    under crc, the corrupted headers under fragment_header (both refused
    before the sequence rule, so their source's next frame may show a gap
    there, as at the SFC), nothing else."""
    out = subprocess.run([os.path.join(build, "tools", "ebfarm"), "conform", pcap, "--json",
                          "--sources", str(SOURCES), "--sfc-mac", "02:eb:00:00:00:01"],
                         capture_output=True, text=True, check=False)
    expect("conform exit status", out.returncode, 1)
    try:
        rep = json.loads(out.stdout)
    except ValueError:
        failures.append("conform printed no JSON: %r %r" % (out.stdout[:200], out.stderr[:200]))
        return
    dev = {r["rule"]: r["deviations"] for r in rep["rules"] if r["deviations"]}
    header = summary["readout"]["fault_corrupted_header"]
    corrupted = sum(len(v) for v in bad.values())
    expect("conform verdict", rep["verdict"], "fail")
    expect("conform rules broken", set(dev) - {"sequence"},
           {"crc", "fragment_header"} if header else {"crc"})
    expect("conform crc + fragment_header deviations",
           dev.get("crc", 0) + dev.get("fragment_header", 0), corrupted)
    expect("conform fragment_header deviations", dev.get("fragment_header", 0), header)
    expect("conform throttle frames (not judged)", rep["throttle_frames"],
           summary["readout"]["throttle_frames"])


def conform_clean(build, tmp, huge):
    """The same farm without faults, its readout's port captured alone:
    ebfarm conform passes it, every fragment of the run checked."""
    os.makedirs(tmp)
    farm = Farm(tmp, build, huge, faults=False, ports=PORTS[:1])
    try:
        farm.up = True
        farm.cmd("up", "--no-start", farm.file)
        farm.start_capture()
        farm.cmd("start", "--farm", farm.name)
        farm.wait_finished()
        summary = json.loads(farm.cmd("stop", "--farm", farm.name, "--json"))
        farm.stop_capture()
    finally:
        farm.teardown()
    pcap = os.path.join(tmp, "%s-%s.pcapng" % PORTS[0][:2])
    out = subprocess.run([os.path.join(build, "tools", "ebfarm"), "conform", pcap, "--json",
                          "--sources", str(SOURCES), "--sfc-mac", "02:eb:00:00:00:01"],
                         capture_output=True, text=True, check=False)
    expect("conform exit status (no faults)", out.returncode, 0)
    try:
        rep = json.loads(out.stdout)
    except ValueError:
        failures.append("conform printed no JSON: %r %r" % (out.stdout[:200], out.stderr[:200]))
        return
    expect("conform verdict (no faults)", rep["verdict"], "pass")
    # FRAG bytes fit one frame: one fragment frame per source and event.
    expect("conform sources (no faults)", [(s["source"], s["frames"], s["events"], s["seq_gap"])
                                           for s in rep["sources"]],
           [(s, EVENTS, EVENTS, 0) for s in range(SOURCES)])
    expect("conform frames checked, throttle frames (no faults)",
           (rep["rules"][0]["checked"], rep["throttle_frames"]),
           (SOURCES * EVENTS, summary["readout"]["throttle_frames"]))
    print("the run without faults: ebfarm conform %s, %d fragment frames, %d throttle frames"
          % (rep["verdict"], rep["rules"][0]["checked"], rep["throttle_frames"]))


def run(src, build, tmp):
    lua = os.path.join(src, "tools", "wireshark", "ebfarm.lua")
    with Hugepages(tmp) as huge:
        farm = Farm(tmp, build, huge.dir)
        try:
            farm.up = True
            farm.cmd("up", "--no-start", farm.file)
            farm.start_capture()
            farm.cmd("start", "--farm", farm.name)
            farm.wait_finished()
            summary = json.loads(farm.cmd("stop", "--farm", farm.name, "--json"))
            report = farm.stop_capture()
            metrics = farm.metrics()
        finally:
            farm.teardown()
        caps = {p: dissect(lua, os.path.join(tmp, "%s-%s.pcapng" % p[:2])) for p in PORTS}
        ro_pcap = os.path.join(tmp, "%s-%s.pcapng" % PORTS[0][:2])
        conform_clean(build, os.path.join(tmp, "clean"), huge.dir)
        report = {p[:2]: report[os.path.join(tmp, "%s-%s" % p[:2])] for p in PORTS}
    check_counts(caps, report, metrics)
    ro, sfc_ro = caps[PORTS[0]], caps[PORTS[1]]
    bad = check_fragments(ro, sfc_ro, summary)
    node_caps = [caps[PORTS[4]], caps[PORTS[5]]]
    node_of = check_events(node_caps, bad)
    check_credits(node_caps, [caps[PORTS[2]], caps[PORTS[3]]], node_of, summary, metrics)
    check_throttle(sfc_ro, ro, summary)
    check_farm(summary, bad)
    check_conform(build, ro_pcap, bad, summary)
    print("the run: %d corrupted fragments (%d in the header), %d incomplete events, "
          "%d throttle frames (%d times on)"
          % (sum(len(v) for v in bad.values()), summary["readout"]["fault_corrupted_header"],
             len(bad), summary["sfc"]["throttle_frames"], summary["sfc"]["throttle_on"]))
    return {p: len(rows) for p, rows in caps.items()}


def main():
    if shutil.which("tshark") is None:
        print("test-capture: tshark is not installed (apt-get install tshark); skipped")
        return 77
    if shutil.which("dpdk-dumpcap") is None:
        print("test-capture: dpdk-dumpcap is not installed (apt-get install dpdk-dev)")
        return 1
    tmp = tempfile.mkdtemp(prefix="ebf-capture-")
    try:
        sizes = run(sys.argv[1], sys.argv[2], tmp)
    except Skip as e:
        print("test-capture: %s; skipped" % e)
        return 77
    except Exception as e:  # a set-up step failed: say which
        failures.append("%s: %s" % (type(e).__name__, e))
        sizes = {}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for (proc, port, _), n in sizes.items():
        print("captured %s %s: %d frames" % (proc, port, n))
    for f in failures:
        print("FAIL:", f)
    print("test-capture: %d checks failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
