# SPDX-License-Identifier: BSD-3-Clause
"""example.py - open a run's event files and look at them: counts, missing sources, a sum per source.

    python3 python/example.py DIR/*.ebfev

Works with the standard library alone; with numpy it also prints the mean
of each source's first 32-bit little-endian word, as a notebook would.
"""

import sys

import ebfarm_events as ev


def main(paths):
    events, incomplete, missing, words = 0, 0, {}, {}
    for f in (ev.EventFile(p) for p in paths):
        h = f.header
        print("%s: run %d node %d stream %d file %d, %s, %d events indexed"
              % (f.path, h["run"], h["node"], h["stream"], h["seq"],
                 "whole" if f.complete else "cut short (" + f.trailer_error + ")", len(f.index)))
        for e in f:
            events += 1
            incomplete += e.incomplete
            for s in e.missing:
                missing[s] = missing.get(s, 0) + 1
            for s, b in e.fragments.items():
                if len(b) >= 4:
                    words.setdefault(s, []).append(int.from_bytes(b[:4], "little"))
        for p in f.problems:
            print("  " + p)
    print("events %d, incomplete %d, missing by source %s" % (events, incomplete, missing or "none"))
    if ev._np is not None and words:
        for s in sorted(words):
            print("source %d: mean first word %.1f" % (s, ev._np.mean(ev._np.array(words[s], dtype=float))))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
