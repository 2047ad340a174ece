#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-sim-cli.sh - ebfarm sim on a farm file: closed ledger under every fault kind, same seed same bytes, bad sim: keys refused.
#
# $1: the ebfarm executable, $2: the source root. farms/sim-faults.yaml has
# one fault of each kind (node and SFC death, node stall, link loss).
set -u
ebfarm=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
fail() { echo "FAIL: $*"; rc=1; }

farm=$root/farms/sim-faults.yaml
"$ebfarm" sim "$farm" --seed 3 >"$tmp/a.txt" 2>"$tmp/a.err" || fail "sim-faults: exit $? ($(cat "$tmp/a.err"))"
"$ebfarm" sim "$farm" --seed 3 >"$tmp/b.txt" 2>/dev/null || fail "sim-faults, second run: exit $?"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "the same seed printed different summaries"
grep -q '^  ledger    closed: ' "$tmp/a.txt" || fail "no closed ledger: $(cat "$tmp/a.txt")"
grep -Eq '^  faults    nodes declared dead 2, ' "$tmp/a.txt" || fail "not 2 nodes declared dead"
grep -Eq 'simulator events in .* events/s\), max RSS' "$tmp/a.err" || fail "no simulator figures on stderr"
"$ebfarm" sim "$farm" --seed 4 >"$tmp/c.txt" 2>/dev/null || fail "seed 4: exit $?"
"$ebfarm" sim "$farm" --seed 3 --svg "$tmp/a.svg" >/dev/null 2>&1 || fail "--svg: exit $?"
"$ebfarm" sim "$farm" --seed 3 --svg "$tmp/b.svg" >/dev/null 2>&1 || fail "--svg again: exit $?"
cmp -s "$tmp/a.svg" "$tmp/b.svg" || fail "the same seed drew different plots"
python3 - "$tmp/a.svg" <<'PY' || fail "the plots are not 3 SVG panels of 6 lines"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
sys.exit(0 if len(d.getElementsByTagName("svg")) == 4 and len(d.getElementsByTagName("polyline")) == 6 else 1)
PY
cmp -s "$tmp/a.txt" "$tmp/c.txt" && fail "seeds 3 and 4 printed the same summary"

"$ebfarm" sim "$farm" --json --duration 2 >"$tmp/a.json" 2>"$tmp/a.jerr" || fail "--json: exit $?"
"$ebfarm" sim "$farm" --json --duration 2 >"$tmp/b.json" 2>/dev/null || fail "--json again: exit $?"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "the same seed printed different JSON"
python3 - "$tmp/a.json" "$tmp/a.jerr" <<'PY' || rc=1
import json, sys
o = json.load(open(sys.argv[1]))
l = o["ledger"]
ok = l["closed"] and l["unaccounted"] == 0 and l["generated"] == l["accepted"] + l["rejected"] + l["lost_total"]
ok = ok and o["farm"]["duration_s"] == 2 and l["nodes_dead"] == 2
self = json.loads(open(sys.argv[2]).read().splitlines()[-1])
ok = ok and self["sim_events"] == o["model"]["sim_events"] and self["max_rss_kb"] > 0
print("" if ok else "FAIL: JSON summary: %s / %s" % (l, self))
sys.exit(0 if ok else 1)
PY

# The LHCb 2003 farm loads and closes its ledger (50 ms of farm time).
"$ebfarm" sim "$root/farms/sim-lhcb2003.yaml" --duration 0.05 >"$tmp/lhcb.txt" 2>/dev/null ||
    fail "sim-lhcb2003: exit $?"
grep -q '^  ledger    closed: ' "$tmp/lhcb.txt" || fail "sim-lhcb2003: $(cat "$tmp/lhcb.txt")"

# A bad key in sim: is refused by the farm file loader, naming what is allowed.
sed 's/^  link_gbps: 10$/  link_gpbs: 10/' "$farm" >"$tmp/bad.yaml"
"$ebfarm" sim "$tmp/bad.yaml" >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] || fail "a bad sim: key: not exit 2"
grep -q "key 'sim.link_gpbs' is not allowed (allowed: sources, sfcs, nodes_per_sfc, " "$tmp/bad.err" ||
    fail "bad key message: $(cat "$tmp/bad.err")"
# A bad value is refused by the simulator, naming the key.
sed 's/^  link_gbps: 10$/  link_gbps: fast/' "$farm" >"$tmp/bad2.yaml"
"$ebfarm" sim "$tmp/bad2.yaml" >/dev/null 2>"$tmp/bad2.err"
[ $? -eq 2 ] || fail "a bad sim: value: not exit 2"
grep -q "key 'sim.link_gbps': \"fast\" is not a number" "$tmp/bad2.err" ||
    fail "bad value message: $(cat "$tmp/bad2.err")"
exit $rc
