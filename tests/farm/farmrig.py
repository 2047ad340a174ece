# SPDX-License-Identifier: BSD-3-Clause
# farmrig.py - what the Python farm tests share: a farm file of their own under a temporary run directory, the ebfarm command, and the checks that nothing is left running.
#
# A test makes one Rig (its farm renamed NAME<pid> so that runs of several
# tests never meet), calls rig.ebfarm(...) and rig.status(), and ends with
# rig.cleanup() in a finally: `down` of the farm, its DPDK runtime
# directories and the temporary directory removed.
import glob
import json
import os
import shutil
import signal
import subprocess
import re
import socket
import sys
import tempfile
import time
import urllib.parse
import urllib.request


def check(cond, msg):
    """Ends the test (exit 1) saying msg when cond is false."""
    if not cond:
        print("FAIL: " + msg)
        sys.exit(1)


def procs_naming(text):
    """Pids of the processes whose command line contains text."""
    out = []
    for d in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            if text.encode() in open(d, "rb").read():
                out.append(int(d.split("/")[2]))
        except OSError:
            pass
    return out


class Rig:
    """A farm file SRC/farms/FARM (or the text of one whose farm is FARM
    less .yaml; @TMP@ in it stands for the temporary directory) renamed
    NAME<pid>, with run.KEY: VALUE replaced for each of run_keys, under a
    temporary directory whose run/ is the farm's run directory
    (EBFARM_RUN_DIR)."""

    def __init__(self, name, farm="demo.yaml", run_keys=None, text=None):
        self.src, self.build = sys.argv[1], sys.argv[2]
        self.exe = os.path.join(self.build, "tools", "ebfarm")
        self.name = "%s%d" % (name, os.getpid())
        self.tmp = tempfile.mkdtemp(prefix="ebf-%s-" % name)
        self.run = os.path.join(self.tmp, "run")
        os.makedirs(self.run)
        self.env = dict(os.environ, EBFARM_RUN_DIR=self.run, EBFARM_BUILD_DIR=self.build)
        if text is None:
            text = open(os.path.join(self.src, "farms", farm)).read()
        text = text.replace("@TMP@", self.tmp)
        base = farm[:-len(".yaml")]
        text = text.replace("farm: %s\n" % base, "farm: %s\n" % self.name)
        for key, value in (run_keys or {}).items():
            lines = text.split("\n")
            at = [i for i, l in enumerate(lines) if l.startswith("  %s: " % key)]
            check(at, "no run.%s in farms/%s" % (key, farm))
            lines[at[0]] = "  %s: %s" % (key, value)
            text = "\n".join(lines)
        self.path = os.path.join(self.tmp, self.name + ".yaml")
        open(self.path, "w").write(text)

    def ebfarm(self, *args, timeout=180, merge=True):
        """Runs `ebfarm ARGS` and prints its command, exit, time and output;
        stderr is merged into stdout unless merge is False."""
        t0 = time.time()
        p = subprocess.run([self.exe] + list(args), env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                           text=True, timeout=timeout)
        p.elapsed = time.time() - t0
        print("$ ebfarm %s -> %d (%.1f s)\n%s%s" % (" ".join(args), p.returncode, p.elapsed,
                                                   p.stdout, p.stderr or ""))
        return p

    def status(self):
        """`ebfarm status --json` of the farm, parsed."""
        p = subprocess.run([self.exe, "status", "--json", "--farm", self.name], env=self.env,
                           stdout=subprocess.PIPE, text=True, timeout=120)
        return json.loads(p.stdout)

    def pid_of(self, proc):
        return [x for x in self.status()["processes"] if x["name"] == proc][0]["pid"]

    def nothing_running(self):
        """No process names the test's directory and no DPDK runtime
        directory of the farm is left."""
        time.sleep(0.3)
        left = procs_naming(self.tmp)
        check(not left, "processes left running: %r" % left)
        left = [d for d in glob.glob("/var/run/dpdk/*") if self.name in d]
        check(not left, "DPDK runtime directories left: %r" % left)

    def cleanup(self):
        subprocess.run([self.exe, "down", "--farm", self.name], env=self.env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        for d in glob.glob("/var/run/dpdk/*%s*" % self.name):
            shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(self.tmp, ignore_errors=True)


def fo_farm(readouts, sfcs, nodes_per_sfc, run, name="fo"):
    """The text of a failover farm NAME on this host over memif
    links: READOUTS readouts each sending to every one of SFCS SFCs (in
    place order sfc0, sfc1, ...), NODES_PER_SFC nodes per SFC (node i
    serves sfc i % SFCS), idle back-off, no hugepages, and the run keys
    RUN (a dict; a dict value is written inline, {k: v, ...})."""
    def val(v):
        if isinstance(v, dict):
            return "{%s}" % ", ".join("%s: %s" % kv for kv in v.items())
        return str(v)
    names = ["sfc%d" % k for k in range(sfcs)]
    lines = ["farm: " + name, "defaults: {idle: backoff, no_huge: true, memory_mb: 128, lcores: auto}",
             "run:"] + ["  %s: %s" % (k, val(v)) for k, v in run.items()] + ["readouts:"]
    lines += ["  - {name: ro%d, port: memif, mac: 02:eb:00:00:00:%02x, sfcs: [%s]}"
              % (i, 0x10 + i, ", ".join(names)) for i in range(readouts)]
    lines += ["sfcs:"] + ["  - {name: sfc%d, id: %d, port: memif, mac: 02:eb:00:00:00:%02x, "
                          "memory_mb: 256}" % (k, k, 0x30 + k) for k in range(sfcs)]
    lines += ["nodes:"] + ["  - {name: node%d, sfc: sfc%d, port: 'memif:sfc%d-node%d', "
                           "mac: 02:eb:00:00:02:%02x, sfc_mac: 02:eb:00:00:01:%02x}"
                           % (i, i % sfcs, i % sfcs, i, i, i)
                           for i in range(sfcs * nodes_per_sfc)]
    return "\n".join(lines) + "\n"


def fo_scenario(name, readouts, sfcs, per, run, body, store_on=True):
    """One failover scenario of the fo_* tests: the farm fo_farm makes, with
    storage under @TMP@/store when store_on, brought up, body(rig, store)
    run (store None without storage), brought down and checked clean; any
    process left, frozen ones too, is killed."""
    t0 = time.time()
    rig = Rig("fo" + name.replace("_", ""), "fo.yaml", text=fo_farm(readouts, sfcs, per, run))
    store = os.path.join(rig.tmp, "store") if store_on else None
    try:
        if store:
            os.makedirs(store)
        check(rig.ebfarm("up", rig.path).returncode == 0, "up")
        body(rig, store)
        check(rig.ebfarm("down").returncode == 0, "down")
        rig.nothing_running()
    finally:
        rig.cleanup()
        for pid in procs_naming(rig.tmp):
            try:
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    print("passed: %s in %.0f s" % (name, time.time() - t0))


def namespaces():
    """The network namespaces of the machine (`ip netns list`), by name."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {l.split()[0] for l in out.splitlines() if l.strip()}


def netns_leftovers(before, pid):
    """What the netns demo with this pid left: its namespaces
    (ebd<pid>-<process>; BEFORE: the namespaces before it ran), runtime
    directories (ebf<pid>-...) and sshds (their files are named
    ebd<pid>-<process>.sshd_config). Another farm on the machine at the
    same time does not count."""
    ns, tag = "ebd%d-" % pid, "ebf%d-" % pid
    left = sorted(n for n in namespaces() - before if n.startswith(ns))
    dpdk = os.listdir("/var/run/dpdk") if os.path.isdir("/var/run/dpdk") else []
    ssh = subprocess.run(["pgrep", "-f", "sshd -f /run/ebfarm-ssh/.*/%s" % ns],
                         capture_output=True, text=True).stdout.split()
    return left, [d for d in dpdk if d.startswith(tag)], ssh


def counter(rig, proc, key):
    """The counter KEY of process PROC in `status --json`, 0 when absent
    (or the process does not answer)."""
    for x in rig.status()["processes"]:
        if x["name"] == proc:
            return (x.get("counters") or {}).get(key, 0)
    return 0


def counters(rig, procs, keys):
    """The counters KEYS of each process of PROCS from one `status
    --json`: {proc: {key: value}}, 0 for an absent one (counter)."""
    by = {x["name"]: x.get("counters") or {} for x in rig.status()["processes"]}
    return {p: {k: by.get(p, {}).get(k, 0) for k in keys} for p in procs}


def wait_events(rig, proc, n, limit=120):
    """Waits until readout PROC has generated N events (its counter
    events); fails the test after LIMIT seconds."""
    t0 = time.time()
    while counter(rig, proc, "events") < n:
        check(time.time() - t0 < limit, "%s made fewer than %d events in %d s" % (proc, n, limit))
        time.sleep(0.2)


def wait_more(rig, proc, n, limit=120):
    """Waits until readout PROC has generated N events more than it had
    when called (wait_events)."""
    wait_events(rig, proc, counter(rig, proc, "events") + n, limit)


def stop_begin(rig, *args):
    """`ebfarm stop --json ARGS` of the farm begun, not waited for: its
    Popen, for stop_json to end."""
    return subprocess.Popen([rig.exe, "stop", "--json", "--farm", rig.name] + list(args),
                            env=rig.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def stop_json(rig, *args, begun=None):
    """`ebfarm stop --json` of the farm (exit 0, or the test fails), or
    the one stop_begin BEGUN, parsed; its ledger printed."""
    p = begun or stop_begin(rig, *args)
    out, err = p.communicate(timeout=240)
    check(p.returncode == 0, "stop: exit %d\n%s%s" % (p.returncode, out, err))
    j = json.loads(out)
    print("$ ebfarm stop --json: ledger %s" % json.dumps(j["ledger"], sort_keys=True))
    return j


def signal_proc(rig, proc, sig=signal.SIGKILL):
    """Sends SIG (SIGKILL unless told) to process PROC of the farm, says
    so; returns its pid."""
    pid = rig.pid_of(proc)
    os.kill(pid, sig)
    print("%s (%d): %s" % (proc, pid, signal.Signals(sig).name), flush=True)
    return pid


def fo_run(rate, accept_seed, store):
    """The run keys of a failover farm (fo_farm): 4 sources, run.events 0
    (until stopped), RATE events/s, 512-byte fragments, payload seed 1,
    the emulated trigger accepting 10% drawn with ACCEPT_SEED, the SFCs'
    timeout 2000 ms, replay buffers of 32 MB, storage under STORE (None:
    none)."""
    keys = {"sources": 4, "events": 0, "rate": rate, "duration_s": 300, "frag_size": 512,
            "seed": 1, "trigger_us": 1, "accept": FO_ACCEPT, "accept_seed": accept_seed,
            "timeout_ms": 2000, "replay_mb": 32}
    if store:
        keys["store"] = {"dir": store}
    return keys


FO_ACCEPT = 0.1         # fo_run's trigger fraction


def fo_checked(rig, j, store, sfcs, accept_seed, lost0=True, failover=True, replayed=False,
               late=True):
    """The checks every fo_* scenario makes of its `stop --json` J (fo_run's
    keys, the trigger drawn with ACCEPT_SEED); returns the ledger's
    redecided (0 without a failover). Always: the ledger closed with
    unaccounted 0 and the id checks matching; generated (over the
    survivors, `seen`, when a readout was lost) = the id range = accepted
    + rejected + lost, every loss named; SFCS SFCs gone; redecided equal
    to the failover view's count from the id records (redecided_marked).
    LOST0: lost 0, no reason. FAILOVER: they failed over, redecided <=
    replayed, and replayed > 0 when REPLAYED. STORE
    (the storage directory; None: not checked): the ids lost as
    replay_full all listed, accepted = the trigger's ids of the range less
    those, the storage balanced with nothing lost, and the files holding
    exactly those ids once each (stored_once; a replay_full id may be
    there) after dropping at most redecided marked copies, + the late
    accepts when LATE (a node declared dead that decided late)."""
    led = j["ledger"]
    check(led["closed"] and led["unaccounted"] == 0 and led["ids_match"], "ledger not closed")
    gen = led["seen"] if led.get("readout_lost") else led["generated"]
    check(gen == led["id_range"]["n"] == led["accepted"] + led["rejected"] + led["lost_total"],
          "generated %d (id range %d) != accepted %d + rejected %d + lost %d"
          % (gen, led["id_range"]["n"], led["accepted"], led["rejected"], led["lost_total"]))
    check(sum(led["lost"].values()) == led["lost_total"], "losses not all named")
    if lost0:
        check(led["lost_total"] == 0 and led["lost"] == {}, "lost %d: %r"
              % (led["lost_total"], led["lost"]))
    g = led.get("sfc_gone") or {}
    check(g.get("sfcs") == sfcs, "not %d SFC(s) gone: %r" % (sfcs, g))
    redecided = g.get("redecided", 0) if g.get("failover") else 0
    marked = j["failover"]["redecided_marked"]
    print("redecided: the ledger's %d, the id records' %d" % (redecided, marked))
    check(redecided == marked, "redecided %d, the id records' %d" % (redecided, marked))
    if failover:
        check(g.get("failover"), "not %d SFC(s) failed over: %r" % (sfcs, g))
        check(not replayed or g["replayed"] > 0, "nothing replayed: %r" % g)
        check(redecided <= g["replayed"], "redecided %d > replayed %d"
              % (redecided, g["replayed"]))
    if not store:
        return redecided
    r = led["id_range"]
    lost = set(led.get("lost_ids", {}).get("replay_full", []))
    check(len(lost) == led["lost"].get("replay_full", 0), "replay_full ids not all listed")
    trig = accepted_ids(r["lo"], r["n"], accept_seed, FO_ACCEPT)
    want = [i for i in trig if i not in lost]
    check(len(want) == led["accepted"], "accepted %d, the trigger's ids %d (%d lost)"
          % (led["accepted"], len(want), len(trig) - len(want)))
    check(led["store"]["balanced"] and led["store"]["lost_total"] == 0,
          "storage not balanced: %r" % led["store"])
    dropped = stored_once(rig, store, want, maybe=lost)
    late_n = led["late_accepted"] if late else 0
    check(dropped <= redecided + late_n, "%d marked copies dropped > redecided %d + late "
          "accepts %d" % (dropped, redecided, late_n))
    print("stored: %d accepted ids once each, %d marked copies dropped (redecided %d, late "
          "accepts %d), %d lost accepted" % (len(want), dropped, redecided, led["late_accepted"],
                                             len(trig) - len(want)))
    return redecided


def mix64(x):
    """proto/ebf_mix.h's mixer."""
    m = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def accepted_ids(lo, n, accept_seed, accept):
    """The ids among lo .. lo + n - 1 the emulated trigger accepts (its
    run keys accept_seed and accept: not the readouts' payload seed)."""
    s = mix64(accept_seed)
    return [i for i in range(lo, lo + n) if mix64(i ^ s) % 1000000 < accept * 1e6]


def stored_once(rig, store_dir, want, maybe=()):
    """`ebfarm events verify` of every file under STORE_DIR passes (a
    replayed copy is dropped, none stored twice unmarked) and the files
    hold exactly the ids WANT, each once after those drops, besides any of
    the ids MAYBE (a named loss that a dead place's node may have stored):
    returns the copies dropped."""
    files = sorted(glob.glob(os.path.join(store_dir, "**", "*.ebfev"), recursive=True))
    check(files, "no event files under %s" % store_dir)
    v = rig.ebfarm("events", "verify", *files)
    check("stored twice unmarked" not in v.stdout, "an id stored twice unmarked")
    m = re.search(r"events (\d+) once each: (\d+) replayed copies dropped", v.stdout)
    check(v.returncode == 0, "events verify: exit %d" % v.returncode)   # 1: unmarked copies
    check(re.search(r"files %d: %d ok, 0 bad; events \d+" % (len(files), len(files)), v.stdout),
          "events verify: a bad file")
    p = subprocess.run([rig.exe, "events", "dump", "--ids"] + files, env=rig.env,
                       stdout=subprocess.PIPE, text=True, timeout=120)
    skip = set(maybe)
    ids = [i for i in map(int, p.stdout.split()) if i not in skip]
    dropped = len(ids) - len(set(ids))
    check(sorted(set(ids)) == sorted(want), "stored ids differ from the accepted ones: %d "
          "stored, %d accepted, first differences %r"
          % (len(set(ids)), len(want), sorted(set(ids) ^ set(want))[:10]))
    check(dropped == (int(m.group(2)) if m else 0), "verify's dropped copies are not %d" % dropped)
    return dropped


def free_port():
    """A loopback TCP port free at the time of asking."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


class Prom:
    """A Prometheus server's HTTP API at 127.0.0.1:port."""

    def __init__(self, port):
        self.base = "http://127.0.0.1:%d" % port

    def query(self, expr):
        q = urllib.parse.urlencode({"query": expr})
        j = http_json("%s/api/v1/query?%s" % (self.base, q))
        check(j.get("status") == "success", "query %r: %s" % (expr, j))
        return j["data"]["result"]

    def label_values(self, label, match):
        q = urllib.parse.urlencode({"match[]": match})
        return http_json("%s/api/v1/label/%s/values?%s" % (self.base, label, q))["data"]

    def rules(self):
        return http_json(self.base + "/api/v1/rules")["data"]["groups"]


def start_exporter(rig):
    """`ebfarm metrics --prometheus` of rig's farm on a free loopback port:
    (its Popen, its port)."""
    log = open(os.path.join(rig.tmp, "exporter.out"), "w+")
    p = subprocess.Popen([rig.exe, "metrics", "--prometheus", "--farm", rig.name,
                          "--listen", "127.0.0.1:0"], stdout=log, stderr=subprocess.STDOUT,
                         env=rig.env)
    for _ in range(50):
        log.seek(0)
        m = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", log.read())
        if m:
            return p, int(m.group(1))
        time.sleep(0.1)
    log.seek(0)
    stop(p)
    check(False, "the exporter did not say its address: %r" % log.read())


def start_prometheus(rig, exporter_port):
    """A Prometheus server (scrape and rule evaluation every second, its
    TSDB under rig.tmp) scraping exporter_port with the shipped rules:
    (its Popen, a Prom on it)."""
    port = free_port()
    rules = os.path.join(rig.src, "monitoring/prometheus/ebfarm-rules.yml")
    cfg = os.path.join(rig.tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "rule_files: ['%s']\n"
                "scrape_configs:\n  - job_name: ebfarm\n"
                "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % (rules, exporter_port))
    log = open(os.path.join(rig.tmp, "prometheus.log"), "w")
    p = subprocess.Popen([shutil.which("prometheus"), "--config.file=" + cfg,
                          "--storage.tsdb.path=" + os.path.join(rig.tmp, "tsdb"),
                          "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
                         stdout=log, stderr=subprocess.STDOUT)
    return p, Prom(port)


def stop(p):
    """Terminates p (SIGTERM, SIGKILL after 10 s) if it still runs."""
    if p and p.poll() is None:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
