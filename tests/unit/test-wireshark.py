#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-wireshark.py - the Wireshark dissector (tools/wireshark/ebfarm.lua) under tshark on frames of docs/protocol.md, good and malformed, field by field.
#
# The frames are written from the specification: the worked examples of
# section 9 byte for byte (their CRC32C 0x6ED26917 included), the other
# frame types from the tables of sections 5, 6 and 10, one malformed frame
# for each expert info, and frames a capture's snap length cut. The
# capture is a pcap file the test writes; the live capture of a farm is
# tests/farm/test-capture.py.
#
# Usage: test-wireshark.py SOURCE_ROOT. Exit 0: passed, 1: failed, 77:
# skipped because tshark is not installed.
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SPEC_FRAGMENT = bytes.fromhex(  # section 9: raw Ethernet, 70 bytes
    "020000000002020000000001 88b5"
    "0101 0002 00000007 0000000000001000 00000010 00000000 0010 0000 6ed26917"
    "000000003b9aca00 2d00048c8190874f 427c4e0b3b0abfed")
SPEC_UDP_HEADER = bytes.fromhex(  # section 9: the same fragment over UDP
    "020000000002020000000001 0800 4500 0054 0000 4000 4011 2697 0a000001 0a000002"
    "c549 c549 0040 0000")
SPEC_HEARTBEAT = bytes.fromhex("0103 0001 0000 0000 00000003 0000002a")
ETH = bytes.fromhex("020000000002020000000001 88b5")
FRAG = SPEC_FRAGMENT[14:]          # the 56 ebfarm bytes of the example


def event(n_sources, sfc, flags, ev, index, count, n_pieces, ev_bytes, present, pieces=b"",
          reserved=0):
    """An event frame header (section 5) followed by pieces."""
    return (struct.pack(">BBHHHQHHHHII", 1, 2, n_sources, sfc, flags, ev, index, count,
                        n_pieces, reserved, ev_bytes, 0)
            + struct.pack(">QQ", present & (2**64 - 1), present >> 64) + pieces)


def credit(node, credits, n_acks, epoch, seq, acks=()):
    """A credit frame (section 6): acks are (event_id, decision, status)."""
    out = struct.pack(">BBHHHII", 1, 3, node, credits, n_acks, epoch, seq)
    for ev, decision, status in acks:
        out += struct.pack(">QBBH", ev, decision, status, 0)
    return out


def throttle(sfc, on, fill, seq, reserved=0, reserved2=0):
    """A throttle frame (section 10)."""
    return struct.pack(">BBHBBHII", 1, 4, sfc, on, reserved, fill, seq, reserved2)


def release(place, flags, n_src, epoch, seq, low, at, records=(), reserved=0):
    """A release frame (section 13.2): records are (source, next_seq)."""
    out = struct.pack(">BBHBBHIQQI", 1, 5, place, flags, n_src, epoch, seq, low, at, reserved)
    for src, next_seq in records:
        out += struct.pack(">HHI", src, 0, next_seq)
    return out


def flip(data, at):
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


def with_u16(data, at, value):
    return data[:at] + struct.pack(">H", value) + data[at + 2:]


def crc32c(data):
    """CRC32C, bitwise (docs/protocol.md section 4)."""
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 & -(c & 1))
    return c ^ 0xFFFFFFFF


def frag_flags(frag, flags):
    """FRAG with its flags set and its CRC rewritten over them."""
    f = with_u16(frag, 26, flags)
    return f[:28] + struct.pack(">I", crc32c(f[:28] + f[32:])) + f[32:]


def udp_to(port, ebfarm_bytes):
    return with_u16(with_u16(SPEC_UDP_HEADER, 34, port), 36, port) + ebfarm_bytes

# (name, frame bytes, expected fields): one frame each, in this order.
# Values are as tshark prints them; "-" means the field must be absent.
CASES = [
    ("spec fragment, raw Ethernet", SPEC_FRAGMENT, {
        "ebfarm.version": "1", "ebfarm.type": "1", "ebfarm.frag.source": "2",
        "ebfarm.frag.seq": "7", "ebfarm.frag.event_id": "4096", "ebfarm.frag.frag_len": "16",
        "ebfarm.frag.offset": "0", "ebfarm.frag.piece_len": "16",
        "ebfarm.frag.flags": "0x0000", "ebfarm.frag.crc": "0x6ed26917",
        "ebfarm.frag.crc.calculated": "0x6ed26917", "ebfarm.frag.crc.status": "1",
        "ebfarm.frag.tx_ns": "1000000000",
        "ebfarm.frag.piece": "2d00048c8190874f427c4e0b3b0abfed", "_ws.expert": "-"}),
    ("spec fragment, UDP", SPEC_UDP_HEADER + FRAG, {
        "udp.dstport": "50505", "ebfarm.frag.source": "2", "ebfarm.frag.seq": "7",
        "ebfarm.frag.event_id": "4096", "ebfarm.frag.crc": "0x6ed26917",
        "ebfarm.frag.crc.status": "1", "_ws.expert": "-"}),
    ("spec heartbeat, padded to 60 bytes", ETH + SPEC_HEARTBEAT + bytes(30), {
        "ebfarm.type": "3", "ebfarm.credit.node_id": "1", "ebfarm.credit.credits": "0",
        "ebfarm.credit.n_acks": "0", "ebfarm.credit.epoch": "3", "ebfarm.credit.seq": "42",
        "ebfarm.credit.heartbeat": "1", "ebfarm.ack.event_id": "-", "_ws.expert": "-"}),
    ("piece byte flipped", flip(SPEC_FRAGMENT, 60), {
        "ebfarm.frag.crc": "0x6ed26917", "ebfarm.frag.crc.status": "0",
        "ebfarm.crc.bad": "1", "ebfarm.bad_field": "-"}),
    ("incomplete event with the spec fragment",
     ETH + event(3, 5, 1, 0x1000, 0, 1, 1, 16, 1 << 2, FRAG), {
         "ebfarm.type": "2,1", "ebfarm.event.n_sources": "3", "ebfarm.event.sfc_id": "5",
         "ebfarm.event.flags": "0x0001", "ebfarm.event.flags.incomplete": "1",
         "ebfarm.event.flags.reserved": "0x0000", "ebfarm.event.event_id": "4096",
         "ebfarm.event.frame_index": "0", "ebfarm.event.frame_count": "1",
         "ebfarm.event.n_pieces": "1", "ebfarm.event.reserved": "0x0000",
         "ebfarm.event.event_bytes": "16", "ebfarm.event.reserved2": "0x00000000",
         "ebfarm.event.present0": "0x0000000000000004",
         "ebfarm.event.present1": "0x0000000000000000", "ebfarm.event.present_count": "1",
         "ebfarm.event.missing": "0,1", "ebfarm.event.incomplete": "1",
         "ebfarm.frag.source": "2", "ebfarm.frag.crc.status": "1",
         "ebfarm.bad_field": "-", "ebfarm.crc.bad": "-"}),
    ("complete event of sources 0 and 127, two frames",
     ETH + event(128, 1, 0, 77, 1, 2, 0, 4096, 1 | (1 << 127)), {
         "ebfarm.event.present0": "0x0000000000000001",
         "ebfarm.event.present1": "0x8000000000000000", "ebfarm.event.present_count": "2",
         "ebfarm.event.flags.incomplete": "0", "ebfarm.event.frame_index": "1",
         "ebfarm.event.frame_count": "2", "ebfarm.event.missing": "-",
         "ebfarm.bad_field": "1"}),
    ("credit with two acks", ETH + credit(7, 2, 2, 9, 10, [(100, 1, 0), (101, 0, 0x05)]), {
        "ebfarm.credit.node_id": "7", "ebfarm.credit.credits": "2", "ebfarm.credit.n_acks": "2",
        "ebfarm.credit.epoch": "9", "ebfarm.credit.seq": "10", "ebfarm.credit.heartbeat": "0",
        "ebfarm.ack.event_id": "100,101", "ebfarm.ack.decision": "1,0",
        "ebfarm.ack.status": "0x00,0x05", "ebfarm.ack.status.bad_crc": "0,1",
        "ebfarm.ack.status.bad_pattern": "0,0", "ebfarm.ack.status.bad_sources": "0,1",
        "ebfarm.ack.status.bad_event_id": "0,0", "ebfarm.ack.reserved": "0x0000,0x0000",
        "_ws.expert": "-"}),
    ("throttle on", ETH + throttle(3, 1, 750, 0) + bytes(30), {
        "ebfarm.type": "4", "ebfarm.throttle.sfc_id": "3", "ebfarm.throttle.on": "1",
        "ebfarm.throttle.reserved": "0x00", "ebfarm.throttle.fill": "750",
        "ebfarm.throttle.seq": "0", "ebfarm.throttle.reserved2": "0x00000000",
        "_ws.expert": "-"}),
    ("fragment cut after 30 bytes", SPEC_FRAGMENT[:44], {
        "ebfarm.truncated": "1", "ebfarm.frag.source": "-"}),
    ("piece cut short", SPEC_FRAGMENT[:64], {
        "ebfarm.truncated": "1", "ebfarm.frag.source": "2", "ebfarm.frag.crc.status": "2",
        "ebfarm.crc.bad": "-"}),
    ("version 2", ETH + b"\x02" + FRAG[1:], {
        "ebfarm.version": "2", "ebfarm.bad_version": "1", "ebfarm.frag.source": "-"}),
    ("type 9", ETH + b"\x01\x09" + bytes(20), {
        "ebfarm.type": "9", "ebfarm.unknown_type": "1"}),
    ("piece_len 0", ETH + with_u16(FRAG, 24, 0), {
        "ebfarm.frag.piece_len": "0", "ebfarm.bad_length": "1"}),
    ("piece beyond frag_len", ETH + with_u16(FRAG, 20 + 2, 8), {
        "ebfarm.frag.offset": "8", "ebfarm.bad_length": "1"}),
    ("fragment flags 0x00ff", flip(SPEC_FRAGMENT, 14 + 27), {
        "ebfarm.frag.flags": "0x00ff", "ebfarm.bad_field": "1", "ebfarm.crc.bad": "1"}),
    ("fragment flag prebuilt", ETH + frag_flags(FRAG, 0x0001), {
        "ebfarm.frag.flags": "0x0001", "ebfarm.frag.flags.prebuilt": "1",
        "ebfarm.frag.flags.reserved": "0x0000", "ebfarm.frag.crc.status": "1",
        "_ws.expert": "-"}),
    ("fragment flag replay", ETH + frag_flags(FRAG, 0x0002), {
        "ebfarm.frag.flags": "0x0002", "ebfarm.frag.flags.prebuilt": "0",
        "ebfarm.frag.flags.replay": "1", "ebfarm.frag.flags.reserved": "0x0000",
        "ebfarm.frag.crc.status": "1", "_ws.expert": "-"}),
    ("fragment flag 0x0004", ETH + frag_flags(FRAG, 0x0004), {
        "ebfarm.frag.flags": "0x0004", "ebfarm.frag.flags.replay": "0",
        "ebfarm.frag.flags.reserved": "0x0001", "ebfarm.bad_field": "1",
        "ebfarm.frag.crc.status": "1"}),
    ("release with 2 source records",
     ETH + release(1, 0, 2, 7, 300, 123456, 0, [(4, 1000), (5, 2000)]), {
         "ebfarm.type": "5", "ebfarm.release.place": "1", "ebfarm.release.flags": "0x00",
         "ebfarm.release.n_src": "2", "ebfarm.release.epoch": "7", "ebfarm.release.seq": "300",
         "ebfarm.release.low": "123456", "ebfarm.release.at": "0",
         "ebfarm.release.source": "4,5", "ebfarm.release.next_seq": "1000,2000",
         "_ws.expert": "-"}),
    ("release join at 200000", ETH + release(0, 1, 0, 2, 0, 5, 200000) + bytes(14), {
         "ebfarm.release.flags.join": "1", "ebfarm.release.flags.leave": "0",
         "ebfarm.release.at": "200000", "_ws.expert": "-"}),
    ("release join and leave, at without a flag's meaning, reserved set",
     ETH + release(0, 3, 0, 2, 0, 5, 9, reserved=1) + bytes(14), {
         "ebfarm.release.flags": "0x03", "ebfarm.bad_field": "1,1"}),
    ("replay end of place 2 from id 4096, one source",
     ETH + release(2, 8, 1, 1, 0, 4096, 4095, [(4, 77)]) + bytes(6), {
         "ebfarm.release.flags.end": "1", "ebfarm.release.flags.dead": "0",
         "ebfarm.release.low": "4096", "ebfarm.release.at": "4095",
         "ebfarm.release.source": "4", "ebfarm.release.next_seq": "77", "_ws.expert": "-"}),
    ("replay end without a record", ETH + release(2, 8, 0, 1, 0, 4096, 0) + bytes(14), {
         "ebfarm.release.flags.end": "1", "ebfarm.bad_field": "1"}),
    ("replay end with the join flag", ETH + release(2, 9, 1, 1, 0, 4096, 0, [(4, 77)])
     + bytes(6), {"ebfarm.release.flags": "0x09", "ebfarm.bad_field": "1"}),
    ("release at without a flag", ETH + release(0, 0, 0, 2, 0, 5, 9) + bytes(14), {
         "ebfarm.release.at": "9", "ebfarm.bad_field": "1"}),
    ("release with 33 source records", ETH + release(0, 0, 33, 2, 0, 5, 0) + bytes(40), {
         "ebfarm.release.n_src": "33", "ebfarm.bad_length": "1"}),
    ("release cut inside its records", ETH + release(0, 0, 3, 2, 0, 5, 0, [(1, 2)]), {
         "ebfarm.release.n_src": "3", "ebfarm.truncated": "1", "ebfarm.release.source": "-"}),
    ("credit with 65 acks", ETH + credit(1, 0, 65, 3, 42) + bytes(40), {
        "ebfarm.credit.n_acks": "65", "ebfarm.bad_length": "1"}),
    ("credit cut inside its acks", ETH + credit(1, 1, 2, 3, 42, [(5, 1, 0)]), {
        "ebfarm.credit.n_acks": "2", "ebfarm.truncated": "1", "ebfarm.ack.event_id": "-"}),
    ("ack decision 2", ETH + credit(1, 1, 1, 3, 42, [(5, 2, 0)]), {
        "ebfarm.ack.decision": "2", "ebfarm.bad_field": "1"}),
    ("throttle on=2, reserved bytes set", ETH + throttle(3, 2, 10, 1, 1, 7), {
        "ebfarm.throttle.on": "2", "ebfarm.bad_field": "1,1,1"}),
    ("event with a present bit above n_sources", ETH + event(2, 0, 1, 9, 0, 1, 0, 0, 1 << 5), {
        "ebfarm.event.present_count": "1", "ebfarm.bad_source": "1"}),
    ("event flag 0x0002 and frame 1 of 1", ETH + event(1, 0, 3, 9, 1, 1, 0, 0, 1), {
        "ebfarm.event.flags.reserved": "0x0001", "ebfarm.bad_field": "1,1"}),
    ("event with 2 pieces announced, 1 present",
     ETH + event(3, 5, 1, 0x1000, 0, 1, 2, 16, 1 << 2, FRAG), {
         "ebfarm.event.n_pieces": "2", "ebfarm.frag.source": "2", "ebfarm.truncated": "1"}),
    ("event with a piece of another event",
     ETH + event(3, 5, 1, 0x1001, 0, 1, 1, 16, 1 << 2, FRAG), {
         "ebfarm.event.event_id": "4097", "ebfarm.frag.event_id": "4096",
         "ebfarm.piece.mismatch": "1"}),
    ("event piece with a bad CRC",
     ETH + event(3, 5, 1, 0x1000, 0, 1, 1, 16, 1 << 2, flip(FRAG, 50)), {
         "ebfarm.frag.crc.status": "0", "ebfarm.crc.bad": "1"}),
    ("piece cut by the snap length", (SPEC_FRAGMENT[:64], 70), {
        "ebfarm.snapped": "1", "ebfarm.truncated": "-", "ebfarm.frag.source": "2",
        "ebfarm.frag.crc.status": "2"}),
    ("event header cut by the snap length", (ETH + event(3, 5, 0, 1, 0, 1, 0, 0, 7)[:30], 62),
     {"ebfarm.snapped": "1", "ebfarm.truncated": "-", "ebfarm.event.n_sources": "-"}),
    ("fragment to UDP port 4000", udp_to(4000, FRAG), {
        "udp.dstport": "4000", "ebfarm.type": "-"}),
    ("fragment with a bad CRC to UDP port 4001", udp_to(4001, flip(FRAG, 50)), {
        "udp.dstport": "4001", "ebfarm.type": "-"}),
]

# The same capture with other preferences: the port moved to 4000 (the
# frame to 50505 is not ebfarm any more), and the heuristic on, which
# takes the fragment to port 4000 (its CRC is good) but not the one to
# port 4001.
N = len(CASES)
PREFS = [
    (["ebfarm.udp_port:4000"], {2: {"ebfarm.type": "-"},
                                N - 1: {"ebfarm.type": "1", "ebfarm.frag.crc.status": "1"}}),
    (["ebfarm.heuristic:TRUE"], {2: {"ebfarm.type": "1"},
                                 N - 1: {"ebfarm.type": "1", "ebfarm.frag.source": "2"},
                                 N: {"ebfarm.type": "-"}}),
]

failures = []


def write_pcap(path, frames):
    """A pcap of Ethernet frames: bytes, or (captured bytes, length on the wire)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, frame in enumerate(frames):
            frame, wire = frame if isinstance(frame, tuple) else (frame, len(frame))
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(frame), wire))
            f.write(frame)


def tshark_fields(lua, pcap, fields, prefs=()):
    """One dict field -> value per frame ("-" for an absent field)."""
    cmd = ["tshark", "-n", "-X", "lua_script:" + lua, "-r", pcap, "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for p in prefs:
        cmd += ["-o", p]
    for name in fields:
        cmd += ["-e", name]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0 or "Lua: Error" in out.stderr:
        failures.append("tshark failed (%d): %s" % (out.returncode, out.stderr.strip()))
        return []
    rows = []
    for line in out.stdout.splitlines():
        values = [v or "-" for v in line.split("\t")]
        values = [{"True": "1", "False": "0"}.get(v, v) for v in values]
        rows.append(dict(zip(fields, values)))
    return rows


def check(rows, expected, label):
    for number, want in expected.items():
        if number > len(rows):
            failures.append("%s frame %d: missing (tshark printed %d frames)"
                            % (label, number, len(rows)))
            continue
        row = rows[number - 1]
        for field, value in want.items():
            if row.get(field) != value:
                failures.append("%s frame %d (%s): %s is %r, expected %r"
                                % (label, number, CASES[number - 1][0], field, row.get(field),
                                   value))


# The test vectors (tests/vectors, docs/protocol.md): what the dissector
# shows of each by the parser's reason. The dissector judges a frame alone:
# it knows neither the farm's sources nor the MTU nor the SFC's MAC, so a
# frame the parser takes (ok, and bad_source of a farm of 8) shows no
# expert info; the IP and UDP checks are Wireshark's own: not checked here.
VECTOR_SHOWS = {
    "ok": {"ebfarm.type": "1", "_ws.expert": "-"},
    "bad_source": {"ebfarm.type": "1", "_ws.expert": "-"},
    "bad_version": {"ebfarm.bad_version": "1"},
    "unknown_type": {"ebfarm.unknown_type": "1"},
    "truncated": {"ebfarm.truncated": "1"},
    "bad_length": {"ebfarm.bad_length": "1"},
    "bad_field": {"ebfarm.bad_field": "1"},
    "bad_checksum": {"ebfarm.crc.bad": "1"},
}
VECTOR_WRONG_TYPE = {"ebfarm.type": "4", "_ws.expert": "-"}  # a good throttle frame


def read_vectors(root):
    """(name, bytes, parser reason, SFC counter) of tests/vectors/index.txt."""
    out = []
    vdir = os.path.join(root, "tests", "vectors")
    with open(os.path.join(vdir, "index.txt")) as idx:
        for line in idx:
            if line.startswith("#"):
                continue
            name, reason, counter = line.split()
            data = b""
            with open(os.path.join(vdir, name + ".hex")) as f:
                for row in f:
                    if not row.startswith("#") and row.strip():
                        data += bytes.fromhex("".join(row.split()[1:]))
            out.append((name, data, reason, counter))
    return out


def check_vectors(lua, tmp, root):
    vectors = read_vectors(root)
    pcap = os.path.join(tmp, "vectors.pcap")
    write_pcap(pcap, [data for _, data, _, _ in vectors])
    fields = sorted({k for v in VECTOR_SHOWS.values() for k in v} | {"ebfarm.type"})
    rows = tshark_fields(lua, pcap, fields)
    checked = 0
    for i, (name, _, reason, counter) in enumerate(vectors):
        want = VECTOR_WRONG_TYPE if counter == "rx.drop.wrong_type" else VECTOR_SHOWS.get(reason)
        if want is None:
            continue
        checked += 1
        row = rows[i] if i < len(rows) else {}
        for field, value in want.items():
            if row.get(field) != value:
                failures.append("vector %s (%s): %s is %r, expected %r"
                                % (name, reason, field, row.get(field), value))
    return checked


def main():
    if shutil.which("tshark") is None:
        print("test-wireshark: tshark is not installed (apt-get install tshark); skipped")
        return 77
    lua = os.path.join(sys.argv[1], "tools", "wireshark", "ebfarm.lua")
    fields = sorted({k for _, _, want in CASES for k in want} | {"ebfarm.type"})
    with tempfile.TemporaryDirectory(prefix="ebf-wireshark-") as tmp:
        pcap = os.path.join(tmp, "frames.pcap")
        write_pcap(pcap, [frame for _, frame, _ in CASES])
        rows = tshark_fields(lua, pcap, fields)
        check(rows, {i + 1: want for i, (_, _, want) in enumerate(CASES)}, "default")
        for prefs, expected in PREFS:
            rows = tshark_fields(lua, pcap, fields, prefs)
            check(rows, expected, " ".join(prefs))
        vectors = check_vectors(lua, tmp, sys.argv[1])
    for f in failures:
        print("FAIL:", f)
    print("test-wireshark: %d frames and %d test vectors, %d checks failed"
          % (len(CASES), vectors, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
