#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-soak.py - `ebfarm soak` on the demo farm: a passing soak with a seeded fault mix and a node killed twice, and a failing one with a silenced source.
#
# Pass: 60 s on farms/demo.yaml with the demo's fault mix (seed 7), sampled
# every 5 s, a node killed (and started again) every 25 s. Checked: the JSON
# lines on stdout and in soak.jsonl are the same and parse; the intervals add
# up to the final ledger count by count (generated, accepted, rejected, lost
# by reason, incomplete, missing sources); the ledger closes; two kills, two
# rejoins; the corrupted frames show as rejects; memory growth under its
# bound; every criterion passes and the exit status is 0; soak.csv has a row
# per interval with the same sums; soak.html shows the verdict and 6 plots;
# nothing is left (processes, DPDK runtime directories, the run directory).
# Attach: a farm up and running (run.events 0) is soaked 6 s: what its run
# counted before the soak plus the intervals add up to the ledger, the verdict
# passes, and the farm stays up with every process CONFIGURED.
# Fail: 15 s with source 3 silent from event 1000 and --max-loss 0: exit 1,
# verdict "fail" naming only loss_budget, with the missing source named; the
# ledger still closes.
# Usage: test-soak.py SOURCE_DIR BUILD_DIR. Exit 0 passed, 1 failed.
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
RULES = ["ledger_closed", "intervals_add_up", "loss_budget", "memory_growth", "interval_p99",
         "no_restart"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def farm_file(tmp, name, extra):
    """farms/demo.yaml named name, with extra run: lines."""
    text = open(os.path.join(SRC, "farms", "demo.yaml")).read()
    text = text.replace("farm: demo\n", "farm: %s\n" % name)
    text = text.replace("  seed: 1\n", "  seed: 1\n" + "".join("  %s\n" % l for l in extra))
    path = os.path.join(tmp, name + ".yaml")
    open(path, "w").write(text)
    return path


def env_of(tmp):
    env = dict(os.environ, EBFARM_RUN_DIR=os.path.join(tmp, "run"), EBFARM_BUILD_DIR=BUILD)
    os.makedirs(env["EBFARM_RUN_DIR"], exist_ok=True)
    return env


def soak(tmp, path, args):
    env = env_of(tmp)
    out = os.path.join(tmp, "report")
    p = subprocess.run([EBFARM, "soak", path, "--json", "--out", out] + args, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    print(p.stderr)
    return p, out


def lines_of(text):
    recs = [json.loads(l) for l in text.splitlines() if l.strip()]
    check(recs and recs[0]["type"] == "soak", "first line is not the header: %r" % recs[:1])
    check(recs[-1]["type"] == "summary", "last line is not the summary")
    ivs = recs[1:-1]
    check(all(r["type"] == "interval" for r in ivs), "a middle line is no interval")
    check([r["index"] for r in ivs] == list(range(1, len(ivs) + 1)), "interval indices")
    return recs[0], ivs, recs[-1]


def sum_group(ivs, key):
    out = {}
    for r in ivs:
        for k, v in r[key].items():
            out[k] = out.get(k, 0) + v
    return out


def check_adds_up(ivs, s):
    led, before = s["ledger"], s["before_soak"]
    if not before["generated"]:
        for k in ("accepted", "rejected", "incomplete"):
            got = sum(r[k] for r in ivs)
            check(got == led[k], "intervals' %s %d != ledger %d" % (k, got, led[k]))
    for k in ("generated", "decided"):
        got = sum(r[k] for r in ivs) + before[k]
        check(got == led[k], "intervals' %s %d + before %d != ledger %d" %
              (k, got - before[k], before[k], led[k]))
    check(sum(r["lost"] for r in ivs) + before["lost"] == led["lost_total"], "lost")
    if before["generated"]:
        return
    lost = sum_group(ivs, "lost_by_reason")
    for reason, n in led["lost"].items():
        check(lost.get(reason, 0) == n, "lost %s: intervals %d, ledger %d" %
              (reason, lost.get(reason, 0), n))
    miss = sum_group(ivs, "missing_by_source")
    check({k: v for k, v in miss.items() if v} == {k: v for k, v in led["missing_by_source"].items() if v},
          "missing by source %r != %r" % (miss, led["missing_by_source"]))
    check(led["generated"] == led["decided"] + led["lost_total"], "ledger counts")
    check(ivs[-1]["in_flight"] == 0, "in flight after the stop: %d" % ivs[-1]["in_flight"])


# Farm names of this test's own: another test suite on the machine at the
# same time has farms of its own names.
PASS, FAIL = "soakpass%d" % os.getpid(), "soakfail%d" % os.getpid()


def nothing_left(tmp, pids):
    for pid in pids:
        check(not os.path.exists("/proc/%d" % pid), "process %d is still there" % pid)
    left = [d for d in glob.glob("/var/run/dpdk/ebf*") if any("-%s-" % n in d for n in
                                                             (PASS, FAIL))]
    check(not left, "DPDK runtime directories left: %r" % left)
    run = os.path.join(tmp, "run")
    left = [d for d in os.listdir(run) if not d.startswith(".") and not d.endswith(".next-run")]
    check(not left, "run directory left: %r" % left)    # the run counter stays, by design


def test_pass(tmp):
    path = farm_file(tmp, PASS, ["faults: drop=0.001,dup=0.001,reorder=0.01,corrupt=0.0005",
                                       "fault_seed: 7"])
    p, out = soak(tmp, path, ["--duration", "60", "--interval", "5", "--kill-node-every", "25"])
    check(p.returncode == 0, "exit %d, not 0:\n%s" % (p.returncode, p.stdout[-3000:]))
    head, ivs, s = lines_of(p.stdout)
    check(open(os.path.join(out, "soak.jsonl")).read() == p.stdout, "soak.jsonl != stdout")
    check(head["farm"] == PASS and head["interval_s"] == 5 and head["duration_s"] == 60,
          "header %r" % head)
    check(12 <= len(ivs) <= 14, "%d intervals for 60 s every 5 s" % len(ivs))
    check_adds_up(ivs, s)
    led = s["ledger"]
    check(led["closed"] and led["digest_match"] and led["ids_match"], "ledger %r" % led)
    check(led["generated"] > 100000, "generated only %d" % led["generated"])
    check(s["kills"] == 2, "kills %d" % s["kills"])
    check(sum(r["rejoins"] for r in ivs) == 2, "rejoins %d" % sum(r["rejoins"] for r in ivs))
    check(sum(r["nodes_dead"] for r in ivs) >= 2, "nodes declared dead")
    check(sum_group(ivs, "rejects").get("bad_checksum", 0) > 0, "no corrupted frame rejected")
    check(led["incomplete"] > 0, "the fault mix left no event incomplete")
    v = s["verdict"]
    check(v["result"] == "pass" and v["failed"] == [], "verdict %r" % v)
    check([c["name"] for c in v["criteria"]] == RULES and all(c["pass"] for c in v["criteria"]),
          "criteria %r" % v["criteria"])
    for r in ivs[:-1]:
        check(r["events_per_s"] > 0 and r["latency_ns"]["e2e"]["count"] > 0,
              "interval %d: no events or no latency" % r["index"])
        e = r["latency_ns"]["e2e"]
        check(e["p50"] <= e["p90"] <= e["p99"] <= e["p99_9"] <= e["max"], "percentiles %r" % e)
        check(len(r["processes"]) == 4 and all(pr["rss_kb"] > 0 and pr["log_bytes"] > 0
                                               for pr in r["processes"] if pr["pid"]),
              "processes %r" % r["processes"])
    rows = open(os.path.join(out, "soak.csv")).read().splitlines()
    cols = rows[0].split(",")
    check(len(rows) == len(ivs) + 1, "csv rows %d" % len(rows))
    g = cols.index("generated")
    check(sum(int(x.split(",")[g]) for x in rows[1:]) == led["generated"], "csv generated")
    html = open(os.path.join(out, "soak.html")).read()
    check(html.count("<svg") == 6 and "PASS" in html and "</html>" in html, "html")
    nothing_left(tmp, [pr["pid"] for r in ivs for pr in r["processes"] if pr["pid"]])


def test_fail(tmp):
    path = farm_file(tmp, FAIL, ["silence: 3@1000"])
    p, out = soak(tmp, path, ["--duration", "15", "--interval", "5", "--max-loss", "0"])
    check(p.returncode == 1, "exit %d, not 1:\n%s" % (p.returncode, p.stdout[-3000:]))
    head, ivs, s = lines_of(p.stdout)
    check_adds_up(ivs, s)
    check(s["ledger"]["closed"], "ledger does not close")
    v = s["verdict"]
    check(v["result"] == "fail" and v["failed"] == ["loss_budget"], "verdict %r" % v)
    detail = [c for c in v["criteria"] if c["name"] == "loss_budget"][0]["detail"]
    inc = s["ledger"]["incomplete"]
    want = "incomplete %d > budget 0 (most often missing: source 3, %d events)" % (inc, inc)
    check(detail == want, "loss_budget detail %r, expected %r" % (detail, want))
    check(s["ledger"]["missing_by_source"] == {"3": inc}, "missing %r" %
          s["ledger"]["missing_by_source"])
    check("verdict: FAIL (loss_budget)" in p.stderr, "the terminal's verdict line")
    nothing_left(tmp, [pr["pid"] for r in ivs for pr in r["processes"] if pr["pid"]])


def test_attach(tmp):
    path = farm_file(tmp, "soakatt", [])
    text = open(path).read().replace("  events: 200000\n", "  events: 0\n")
    open(path, "w").write(text.replace("  duration_s: 300", "  duration_s: 0"))
    env = env_of(tmp)
    up = subprocess.run([EBFARM, "up", path], env=env, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, timeout=120)
    check(up.returncode == 0, "up: %s" % up.stdout)
    try:
        p, out = soak(tmp, path, ["--duration", "6", "--interval", "3"])
        check(p.returncode == 0, "exit %d, not 0:\n%s" % (p.returncode, p.stdout[-3000:]))
        head, ivs, s = lines_of(p.stdout)
        check(head["attached"] is True, "header %r" % head)
        check(s["before_soak"]["generated"] > 0, "nothing counted before the soak: %r" %
              s["before_soak"])
        check_adds_up(ivs, s)
        check(s["ledger"]["closed"] and s["verdict"]["result"] == "pass", "summary %r" % s)
        st = subprocess.run([EBFARM, "status", "--json"], env=env, stdout=subprocess.PIPE,
                            text=True, timeout=60)
        procs = json.loads(st.stdout)["processes"]
        check([x["state"] for x in procs] == ["CONFIGURED"] * 4, "states %r" %
              [x["state"] for x in procs])
    finally:
        dn = subprocess.run([EBFARM, "down"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=120)
    check(dn.returncode == 0, "down: %s" % dn.stdout)


def main():
    for t in (test_fail, test_attach, test_pass):
        tmp = tempfile.mkdtemp(prefix="ebf-soak-")
        try:
            t(tmp)
            print("ok: " + t.__name__)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("passed")


if __name__ == "__main__":
    main()
