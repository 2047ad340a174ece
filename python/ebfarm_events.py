# SPDX-License-Identifier: BSD-3-Clause
"""ebfarm_events - a pure-Python reader of ebfarm's event storage files (docs/storage.md).

Trigger nodes started with --store DIR write every accepted event to files
run<RUN>-sfc<NN>-node<NN>-s<STREAM>-<SEQ>.ebfev. This module reads them with the
standard library alone; numpy, when installed, gives fragments as arrays.

    import ebfarm_events as ev
    for e in ev.read_events(["run000001-sfc00-node00-s0-000000.ebfev"]):
        print(e.event_id, e.missing, {s: len(b) for s, b in e.fragments.items()})

    f = ev.EventFile(path)      # the header, the trailer's index, the records
    f.header["run"], f.complete, f.truncated, f.index[:3]

As a program: python3 ebfarm_events.py stats [--json] [--no-crc] FILE...
prints what `ebfarm events stats` prints (the same JSON with --json).
"""

import json
import mmap
import struct
import sys

try:  # optional
    import numpy as _np
except ImportError:  # pragma: no cover - numpy is optional
    _np = None

MAGIC = b"EBFARMEV"
VERSION = 1
HDR_LEN = 80
REC_MAGIC = 0x43525645  # "EVRC"
REC_HLEN = 40
REC_MIN = REC_HLEN + 4
REC_MAX = 64 << 20
TRL_MAGIC = 0x52545645  # "EVTR"
FOOT_MAGIC = 0x444E5645  # "EVND"
FLAG_INCOMPLETE = 0x0001
# replayed after an SFC's death, or redispatched from a node declared dead:
# maybe a second copy
FLAG_REPLAYED = 0x0002

_HDR = struct.Struct("<8sHHIHHIQ44sI")
_REC = struct.Struct("<IIQHHHHQQ")
_FRAG = struct.Struct("<HHI")


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data, crc=0):
    """CRC32C (Castagnoli) of data, continuing from crc: crc32c(b"123456789") == 0xE3069283."""
    c = crc ^ 0xFFFFFFFF
    t = _TABLE
    for b in bytes(data):
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


class FormatError(Exception):
    """The file breaks docs/storage.md; the message says what and where."""


class Event:
    """One stored event: id, flags, sources, and each present source's fragment bytes."""

    __slots__ = ("event_id", "flags", "n_sources", "present", "fragments", "stream", "offset",
                 "length")

    def __init__(self, event_id, flags, n_sources, present, fragments, stream, offset, length):
        self.event_id = event_id
        self.flags = flags
        self.n_sources = n_sources
        self.present = present  # a 128-bit int: bit s set when source s has a fragment
        self.fragments = fragments  # {source: bytes}
        self.stream = stream
        self.offset = offset  # of the record in its file
        self.length = length  # of the record, in bytes

    @property
    def incomplete(self):
        return bool(self.flags & FLAG_INCOMPLETE)

    @property
    def replayed(self):
        return bool(self.flags & FLAG_REPLAYED)

    @property
    def missing(self):
        """The sources below n_sources with no fragment."""
        return [s for s in range(self.n_sources) if not self.present >> s & 1]

    def array(self, source, dtype="<u4"):
        """A source's fragment as a numpy array (numpy must be installed)."""
        if _np is None:
            raise RuntimeError("numpy is not installed; use event.fragments[source] (bytes)")
        b = self.fragments[source]
        n = len(b) // _np.dtype(dtype).itemsize
        return _np.frombuffer(b, dtype=dtype, count=n)


class EventFile:
    """One storage file: header, index (when the file is whole), records.

    complete: the trailer is there and sound; truncated: the records end in
    a cut (set once iterated); problems: messages of records skipped (bad
    CRC) or where reading stopped.
    """

    def __init__(self, path, check_crc=True):
        self.path = path
        self.check_crc = check_crc
        with open(path, "rb") as fp:
            try:
                self._map = mmap.mmap(fp.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:  # an empty file
                self._map = b""
        self.size = len(self._map)
        self.header = self._header()
        self.index = []
        self.trailer_error = None
        self.end = self.size
        self.complete = self._trailer()
        self.truncated = False
        self.problems = []

    def _header(self):
        m = self._map
        if self.size >= 8 and m[:8] != MAGIC:
            raise FormatError('%s: not an ebfarm event file: its first 8 bytes are not "EBFARMEV"'
                              % self.path)
        if self.size < HDR_LEN:
            raise FormatError("%s: file header cut short: %d of %d bytes"
                              % (self.path, self.size, HDR_LEN))
        (_, version, hlen, run, node, stream, seq, time_ns, farm, crc) = _HDR.unpack_from(m, 0)
        if version != VERSION:
            raise FormatError("%s: file header: format version %d (this reader knows version %d)"
                              % (self.path, version, VERSION))
        if hlen != HDR_LEN:
            raise FormatError("%s: file header: length %d (version 1 has %d)"
                              % (self.path, hlen, HDR_LEN))
        if crc32c(m[:76]) != crc:
            raise FormatError("%s: file header: bad CRC32C" % self.path)
        return {"version": version, "run": run, "node": node, "stream": stream, "seq": seq,
                "time_ns": time_ns, "farm": farm.rstrip(b"\0").decode("ascii", "replace")}

    def _trailer(self):
        m, size = self._map, self.size
        if size < HDR_LEN + 40 or struct.unpack_from("<I", m, size - 4)[0] != FOOT_MAGIC:
            self.trailer_error = "no trailer: the file was cut short"
            return False
        off, crc = struct.unpack_from("<QI", m, size - 16)
        if off < HDR_LEN or off > size - 40:
            self.trailer_error = "trailer offset %d outside %d..%d" % (off, HDR_LEN, size - 40)
            return False
        magic, _, n, record_bytes = struct.unpack_from("<IIQQ", m, off)
        if magic != TRL_MAGIC or 24 + 16 * n + 16 != size - off:
            self.trailer_error = "trailer at %d: bad magic or length" % off
            return False
        if self.check_crc and crc32c(m[off:size - 8]) != crc:
            self.trailer_error = "trailer CRC32C mismatch"
            return False
        if record_bytes != off - HDR_LEN:
            self.trailer_error = "trailer counts %d record bytes, the file holds %d" % (
                record_bytes, off - HDR_LEN)
            return False
        self.index = [struct.unpack_from("<QQ", m, off + 24 + 16 * i) for i in range(n)]
        self.end = off
        return True

    def _record(self, at):
        """(Event, length), or raise FormatError; returns None when cut short."""
        m, left = self._map, self.end - at
        if left < 8:
            return None
        magic, length = struct.unpack_from("<II", m, at)
        if magic != REC_MAGIC:
            if not self.complete and magic == TRL_MAGIC:
                return None  # the trailer began, and was cut
            raise FormatError("record at offset %d: record magic 0x%08x" % (at, magic))
        if length < REC_MIN or length > REC_MAX:
            raise FormatError("record at offset %d: record length %d outside %d..%d"
                              % (at, length, REC_MIN, REC_MAX))
        if length > left:
            return None
        (_, _, eid, flags, n_sources, n_frags, _, p0, p1) = _REC.unpack_from(m, at)
        if self.check_crc:
            (want,) = struct.unpack_from("<I", m, at + length - 4)
            if crc32c(m[at:at + length - 4]) != want:
                raise _BadCrc("record at offset %d: event %d: bad CRC32C" % (at, eid), length)
        present, frags, pos, end = p0 | p1 << 64, {}, at + REC_HLEN, at + length - 4
        for _ in range(n_frags):
            source, _, flen = _FRAG.unpack_from(m, pos)
            pos += 8
            if pos + flen > end or not present >> source & 1:
                raise FormatError("record at offset %d: event %d: bad fragment of source %d"
                                  % (at, eid, source))
            frags[source] = bytes(m[pos:pos + flen])
            pos += flen
        if pos != end:
            raise FormatError("record at offset %d: event %d: fragments do not fill it" % (at, eid))
        return Event(eid, flags, n_sources, present, frags, self.header["stream"], at,
                     length), length

    def __iter__(self):
        at = HDR_LEN
        while at < self.end:
            try:
                got = self._record(at)
            except _BadCrc as e:
                self.problems.append(str(e))
                at += e.length
                continue
            except FormatError as e:
                self.problems.append(str(e))
                return
            if got is None:
                self.truncated = True
                self.problems.append("cut short at offset %d" % at)
                return
            yield got[0]
            at += got[1]


class _BadCrc(FormatError):
    def __init__(self, msg, length):
        super().__init__(msg)
        self.length = length


def read_events(paths, check_crc=True):
    """Every readable event of every file, in file order."""
    for p in paths:
        yield from EventFile(p, check_crc)


def _keep(copies):
    """Which of an id's copies [(order, replayed), ...] is kept: the first
    not marked replayed, else the first (docs/storage.md, "Copies")."""
    for c in copies:
        if not c[1]:
            return c[0]
    return copies[0][0]


def copies(events):
    """The copies of ids among events, as `ebfarm events stats --json` counts
    them: records marked replayed, distinct ids, replayed copies dropped,
    and copies stored twice unmarked (an error: neither was replayed)."""
    return _copies((e.event_id, e.replayed) for e in events)


def _copies(pairs):
    seen = {}
    replayed = 0
    for eid, rep in pairs:
        replayed += rep
        seen.setdefault(eid, []).append(rep)
    dropped = unmarked = 0
    for flags in seen.values():
        m = flags.count(False)
        unmarked += m - 1 if m > 1 else 0
        dropped += len(flags) - max(m, 1)
    return {"replayed": replayed, "distinct_events": len(seen), "dropped_copies": dropped,
            "unmarked_copies": unmarked}


def unique_events(paths, check_crc=True, said=None):
    """Every readable event once: an id stored again by a second node after
    an SFC's death is yielded once (its copy not marked replayed, else the
    first); the copies dropped are counted in said["dropped_copies"] when
    said is a dict, and copies of an id stored twice unmarked (neither
    replayed) in said["unmarked_copies"] (those are yielded: not explained)."""
    ids = {}
    for i, e in enumerate(read_events(paths, check_crc)):
        ids.setdefault(e.event_id, []).append((i, e.replayed))
    keep = set()
    dropped = unmarked = 0
    for c in ids.values():
        m = [o for o, r in c if not r]
        if len(m) > 1:
            keep.update(m)
            unmarked += len(m) - 1
        else:
            keep.add(_keep(c))
        dropped += len(c) - max(len(m), 1)
    if said is not None:
        said["dropped_copies"] = dropped
        said["unmarked_copies"] = unmarked
    for i, e in enumerate(read_events(paths, check_crc)):
        if i in keep:
            yield e


def stats(paths, check_crc=True):
    """The counts of `ebfarm events stats --json`, as a dict."""
    st = {"files": 0, "whole": 0, "cut_short": 0, "damaged": 0, "events": 0, "incomplete": 0,
          "record_bytes": 0, "payload_bytes": 0, "streams": {}, "sources": {}}
    seen = []
    for p in paths:
        try:
            f = EventFile(p, check_crc)
        except (FormatError, OSError) as e:
            sys.stderr.write("ebfarm_events: %s\n" % (e if isinstance(e, FormatError) else
                                                      "%s: %s" % (p, e.strerror)))
            st["damaged"] += 1
            continue
        st["files"] += 1
        for e in f:
            seen.append((e.event_id, e.replayed))
            st["events"] += 1
            st["incomplete"] += e.incomplete
            st["record_bytes"] += e.length
            key = str(e.stream)
            st["streams"][key] = st["streams"].get(key, 0) + 1
            for s in range(e.n_sources):
                src = st["sources"].setdefault(str(s), {"present": 0, "missing": 0, "bytes": 0})
                if e.present >> s & 1:
                    src["present"] += 1
                    src["bytes"] += len(e.fragments[s])
                    st["payload_bytes"] += len(e.fragments[s])
                else:
                    src["missing"] += 1
        damaged = any(not m.startswith("cut short") for m in f.problems)
        st["cut_short"] += f.truncated or (not f.complete and f.trailer_error.startswith("no trailer"))
        st["damaged"] += damaged
        st["whole"] += f.complete and not f.truncated and not damaged
    st.update(_copies(seen))
    st["sources"] = {k: st["sources"][k] for k in sorted(st["sources"], key=int)}
    st["streams"] = {k: st["streams"][k] for k in sorted(st["streams"], key=int)}
    return st


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    opts = [a for a in argv[1:] if a.startswith("--")]
    if not args or args[0] != "stats" or len(args) < 2 or set(opts) - {"--json", "--no-crc"}:
        sys.stderr.write("usage: ebfarm_events.py stats [--json] [--no-crc] FILE...\n")
        return 2
    st = stats(args[1:], "--no-crc" not in opts)
    if "--json" in opts:
        print(json.dumps(st))
    else:
        if st["replayed"] or st["distinct_events"] != st["events"]:
            line = ("replayed %d records; events %d once each: %d replayed copies dropped" % (
                st["replayed"], st["distinct_events"], st["dropped_copies"]))
            if st["unmarked_copies"]:
                line += ", %d copies stored twice unmarked" % st["unmarked_copies"]
            print(line)
        print("files %d (%d whole, %d cut short, %d damaged)" % (
            st["files"], st["whole"], st["cut_short"], st["damaged"]))
        print("events %d (%d incomplete), record bytes %d, payload bytes %d" % (
            st["events"], st["incomplete"], st["record_bytes"], st["payload_bytes"]))
        print("by stream: " + " ".join("%s %d" % kv for kv in st["streams"].items()))
    return 0 if st["damaged"] == 0 and st["cut_short"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
