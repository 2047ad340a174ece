#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-promtool.sh - promtool checks the Prometheus example (monitoring/prometheus/): the config, the rules, and the alerts on series that must fire them.
#
# Usage: test-promtool.sh SOURCE_ROOT. Exit 0 passed, 1 failed, 77 skipped
# (promtool, Debian package prometheus, not installed).
set -uo pipefail

src=${1:?usage: test-promtool.sh SOURCE_ROOT}
dir=$src/monitoring/prometheus
command -v promtool > /dev/null || { echo "promtool not found (Debian package prometheus): skipped"; exit 77; }
tmp=$(mktemp -d /tmp/ebf-promtool-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

check() {   # check WHAT COMMAND...: the command must succeed
    local what=$1
    shift
    if ! "$@" > "$tmp/out" 2>&1; then
        echo "FAIL: $what"
        cat "$tmp/out"
        fail=1
    fi
}

check "promtool check config" promtool check config "$dir/prometheus.yml"
check "promtool check rules" promtool check rules "$dir/ebfarm-rules.yml"
grep -q 'SUCCESS: 16 rules found' "$tmp/out" || { echo "FAIL: expected 16 rules"; cat "$tmp/out"; fail=1; }

# The checks can fail: a rule with a broken expression is refused.
sed 's/expr: ebfarm_node_alive == 0/expr: ebfarm_node_alive == = 0/' "$dir/ebfarm-rules.yml" > "$tmp/bad.yml"
if promtool check rules "$tmp/bad.yml" > "$tmp/out" 2>&1; then
    echo "FAIL: promtool accepted a broken rule"
    fail=1
fi

# The alerts on synthetic series: a dead node, a process gone stale, losses
# rising (a share of one readout's events, not of the two readouts' sum), a
# readout held most of the time, a running farm with no events; and none of
# them on a healthy farm; none through a clean lifecycle (up, run, a
# readout finished, stop, down); a process gone while its farm is up.
cp "$dir/ebfarm-rules.yml" "$tmp/"
cat > "$tmp/alerts-test.yml" <<'YML'
rule_files: [ebfarm-rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'ebfarm_node_alive{farm="f",run="1",component="sfc",process="sfc0",node="1"}'
        values: '1 1 0 0 0'
      - series: 'ebfarm_node_alive{farm="f",run="1",component="sfc",process="sfc0",node="0"}'
        values: '1 1 1 1 1'
      - series: 'ebfarm_up{farm="f",run="1",component="node",process="node1"}'
        values: '1 1 0 0 0'
      - series: 'ebfarm_farm_up{farm="f"}'
        values: '1 1 1 1 1 1 1 1 1 1 1 1'
      - series: 'ebfarm_lost_total{farm="f",run="1",component="sfc",process="sfc0",reason="no_node"}'
        values: '0 0 20 40 60'
      - series: 'ebfarm_events_total{farm="f",run="1",component="readout",process="ro0"}'
        values: '0 600 1200 1800 2400'
      - series: 'ebfarm_events_total{farm="f",run="1",component="readout",process="ro1"}'
        values: '0 600 1200 1800 2400'
      - series: 'ebfarm_throttled{farm="f",run="1",component="readout",process="ro0"}'
        values: '1 1 1 1 1 1 1 1 1 1 1 1'
      - series: 'ebfarm_events_total{farm="g",run="2",component="readout",process="ro0"}'
        values: '5 5 5 5 5 5 5 5 5 5 5 5'
      - series: 'ebfarm_state{farm="g",run="2",component="readout",process="ro0",state="RUNNING"}'
        values: '1 1 1 1 1 1 1 1 1 1 1 1'
    alert_rule_test:
      - eval_time: 1m
        alertname: EbfarmNodeDead
        exp_alerts: []
      - eval_time: 3m
        alertname: EbfarmNodeDead
        exp_alerts:
          - exp_labels: {severity: critical, farm: f, run: '1', component: sfc, process: sfc0, node: '1'}
            exp_annotations: {summary: 'f: sfc0 declared node 1 dead'}
      - eval_time: 4m
        alertname: EbfarmProcessDown
        exp_alerts:
          - exp_labels: {severity: critical, farm: f, run: '1', component: node, process: node1}
            exp_annotations: {summary: 'f/node1: no metrics snapshot for 3 periods'}
      - eval_time: 4m
        alertname: EbfarmEventsLost
        exp_alerts:
          - exp_labels: {severity: warning, farm: f, process: sfc0, reason: no_node}
            exp_annotations: {summary: 'f/sfc0 lost 40 events (no_node) in 2 minutes'}
      - eval_time: 4m
        alertname: EbfarmLedgerLoss
        exp_alerts:
          - exp_labels: {severity: critical, farm: f}
            exp_annotations: {summary: 'f loses 2.5% of its generated events'}
      - eval_time: 10m
        alertname: EbfarmThrottledHigh
        exp_alerts:
          - exp_labels: {severity: warning, farm: f, process: ro0}
            exp_annotations: {summary: 'f/ro0 held by throttle 100% of the time'}
      - eval_time: 10m
        alertname: EbfarmNoEvents
        exp_alerts:
          - exp_labels: {severity: critical, farm: g}
            exp_annotations: {summary: 'g generated no events for 5 minutes while running'}
      - eval_time: 10m
        alertname: EbfarmFramesRejected
        exp_alerts: []
  # A clean lifecycle of farm c: up and running (0-4 min), its readout
  # finished run.events and stays RUNNING with its count flat (5-17), the
  # staged stop (18-19: CONFIGURED), down (20-30: every ebfarm_up 0 and
  # ebfarm_farm_up 0): no alert at any point.
  - interval: 1m
    input_series:
      - series: 'ebfarm_farm_up{farm="c"}'
        values: '1x19 0x11'
      - series: 'ebfarm_up{farm="c",run="3",component="readout",process="ro0"}'
        values: '1x19 0x11'
      - series: 'ebfarm_up{farm="c",run="3",component="sfc",process="sfc0"}'
        values: '1x19 0x11'
      - series: 'ebfarm_up{farm="c",run="3",component="node",process="node0"}'
        values: '1x19 0x11'
      - series: 'ebfarm_events_total{farm="c",run="3",component="readout",process="ro0"}'
        values: '0+600x4 3000x26'
      - series: 'ebfarm_events_total{farm="c",run="3",component="node",process="node0"}'
        values: '0+600x4 3000x26'
      - series: 'ebfarm_state{farm="c",run="3",component="readout",process="ro0",state="RUNNING"}'
        values: '1x17 _x13'
      - series: 'ebfarm_state{farm="c",run="3",component="readout",process="ro0",state="CONFIGURED"}'
        values: '_x17 1x13'
      - series: 'ebfarm_finished{farm="c",run="3",component="readout",process="ro0"}'
        values: '0x4 1x13 0x13'
      - series: 'ebfarm_node_alive{farm="c",run="3",component="sfc",process="sfc0",node="0"}'
        values: '1x30'
      - series: 'ebfarm_lost_total{farm="c",run="3",component="sfc",process="sfc0",reason="no_node"}'
        values: '0x30'
      - series: 'ebfarm_throttled{farm="c",run="3",component="readout",process="ro0"}'
        values: '0x30'
      - series: 'ebfarm_release_deaths_total{farm="c",run="3",component="readout",process="ro0"}'
        values: '0x30'
      - series: 'ebfarm_leave_at{farm="c",run="3",component="sfc",process="sfc0"}'
        values: '0x30'
    alert_rule_test:
      - eval_time: 4m
        alertname: EbfarmSfcFailover
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmSfcDrainedLong
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmSfcFailover
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmSfcDrainedLong
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmProcessDown
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmNodeDead
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmEventsLost
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmLedgerLoss
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmFramesRejected
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmThrottledHigh
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmNoEvents
        exp_alerts: []
      - eval_time: 17m
        alertname: EbfarmProcessDown
        exp_alerts: []
      - eval_time: 17m
        alertname: EbfarmNodeDead
        exp_alerts: []
      - eval_time: 17m
        alertname: EbfarmEventsLost
        exp_alerts: []
      - eval_time: 17m
        alertname: EbfarmLedgerLoss
        exp_alerts: []
      - eval_time: 17m
        alertname: EbfarmFramesRejected
        exp_alerts: []
      - eval_time: 17m
        alertname: EbfarmThrottledHigh
        exp_alerts: []
      - eval_time: 17m
        alertname: EbfarmNoEvents
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmProcessDown
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmNodeDead
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmEventsLost
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmLedgerLoss
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmFramesRejected
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmThrottledHigh
        exp_alerts: []
      - eval_time: 19m
        alertname: EbfarmNoEvents
        exp_alerts: []
      - eval_time: 30m
        alertname: EbfarmProcessDown
        exp_alerts: []
      - eval_time: 30m
        alertname: EbfarmNodeDead
        exp_alerts: []
      - eval_time: 30m
        alertname: EbfarmEventsLost
        exp_alerts: []
      - eval_time: 30m
        alertname: EbfarmLedgerLoss
        exp_alerts: []
      - eval_time: 30m
        alertname: EbfarmFramesRejected
        exp_alerts: []
      - eval_time: 30m
        alertname: EbfarmThrottledHigh
        exp_alerts: []
      - eval_time: 30m
        alertname: EbfarmNoEvents
        exp_alerts: []
  # Builders in farm e: ro0 sees an SFC die at 3 min (ro1 never does);
  # sfc1 is drained from 2 min on and stays drained; sfc0 never is.
  - interval: 1m
    input_series:
      - series: 'ebfarm_release_deaths_total{farm="e",run="1",component="readout",process="ro0"}'
        values: '0 0 0 1x20'
      - series: 'ebfarm_release_deaths_total{farm="e",run="1",component="readout",process="ro1"}'
        values: '0x23'
      - series: 'ebfarm_leave_at{farm="e",run="1",component="sfc",process="sfc1"}'
        values: '0 0 70000x80'
      - series: 'ebfarm_leave_at{farm="e",run="1",component="sfc",process="sfc0"}'
        values: '0x82'
    alert_rule_test:
      - eval_time: 2m
        alertname: EbfarmSfcFailover
        exp_alerts: []
      - eval_time: 4m
        alertname: EbfarmSfcFailover
        exp_alerts:
          - exp_labels: {severity: warning, farm: e, process: ro0}
            exp_annotations: {summary: 'e/ro0 saw an SFC die: its share moved to the other SFCs'}
      - eval_time: 20m
        alertname: EbfarmSfcFailover
        exp_alerts: []
      - eval_time: 30m
        alertname: EbfarmSfcDrainedLong
        exp_alerts: []
      - eval_time: 70m
        alertname: EbfarmSfcDrainedLong
        exp_alerts:
          - exp_labels: {severity: warning, farm: e, run: '1', component: sfc, process: sfc1}
            exp_annotations: {summary: 'e/sfc1 drained for an hour (ebfarm undrain gives its share back)'}
  # A real death in farm d, up: node0's snapshots stop at 3 min.
  - interval: 1m
    input_series:
      - series: 'ebfarm_farm_up{farm="d"}'
        values: '1x10'
      - series: 'ebfarm_up{farm="d",run="1",component="node",process="node0"}'
        values: '1 1 1 0x7'
      - series: 'ebfarm_up{farm="d",run="1",component="sfc",process="sfc0"}'
        values: '1x10'
    alert_rule_test:
      - eval_time: 2m
        alertname: EbfarmProcessDown
        exp_alerts: []
      - eval_time: 5m
        alertname: EbfarmProcessDown
        exp_alerts:
          - exp_labels: {severity: critical, farm: d, run: '1', component: node, process: node0}
            exp_annotations: {summary: 'd/node0: no metrics snapshot for 3 periods'}
YML
check "promtool test rules" promtool test rules "$tmp/alerts-test.yml"
[ "$fail" = 0 ] && echo "promtool: config, 16 rules and 47 alert cases pass (32 in a clean lifecycle)"
exit "$fail"
