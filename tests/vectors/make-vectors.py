#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# make-vectors.py - writes the byte-exact test frames of docs/protocol.md (tests/vectors/*.hex and index.txt), good and bad, raw Ethernet and UDP.
#
# Run from anywhere: python3 tests/vectors/make-vectors.py. The files are
# committed; this script is how they were made and how a new one is added.
# Every frame goes to the SFC's readout port of a farm of 8 sources at MTU
# 1500, from 02:00:00:00:00:01 to the SFC at 02:00:00:00:00:02; the
# expected parser reason (ebf_parse_l2l3, then ebf_frag_parse with 8
# sources and the CRC checked) and the SFC counter (docs/protocol.md,
# section 4.3) are in index.txt.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
DST = bytes.fromhex("020000000002")
SRC = bytes.fromhex("020000000001")


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def frag(source=2, seq=7, event=0x1000, frag_len=None, offset=0, piece=None, flags=0,
         tx_ns=1000000000, version=1, ftype=1, crc=None, payload=None):
    """A fragment header (section 4) and its piece, the CRC32C computed."""
    if payload is None:
        payload = bytes(i & 0xFF for i in range(16))
    piece = len(payload) if piece is None else piece
    frag_len = offset + piece if frag_len is None else frag_len
    head = struct.pack(">BBHIQIIHH", version, ftype, source, seq, event, frag_len, offset,
                       piece, flags)
    tail = struct.pack(">Q", tx_ns)
    c = crc32c(payload, crc32c(tail, crc32c(head))) if crc is None else crc
    return head + struct.pack(">I", c) + tail + payload


def eth(body, dst=DST, etype=0x88B5, vlan=False):
    tag = bytes.fromhex("8100 0005") if vlan else b""
    return dst + SRC + tag + struct.pack(">H", etype) + body


def ip_checksum(h):
    s = sum(struct.unpack(">10H", h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def udp(body, port=50505, udp_len=None, udp_sum=0, frag_off=0x4000, bad_ip_sum=False):
    total = 20 + 8 + len(body)
    h = struct.pack(">BBHHHBBH4s4s", 0x45, 0, total, 0, frag_off, 64, 17, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    c = ip_checksum(h) ^ (0x0101 if bad_ip_sum else 0)
    h = h[:10] + struct.pack(">H", c) + h[12:]
    u = struct.pack(">HHHH", port, port, 8 + len(body) if udp_len is None else udp_len, udp_sum)
    return eth(h + u + body, etype=0x0800)


def pad(frame):
    """Ethernet pads to 60 bytes before the FCS."""
    return frame + bytes(max(0, 60 - len(frame)))


PATTERN = bytes.fromhex("2d00048c8190874f427c4e0b3b0abfed")  # section 9's payload
GOOD = frag(payload=PATTERN)
THROTTLE = struct.pack(">BBHBBHII", 1, 4, 0, 1, 0, 750, 1, 0)

# name, frame, parser reason, SFC counter, what it shows
VECTORS = [
    ("good-eth", eth(GOOD), "ok", "accepted", "section 9's example, raw Ethernet"),
    ("good-udp", udp(GOOD), "ok", "accepted", "the same over UDP, checksum 0"),
    ("good-vlan", eth(GOOD, vlan=True), "ok", "accepted", "one 802.1Q tag"),
    ("good-udp-checksum", udp(GOOD, udp_sum=0x1234), "ok", "accepted",
     "a wrong nonzero UDP checksum: not checked"),
    ("good-piece-1412", eth(frag(payload=bytes(1412))), "ok", "accepted",
     "the largest piece at MTU 1500: 1500 - 88"),
    ("good-udp-piece-1412", udp(frag(payload=bytes(1412))), "ok", "accepted",
     "the largest piece over UDP too (1480-byte IP packet)"),
    ("oversize-piece-1413", eth(frag(payload=bytes(1413))), "ok", "rx.drop.oversize",
     "a piece one byte past MTU - 88"),
    ("oversize-piece-1460", eth(frag(payload=bytes(1460))), "ok", "rx.drop.oversize",
     "a 1500-byte frame whose piece an event frame could not carry"),
    ("not-unicast", eth(GOOD, dst=bytes.fromhex("ffffffffffff")), "ok", "rx.drop.not_unicast",
     "to the broadcast address"),
    ("not-for-us", eth(GOOD, dst=bytes.fromhex("020000000003")), "ok", "rx.drop.not_for_us",
     "to another unicast MAC"),
    ("wrong-type-throttle", pad(eth(THROTTLE)), "bad_field", "rx.drop.wrong_type",
     "a throttle frame (type 4) on the readout port"),
    ("unknown-type", pad(eth(frag(ftype=9))), "unknown_type", "rx.reject.unknown_type",
     "type byte 9"),
    ("bad-version", eth(frag(version=2)), "bad_version", "rx.reject.bad_version",
     "version byte 2"),
    ("truncated", pad(eth(GOOD[:30])), "truncated", "rx.reject.truncated",
     "a fragment header cut at 30 bytes (Ethernet padding after)"),
    ("piece-len-0", pad(eth(frag(payload=b"", frag_len=16))), "bad_length",
     "rx.reject.bad_length", "piece_len 0"),
    ("piece-past-frag-len", eth(frag(frag_len=8)), "bad_length", "rx.reject.bad_length",
     "offset + piece_len > frag_len"),
    ("bad-flags", eth(frag(flags=0x8000)), "bad_field", "rx.reject.bad_field",
     "a reserved flag bit set"),
    ("bad-source", eth(frag(source=8)), "bad_source", "rx.reject.bad_source",
     "source 8 of a farm of 8 sources"),
    ("bad-crc", eth(frag(payload=PATTERN, crc=0x6ED26918)), "bad_checksum",
     "rx.reject.bad_checksum", "section 9's frame with its CRC's last bit flipped"),
    ("not-ebfarm-arp", pad(eth(bytes(28), etype=0x0806)), "not_ebfarm", "rx.reject.not_ebfarm",
     "EtherType 0x0806"),
    ("udp-wrong-port", udp(GOOD, port=50506), "not_ebfarm", "rx.reject.not_ebfarm",
     "UDP port 50506"),
    ("udp-bad-ip-checksum", udp(GOOD, bad_ip_sum=True), "bad_ip_checksum",
     "rx.reject.bad_ip_checksum", "IPv4 header checksum wrong"),
    ("udp-bad-udp-length", udp(GOOD, udp_len=60), "bad_udp_length", "rx.reject.bad_udp_length",
     "UDP length not IP total length - 20"),
    ("udp-ip-fragment", udp(GOOD, frag_off=0x2000), "bad_ip_header", "rx.reject.bad_ip_header",
     "IP MF set: an IP fragment"),
]


def write_hex(path, frame, what):
    with open(path, "w") as f:
        f.write(f"# {what}\n# {len(frame)} bytes before the FCS\n")
        for i in range(0, len(frame), 16):
            f.write(f"{i:04x}  " + " ".join(f"{b:02x}" for b in frame[i:i + 16]) + "\n")


def main():
    with open(os.path.join(HERE, "index.txt"), "w") as idx:
        idx.write("# name  parser-reason  sfc-counter  (docs/protocol.md, 4.3; "
                  "tests/vectors/make-vectors.py)\n")
        for name, frame, reason, counter, what in VECTORS:
            write_hex(os.path.join(HERE, name + ".hex"), frame, what)
            idx.write(f"{name} {reason} {counter}\n")


if __name__ == "__main__":
    main()
