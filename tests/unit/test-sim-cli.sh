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

# Failover on the same farm: its SFC death loses nothing, the same bytes per
# seed; --fault adds a second death (two of four SFCs: still nothing lost).
# The second death comes 1.2 s after the first, past the survivor's 1 s
# replay grace: a survivor that dies while it still builds replayed events
# below a low it announced before has them counted twice by 13.6's single
# X (docs/scale.md, "Failover"; at 3.0 s: unaccounted -2).
"$ebfarm" sim "$farm" --set failover=1 --json >"$tmp/fo1.json" 2>/dev/null || fail "failover: exit $?"
"$ebfarm" sim "$farm" --set failover=1 --json >"$tmp/fo2.json" 2>/dev/null || fail "failover again: exit $?"
cmp -s "$tmp/fo1.json" "$tmp/fo2.json" || fail "failover: the same seed printed different JSON"
"$ebfarm" sim "$farm" --set failover=1 --fault "sfc_death 0 3.7" --json >"$tmp/fo3.json" \
    2>/dev/null || fail "failover, two deaths: exit $?"
python3 - "$tmp/fo1.json" "$tmp/fo3.json" <<'PY' || rc=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ok = all(o["ledger"]["closed"] and o["ledger"]["lost_total"] == 0 for o in (a, b))
ok = ok and a["failover"]["sfc_deaths"] == 1 and b["failover"]["sfc_deaths"] == 2
ok = ok and a["failover"]["replayed"] == a["failover"]["replay_acked"] > 0
print("" if ok else "FAIL: failover: %s / %s" % (a["failover"], b["failover"]))
sys.exit(0 if ok else 1)
PY
# Two readouts hearing the release frames 20 ms apart: each detects the
# death at its own moment and replays its own records, then its replay
# ends; nothing lost (docs/scale.md, "Failover is modelled per readout").
"$ebfarm" sim "$farm" --set failover=1 --set readouts=2 --set ro_release_lag_ms=20 --json \
    >"$tmp/fo4.json" 2>/dev/null || fail "failover, two readouts: exit $?"
python3 - "$tmp/fo4.json" <<'PY' || rc=1
import json, sys
o = json.load(open(sys.argv[1]))
f, r = o["failover"], o["replay"]
ok = o["ledger"]["closed"] and o["ledger"]["lost_total"] == 0
ok = ok and abs(r["detected_last_s"] - f["detected_s"] - 0.020) < 1e-9
ok = ok and f["replayed"] == 101 and f["replay_acked"] == 55 and r["ends"] == r["ends_sent"] == 6
print("" if ok else "FAIL: two readouts: %s %s" % (f, r))
sys.exit(0 if ok else 1)
PY
"$ebfarm" sim "$farm" --fault "sfc_death 9 1.0" >/dev/null 2>"$tmp/bf.err"
[ $? -eq 2 ] || fail "--fault on a missing SFC: not exit 2"

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

# --set and --sweep: fixed arrivals and a fixed trigger time (farms/sim-demo.yaml)
# decide every event, so the decided rate is the offered one on every seed.
demo=$root/farms/sim-demo.yaml
"$ebfarm" sim "$demo" --json --duration 2 --sweep rate_hz=50,100 --seeds 2 --svg "$tmp/s1.svg" \
    >"$tmp/s1.json" 2>"$tmp/s1.err" || fail "--sweep: exit $? ($(cat "$tmp/s1.err"))"
"$ebfarm" sim "$demo" --json --duration 2 --sweep rate_hz=50,100 --seeds 2 --svg "$tmp/s2.svg" \
    >"$tmp/s2.json" 2>/dev/null || fail "--sweep again: exit $?"
cmp -s "$tmp/s1.json" "$tmp/s2.json" || fail "the same sweep printed different JSON"
cmp -s "$tmp/s1.svg" "$tmp/s2.svg" || fail "the same sweep drew different plots"
"$ebfarm" sim "$demo" --json --duration 2 --set rate_hz=100 --set trigger_us=50 >"$tmp/set.json" \
    2>/dev/null || fail "--set: exit $?"
# Incast by hand (docs/scale.md): a 406-byte frame, 126 of them at once into
# a port of 16 KiB: 40 fit, 86 of 126 drop; 64 KiB holds all of them.
"$ebfarm" sim "$root/farms/sim-lhcb2003.yaml" --json --duration 0.02 --set arrivals=fixed \
    --sweep switch_buffer_kb=16,64 >"$tmp/inc.json" 2>/dev/null ||
    fail "incast sweep: exit $? (incomplete events are decided: the ledger closes)"
python3 - "$tmp/s1.json" "$tmp/s1.svg" "$tmp/set.json" "$tmp/inc.json" <<'PY' || rc=1
import json, sys, xml.dom.minidom as m
s = json.load(open(sys.argv[1]))
f = s["figures"]
ok = s["sweep"] == "rate_hz" and s["seeds"] == 2 and s["values"] == [50, 100]
ok = ok and f["rate_per_s"] == {"mean": [50, 100], "min": [50, 100], "max": [50, 100]}
ok = ok and f["closed"]["min"] == [1, 1] and f["drop_fraction"]["max"] == [0, 0]
d = m.parse(sys.argv[2])
ok = ok and len(d.getElementsByTagName("polyline")) == 11
t = json.load(open(sys.argv[3]))
ok = ok and t["farm"]["rate_hz"] == 100 and t["events_per_s"] == 100
i = json.load(open(sys.argv[4]))["figures"]
ok = ok and i["drop_fraction"]["mean"] == [round(86 / 126, 6), 0]
ok = ok and i["incomplete_fraction"]["mean"][1] == 0 and i["incomplete_fraction"]["mean"][0] > 0.9
print("" if ok else "FAIL: sweep: %s / %s / %s" % (s, t, i))
sys.exit(0 if ok else 1)
PY
"$ebfarm" sim "$demo" --sweep rate_hz=a,b >/dev/null 2>"$tmp/sw.err"
[ $? -eq 2 ] || fail "a bad --sweep: not exit 2"
grep -q "is not a list of numbers" "$tmp/sw.err" || fail "bad --sweep message: $(cat "$tmp/sw.err")"
"$ebfarm" sim "$demo" --seeds 3 >/dev/null 2>"$tmp/sd.err"
[ $? -eq 2 ] || fail "--seeds without --sweep: not exit 2"
"$ebfarm" sim "$demo" --set link_gpbs=1 >/dev/null 2>"$tmp/st.err"
[ $? -eq 2 ] || fail "a bad --set key: not exit 2"
exit $rc
