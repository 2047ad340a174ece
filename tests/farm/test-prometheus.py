#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-prometheus.py - a real Prometheus server scrapes a live farm's exporter: every query of the Grafana dashboard and of the rules returns data.
#
# The demo farm runs without an event limit at 5000 events/s under a run
# directory of its own; `ebfarm metrics --prometheus --listen 127.0.0.1:0`
# exports it and a Prometheus server (scrape and rule evaluation every
# second, its own TSDB in a temporary directory, on a free loopback port)
# scrapes it with monitoring/prometheus/ebfarm-rules.yml loaded. Once it
# has scraped for a while the test checks:
#   - the series carry farm, run, component and process, and the target
#     labels instance and job are Prometheus's own (no exported_ labels);
#   - the dashboard's variables list the farm and its four processes;
#   - every expr of monitoring/grafana/ebfarm-overview.json, with $farm,
#     $process and $__rate_interval substituted, returns data, and the
#     end-to-end p99 is a finite positive number of seconds;
#   - every recording rule's expr and its recorded series return data;
#     every alert's expr is "<expression> <comparison> <number>" and the
#     expression returns data; Prometheus evaluated every rule without
#     error and no alert fires on the healthy farm.
# Everything started is stopped and the temporary directory removed, on
# success and on failure. Traffic only to 127.0.0.1.
#
# Usage: test-prometheus.py SOURCE_ROOT BUILD_DIR. Exit 0 passed, 1 failed,
# 77 skipped (the prometheus server, Debian package prometheus, missing).
import json
import math
import os
import re
import shutil
import sys
import time

from farmrig import Rig, start_exporter, start_prometheus, stop

FARM = None                      # the Rig's farm name, promfarm<pid>
PROCESSES = ["node0", "node1", "ro0", "sfc0"]
RATE_INTERVAL = "1m"
ALERT_FORM = re.compile(r"^(?P<lhs>.*\S)\s*(==|!=|>=|<=|>|<)\s*(?P<rhs>[-+0-9.e]+)\s*$", re.S)


class Failed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failed(what)


def wait_for_data(prom, prometheus, tmp):
    """Until the nodes' e2e histogram has 8 scrapes and every rule ran twice."""
    for _ in range(60):
        check(prometheus.poll() is None, "prometheus exited: %s" %
              open(os.path.join(tmp, "prometheus.log")).read())
        try:
            n = prom.query('min(count_over_time(ebfarm_e2e_seconds_count{farm="%s"}[1m]))' % FARM)
            evaluated = all(r.get("lastEvaluation", "").startswith("2") and
                            not r["lastEvaluation"].startswith("0001")
                            for g in prom.rules() for r in g["rules"])
            if n and float(n[0]["value"][1]) >= 8 and evaluated:
                time.sleep(2)      # two more evaluations of every rule
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
    raise Failed("prometheus did not scrape the exporter 8 times in 30 s; see its log:\n" +
                 open(os.path.join(tmp, "prometheus.log")).read())


def check_labels(prom, exporter_port):
    got = sorted((r["metric"] for r in prom.query('ebfarm_up{farm="%s"}' % FARM)),
                 key=lambda m: m["process"])
    want = [{"__name__": "ebfarm_up", "farm": FARM, "run": "1", "component": c, "process": p,
             "instance": "127.0.0.1:%d" % exporter_port, "job": "ebfarm"}
            for c, p in [("node", "node0"), ("node", "node1"), ("readout", "ro0"), ("sfc", "sfc0")]]
    check(got == want, "ebfarm_up series: %s, want %s" % (got, want))
    exported = prom.query('count({__name__=~"ebfarm_.+", exported_instance!=""})')
    check(exported == [], "samples with exported_instance: %s" % exported)


def check_dashboard(prom, src):
    dash = json.load(open(os.path.join(src, "monitoring/grafana/ebfarm-overview.json")))
    check(dash["schemaVersion"] >= 36, "schemaVersion %s" % dash["schemaVersion"])
    check([i["name"] for i in dash["__inputs"]] == ["DS_PROMETHEUS"], "inputs")
    variables = [v["name"] for v in dash["templating"]["list"]]
    check(variables == ["farm", "process"], "variables %s" % variables)
    check(FARM in prom.label_values("farm", "ebfarm_up"), "farm variable lacks " + FARM)
    procs = prom.label_values("process", 'ebfarm_up{farm="%s"}' % FARM)
    check(procs == PROCESSES, "process variable: %s" % procs)
    exprs = 0
    for p in dash["panels"]:
        check(p["datasource"]["uid"] == "${DS_PROMETHEUS}", "panel %r datasource" % p["title"])
        for t in p["targets"]:
            e = (t["expr"].replace("$farm", FARM).replace("$process", "|".join(PROCESSES))
                 .replace("$__rate_interval", RATE_INTERVAL))
            check("$" not in e, "unsubstituted variable in %r" % e)
            r = prom.query(e)
            check(r, "panel %r: no data for %s" % (p["title"], e))
            if "e2e" in e and "0.99" in e:
                for s in r:
                    v = float(s["value"][1])
                    check(math.isfinite(v) and 0 < v < 10, "e2e p99 of %s: %s" % (s["metric"], v))
            exprs += 1
    check(exprs == 33, "%d dashboard queries, want 33" % exprs)
    return exprs


def check_rules(prom):
    n_record = n_alert = 0
    for g in prom.rules():
        for r in g["rules"]:
            check(r["health"] == "ok", "rule %s: %s %s" % (r["name"], r["health"], r.get("lastError")))
            if r["type"] == "recording":
                check(prom.query(r["query"]), "recording rule %s: no data" % r["name"])
                check(prom.query('%s{farm="%s"}' % (r["name"], FARM)),
                      "recorded series %s: none" % r["name"])
                n_record += 1
            else:
                m = ALERT_FORM.match(r["query"])
                check(m, "alert %s: expr not '<expression> <comparison> <number>'" % r["name"])
                check(prom.query(m.group("lhs")), "alert %s: no data for %s" % (r["name"], m.group("lhs")))
                check(r["state"] != "firing", "alert %s fires on a healthy farm: %s" %
                      (r["name"], r.get("alerts")))
                n_alert += 1
    check((n_record, n_alert) == (7, 9), "%d recording and %d alerting rules, want 7 and 9" %
          (n_record, n_alert))
    return n_record, n_alert


def main():
    global FARM
    if not shutil.which("prometheus"):
        print("prometheus not found (Debian package prometheus): skipped")
        return 77
    rig = Rig("promfarm", "demo.yaml", {"events": 0, "rate": 5000})
    FARM = rig.name
    exporter = prometheus = None
    try:
        r = rig.ebfarm("up", rig.path)
        check(r.returncode == 0, "ebfarm up failed")
        exporter, exporter_port = start_exporter(rig)
        prometheus, prom = start_prometheus(rig, exporter_port)
        wait_for_data(prom, prometheus, rig.tmp)
        check_labels(prom, exporter_port)
        exprs = check_dashboard(prom, rig.src)
        n_record, n_alert = check_rules(prom)
        print("prometheus: %d dashboard queries, %d recording and %d alerting rules return data"
              % (exprs, n_record, n_alert))
        return 0
    except Failed as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        stop(prometheus)
        stop(exporter)
        rig.cleanup()


if __name__ == "__main__":
    sys.exit(main())
