#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# test-nspawn.py - a farm on two booted systemd hosts (Debian 12 containers, systemd as PID 1) reached over ssh, its processes transient units: journal logs, exit status from systemd, a killed daemon failed, no unit left by down, and the unit templates of systemd/ started for real.
#
# The hosts: systemd-nspawn --boot of a Debian 12 root made once with
# debootstrap and cached in $EBFARM_NSPAWN_CACHE (default /var/cache/ebfarm),
# rebuilt when missing or when its package list changed; each container gets
# a tmpfs overlay over it (--volatile=overlay, so the cache stays clean), the
# build directory read-only at its own path, a network namespace of the
# test's, and its sshd with the test's key. The farm (ro0 and sfc0 on host b,
# memif between them; node0 and node1 on host a, af_packet over veth pairs
# to sfc0) is reached with `ssh: root@ADDR` and EBFARM_SSH_CONFIG, with
# EBFARM_LAUNCH=unit (a host without systemd would fail, not run plain).
# Checked:
#   0. an `up` whose node1 has no port: exit 1, "node1 exited while starting:
#      ... (log: journalctl -u UNIT _PID=PID on host h-a)", no unit left
#      on any host and nothing in their run directories (a memif socket made
#      the next up fail with "Address already in use");
#   0b. Ctrl-C on an `up` once a unit runs: exit 130, no unit and no run
#      directory of the farm left on any host;
#   1. `up`: every process a unit ebfarm-FARM-NAME.service, active, with the
#      templates' properties (Restart=no, LimitNOFILE 65536:524288,
#      LimitMEMLOCK infinity, TimeoutStopSec 60), MainPID the pid status shows;
#   2. the run: events 20000, `stop --json`'s ledger closed, generated 20000 =
#      accepted + rejected, lost 0, nodes' events 20000; `ebfarm logs sfc0`
#      from the journal: this sfc0's lines only (its unit's journal has the
#      failed and interrupted ups' sfc0 too), `--lines 2` the last two;
#   3. node1 killed (SIGKILL): its unit failed (Result=signal,
#      ExecMainStatus=9), status says EXITED "killed by SIGKILL (log:
#      journalctl -u UNIT _PID=PID on host h-a)"; `ebfarm restart node1`
#      makes its unit again: active, CONFIGURED, MainPID the pid status shows;
#   4. `down`: exit 0, no ebfarm unit left on either host (not even failed),
#      no run directory of the farm, no DPDK runtime directory;
#   5. the templates: ebfarm-readout@.service installed as the build makes it
#      for tests, started with an environment file: active, its control
#      socket in its RuntimeDirectory, LimitNOFILE 65536:524288 in
#      /proc/PID/limits (or the hosts' hard limit where lower: a machine
#      whose root lacks CAP_SYS_RESOURCE cannot give a container more);
#      SIGKILL: failed with NRestarts=0 (no restart behind run control);
#      started again and stopped: inactive, the daemon's staged stop on
#      SIGTERM exits 0.
# The containers have what a host's root has and nspawn withholds:
# CAP_IPC_LOCK (af_packet maps its rings locked) and CAP_NET_ADMIN (the
# port's MAC is set), and ask for the templates' limits (--rlimit).
# Nothing is left behind, also on failure or Ctrl-C: containers powered off
# (killed after 20 s), namespaces and veths deleted, DPDK runtime dirs gone.
# Exit 77 (with the reason) only when no cached root exists and the Debian
# mirror ($EBFARM_NSPAWN_MIRROR, else apt's) cannot be reached. Usage: test-nspawn.py SOURCE_DIR BUILD_DIR.
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

SRC, BUILD = sys.argv[1], sys.argv[2]
EBFARM = os.path.join(BUILD, "tools", "ebfarm")
CACHE = os.environ.get("EBFARM_NSPAWN_CACHE", "/var/cache/ebfarm")
ROOT = os.path.join(CACHE, "nspawn-bookworm")
# What the hosts need beside systemd: sshd, and the daemons' shared
# libraries and DPDK drivers (the build itself is mounted).
PACKAGES = sorted([
    "systemd", "dbus", "openssh-server", "libzmq5", "libprotobuf-c1", "libcyaml1",
    "libyaml-0-2", "libjansson4", "libsodium23", "libnuma1", "librte-ethdev23",
    "librte-pdump23", "librte-net-af-packet23", "librte-net-memif23",
    "librte-mempool-ring23", "librte-net-null23", "librte-net-ring23",
])
TAG = "ebn%d" % (os.getpid() % 100000)
HOSTS = ["a", "b"]
failed = 0


def check(cond, msg):
    global failed
    if not cond:
        print("FAIL: " + msg)
        failed += 1
    return cond


def run(*argv, timeout=120, check_rc=True):
    p = subprocess.run(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    if check_rc and p.returncode != 0:
        raise RuntimeError("%s -> %d: %s" % (" ".join(argv), p.returncode, p.stdout[-1500:]))
    return p


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


# --- The cached root ---------------------------------------------------------

def mirror():
    """$EBFARM_NSPAWN_MIRROR, or the machine's configured Debian mirror (the
    first deb URI of apt's sources that is not the security archive)."""
    if os.environ.get("EBFARM_NSPAWN_MIRROR"):
        return os.environ["EBFARM_NSPAWN_MIRROR"].rstrip("/")
    texts = []
    for f in ["/etc/apt/sources.list"] + sorted(
            os.path.join("/etc/apt/sources.list.d", n)
            for n in os.listdir("/etc/apt/sources.list.d")
            if n.endswith((".list", ".sources"))):
        if os.path.exists(f):
            texts.append(open(f).read())
    for t in texts:
        for m in re.finditer(r"^(?:deb\s+(?:\[[^]]*\]\s+)?|URIs:\s*)(\S+)", t, re.M):
            if "security" not in m.group(1):
                return m.group(1).rstrip("/")
    return "http://deb.debian.org/debian"


def build_root(log):
    url = mirror()
    try:
        urllib.request.urlopen(url + "/dists/bookworm/InRelease", timeout=15).close()
    except Exception as e:   # noqa: BLE001 - any failure means: cannot build it here
        skip("no cached root at %s and the Debian mirror %s cannot be reached (%s): "
             "the systemd hosts cannot be made on this machine" % (ROOT, url, e))
    tmp = ROOT + ".tmp%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    t0 = time.time()
    try:
        p = subprocess.run(["debootstrap", "--variant=minbase",
                            "--include=" + ",".join(PACKAGES), "bookworm", tmp, url],
                           stdout=log, stderr=subprocess.STDOUT, timeout=900)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if p.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        log.flush()
        raise RuntimeError("debootstrap from %s failed (exit %d): %s" % (
            url, p.returncode, open(log.name).read()[-1500:]))
    os.makedirs(os.path.join(tmp, "root/.ssh"), mode=0o700, exist_ok=True)
    with open(os.path.join(tmp, "etc/ssh/sshd_config.d/ebfarm-test.conf"), "w") as f:
        f.write("PasswordAuthentication no\nUseDNS no\nMaxSessions 64\nMaxStartups 64\n")
    for junk in ["var/cache/apt/archives", "var/lib/apt/lists"]:
        shutil.rmtree(os.path.join(tmp, junk), ignore_errors=True)
        os.makedirs(os.path.join(tmp, junk), exist_ok=True)
    with open(os.path.join(tmp, ".ebfarm-packages"), "w") as f:
        f.write("\n".join(PACKAGES) + "\n")
    shutil.rmtree(ROOT, ignore_errors=True)
    os.rename(tmp, ROOT)
    print("built the hosts' root %s from %s in %.0f s" % (ROOT, url, time.time() - t0))


def get_root(tmpdir):
    """The cached root, made when missing or stale (under a lock: two runs at
    once build it once)."""
    os.makedirs(CACHE, exist_ok=True)
    lock = open(os.path.join(CACHE, ".nspawn.lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        mark = os.path.join(ROOT, ".ebfarm-packages")
        if not os.path.exists(mark) or open(mark).read().split() != PACKAGES:
            with open(os.path.join(tmpdir, "debootstrap.log"), "w") as log:
                build_root(log)
        else:
            print("the hosts' root: %s (cached)" % ROOT)
    finally:
        lock.close()


# --- Hosts -------------------------------------------------------------------

class Hosts:
    """Two network namespaces joined by veth pairs (management to this
    machine, data between them) and a booted container in each."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.ns = {h: "%s-%s" % (TAG, h) for h in HOSTS}
        self.links = []
        self.boxes = {}
        self.addr = {}

    def subnet(self):
        used = run("ip", "-4", "-o", "addr").stdout
        for i in range(200):
            b = (os.getpid() + i) % 250
            if " 10.213.%d." % b not in used:
                return b
        raise RuntimeError("no free 10.213.X.0/24 subnet")

    def make(self):
        b = self.subnet()
        for i, h in enumerate(HOSTS):
            run("ip", "netns", "add", self.ns[h])
            rif = "%s%sm" % (TAG, h)
            run("ip", "link", "add", rif, "type", "veth", "peer", "name", "mgmt", "netns",
                self.ns[h])
            self.links.append(rif)
            run("ip", "addr", "add", "10.213.%d.%d/30" % (b, 4 * i + 1), "dev", rif)
            run("ip", "link", "set", rif, "up")
            self.addr[h] = "10.213.%d.%d" % (b, 4 * i + 2)
            run("ip", "-n", self.ns[h], "addr", "add", self.addr[h] + "/30", "dev", "mgmt")
            run("ip", "-n", self.ns[h], "link", "set", "mgmt", "up")
            run("ip", "-n", self.ns[h], "link", "set", "lo", "up")
        # Data: ro0 -> sfc0 is memif on host b; sfc0 <-> node0, node1 veths.
        for a_if, b_if in [("n0", "nd0"), ("n1", "nd1")]:
            run("ip", "link", "add", a_if + TAG, "netns", self.ns["a"], "type", "veth",
                "peer", "name", b_if, "netns", self.ns["b"])
            run("ip", "-n", self.ns["a"], "link", "set", a_if + TAG, "name", a_if)
            for h, i in (("a", a_if), ("b", b_if)):
                run("ip", "netns", "exec", self.ns[h], "sysctl", "-qw",
                    "net.ipv6.conf.%s.disable_ipv6=1" % i)
                run("ip", "-n", self.ns[h], "link", "set", i, "up")

    def keys(self):
        key = os.path.join(self.tmp, "id_ed25519")
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ebfarm-nspawn-test", "-f", key)
        shutil.copy(key + ".pub", os.path.join(self.tmp, "authorized_keys"))
        os.chmod(os.path.join(self.tmp, "authorized_keys"), 0o600)
        hostkey = open(os.path.join(ROOT, "etc/ssh/ssh_host_ed25519_key.pub")).read().split()
        with open(os.path.join(self.tmp, "known_hosts"), "w") as f:
            for h in HOSTS:
                f.write("%s %s %s\n" % (self.addr[h], hostkey[0], hostkey[1]))
        self.ssh_config = os.path.join(self.tmp, "ssh_config")
        with open(self.ssh_config, "w") as f:
            f.write("Host *\n  IdentityFile %s\n  IdentitiesOnly yes\n"
                    "  UserKnownHostsFile %s/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
                    "  StrictHostKeyChecking yes\n" % (key, self.tmp))

    def boot(self):
        for h in HOSTS:
            log = open(os.path.join(self.tmp, "host-%s.log" % h), "w")
            self.boxes[h] = subprocess.Popen(
                ["systemd-nspawn", "-q", "-D", ROOT, "--volatile=overlay", "--boot",
                 "--register=no", "--keep-unit", "--console=passive",
                 "-M", "%s-%s" % (TAG, h), "--network-namespace-path=/run/netns/" + self.ns[h],
                 "--bind-ro=" + BUILD, "--capability=CAP_IPC_LOCK,CAP_NET_ADMIN",
                 "--rlimit=RLIMIT_NOFILE=65536:524288", "--rlimit=RLIMIT_MEMLOCK=infinity",
                 "--bind-ro=%s/authorized_keys:/root/.ssh/authorized_keys" % self.tmp],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        t0 = time.time()
        for h in HOSTS:
            while True:
                if self.boxes[h].poll() is not None:
                    raise RuntimeError("host %s exited while booting (%d): %s" % (
                        h, self.boxes[h].returncode,
                        open(os.path.join(self.tmp, "host-%s.log" % h)).read()[-1500:]))
                if self.sh(h, "true", check_rc=False, timeout=15).returncode == 0:
                    break
                if time.time() - t0 > 120:
                    raise RuntimeError("host %s: no ssh after 120 s" % h)
                time.sleep(0.5)
        print("hosts booted, ssh up in %.1f s" % (time.time() - t0))

    def sh(self, h, script, check_rc=True, timeout=60):
        return run("ssh", "-F", self.ssh_config, "-o", "BatchMode=yes", "-o",
                   "ConnectTimeout=5", "-l", "root", self.addr[h], "--", script,
                   check_rc=check_rc, timeout=timeout)

    def units(self, h):
        """The ebfarm units host h knows of, in any state: {name: state}."""
        out = self.sh(h, "systemctl list-units --all --plain --no-legend 'ebfarm*'").stdout
        return {l.split()[0]: l.split()[3] for l in out.splitlines() if l.strip()}

    def remove(self):
        for h, p in self.boxes.items():
            if p.poll() is None:
                p.send_signal(signal.SIGRTMIN + 4)    # systemd: poweroff
        for h, p in self.boxes.items():
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                print("host %s did not power off in 20 s: killed" % h)
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        for ns in self.ns.values():
            if os.path.exists("/run/netns/" + ns):
                pids = run("ip", "netns", "pids", ns, check_rc=False).stdout.split()
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except OSError:
                        pass
                run("ip", "netns", "del", ns, check_rc=False)
        for link in self.links:
            run("ip", "link", "del", link, check_rc=False)

    def left(self):
        """What of the hosts is left: namespaces, links, container processes."""
        ns = run("ip", "netns", "list").stdout
        links = run("ip", "-o", "link").stdout
        out = [n for n in self.ns.values() if re.search(r"^%s\b" % n, ns, re.M)]
        out += [l for l in self.links if (" %s@" % l) in links or (" %s:" % l) in links]
        out += ["container %s" % h for h, p in self.boxes.items() if p.poll() is None]
        return out


# --- The farm ----------------------------------------------------------------

AFP = "blocksz=4096,framesz=2048,framecnt=4096,qdisc_bypass=0"
PROPS = {"Restart": "no", "LimitNOFILE": "524288", "LimitNOFILESoft": "65536",
         "LimitMEMLOCK": "infinity", "TimeoutStopUSec": "1min", "KillSignal": "15"}


def farm_file(tmp, name, addr):
    return """farm: {name}
keys: keys
defaults:
  idle: backoff
  no_huge: true
  memory_mb: 128
  metrics_period_ms: 500
run:
  sources: 4
  events: 20000
  rate: 5000
  frag_size: 1024
  accept: 0.1
  timeout_ms: 2000
hosts:
  - {{name: h-a, ssh: root@{a}}}
  - {{name: h-b, ssh: root@{b}}}
readouts:
  - {{name: ro0, host: h-b, port: "memif:ro0-sfc0", mac: "02:eb:00:00:00:10", sfcs: [sfc0],
     control: "tcp://{{host}}:5550", metrics: "tcp://{{host}}:5551"}}
sfcs:
  - {{name: sfc0, host: h-b, id: 0, port: "memif:ro0-sfc0", mac: "02:eb:00:00:00:01",
     memory_mb: 256, control: "tcp://{{host}}:5552", metrics: "tcp://{{host}}:5553"}}
nodes:
  - {{name: node0, host: h-a, sfc: sfc0, port: "net_af_packet0,iface=n0,{afp}",
     mac: "02:eb:00:00:02:00", sfc_port: "net_af_packet1,iface=nd0,{afp}",
     sfc_mac: "02:eb:00:00:01:00", control: "tcp://{{host}}:5550", metrics: "tcp://{{host}}:5551"}}
  - {{name: node1, host: h-a, sfc: sfc0, port: "net_af_packet0,iface=n1,{afp}",
     mac: "02:eb:00:00:02:01", sfc_port: "net_af_packet2,iface=nd1,{afp}",
     sfc_mac: "02:eb:00:00:01:01", control: "tcp://{{host}}:5552", metrics: "tcp://{{host}}:5553"}}
""".format(name=name, a=addr["a"], b=addr["b"], afp=AFP)


class Farm:
    def __init__(self, tmp, hosts):
        self.name = "nsp%d" % (os.getpid() % 100000)
        self.tmp, self.hosts = tmp, hosts
        self.run_dir = os.path.join(tmp, "run")
        os.makedirs(self.run_dir)
        self.env = dict(os.environ, EBFARM_RUN_DIR=self.run_dir, EBFARM_BUILD_DIR=BUILD,
                        EBFARM_SSH_CONFIG=hosts.ssh_config, EBFARM_LAUNCH="unit")
        run(EBFARM, "keygen", os.path.join(tmp, "keys"))
        self.path = os.path.join(tmp, self.name + ".yaml")
        open(self.path, "w").write(farm_file(tmp, self.name, hosts.addr))
        self.up = False

    def ebfarm(self, *args, timeout=180):
        """Runs `ebfarm ARGS`; on Ctrl-C (which it gets too) it is let finish
        its own cleanup before the test's."""
        t0 = time.time()
        child = subprocess.Popen([EBFARM] + list(args), env=self.env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            out, err = child.communicate(timeout=timeout)
        except BaseException:
            try:
                child.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
                child.communicate()
            raise
        p = subprocess.CompletedProcess(child.args, child.returncode, out, err)
        print("$ ebfarm %s -> %d (%.1f s)\n%s%s" % (" ".join(args), p.returncode,
                                                   time.time() - t0, p.stdout[-3000:],
                                                   p.stderr[-3000:]))
        return p

    def status(self):
        """`status --json`'s processes by name (not printed: long)."""
        p = subprocess.run([EBFARM, "status", "--json", "--farm", self.name], env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        return {x["name"]: x for x in json.loads(p.stdout)["processes"]}

    def ssh_dir(self):
        """The tool's ssh directory of the farm (farm_host_ssh_dir)."""
        h = 2166136261
        for c in os.path.join(self.run_dir, self.name).encode():
            h = ((h ^ c) * 16777619) & 0xffffffff
        return "/run/ebfarm-ssh/%08x" % h

    def unit(self, proc):
        return "ebfarm-%s-%s.service" % (self.name, proc)


def show(hosts, h, unit, props):
    out = hosts.sh(h, "systemctl show %s -p %s" % (unit, ",".join(props))).stdout
    return dict(l.split("=", 1) for l in out.splitlines() if "=" in l)


def where(proc):
    return "a" if proc.startswith("node") else "b"


def check_failed_up(farm, hosts):
    """0: an up whose node1 cannot open its port fails naming the unit's
    journal, and leaves no unit: the next up works."""
    bad = farm.path.replace(".yaml", "-bad.yaml")
    open(bad, "w").write(open(farm.path).read().replace("iface=n1,", "iface=nosuch,"))
    p = farm.ebfarm("up", bad)
    want = r"\(log: journalctl -u %s _PID=[1-9]\d* on host h-a\)" % farm.unit("node1")
    check(p.returncode == 1 and "ebfarm up: node1 exited while starting: " in p.stderr and
          re.search(want, p.stderr), "up with node1's port missing: exit %d, want 1 and %r" % (
              p.returncode, want))
    for h in HOSTS:
        u = hosts.units(h)
        check(u == {}, "host %s after the failed up: units %r" % (h, u))
        # Kept for logs (a unit's are in the journal): no socket, key or record.
        left = hosts.sh(h, "ls -A %s/%s 2>/dev/null; true" % (farm.run_dir, farm.name)).stdout
        check(left.split() == [], "host %s after the failed up: run directory %r" % (
            h, left.split()))
    os.unlink(bad)


def check_interrupted_up(farm, hosts):
    """0b: Ctrl-C on an up that has started units: exit 130, no unit and no
    run directory left on any host."""
    child = subprocess.Popen([EBFARM, "up", farm.path], env=farm.env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    deadline, seen = time.time() + 60, {}
    while time.time() < deadline and not seen and child.poll() is None:
        seen = hosts.units("b")
    if child.poll() is None:
        os.killpg(child.pid, signal.SIGINT)     # as the terminal's Ctrl-C
    out = child.communicate(timeout=120)[0]
    print("$ ebfarm up %s, Ctrl-C once %s was a unit -> %d\n%s" % (
        farm.path, sorted(seen), child.returncode, out[-2000:]))
    check(seen and child.returncode == 130, "Ctrl-C on up after units %r: exit %d, want 130" %
          (sorted(seen), child.returncode))
    for h in HOSTS:
        u = hosts.units(h)
        check(u == {}, "host %s after the interrupted up: units %r" % (h, u))
        left = hosts.sh(h, "ls -d %s/%s 2>/dev/null; true" % (farm.run_dir, farm.name)).stdout
        check(left.split() == [], "host %s after the interrupted up: %r" % (h, left.split()))


def check_up(farm, hosts):
    """1: every process a unit, active, the templates' properties."""
    st = farm.status()
    check(sorted(st) == ["node0", "node1", "ro0", "sfc0"], "processes: %r" % sorted(st))
    for proc, x in sorted(st.items()):
        s = show(hosts, where(proc), farm.unit(proc),
                 ["ActiveState", "SubState", "MainPID"] + sorted(PROPS))
        check((s.get("ActiveState"), s.get("SubState")) == ("active", "running"),
              "%s: unit %s/%s" % (proc, s.get("ActiveState"), s.get("SubState")))
        check(s.get("MainPID") == str(x.get("pid")),
              "%s: MainPID %s, status says pid %s" % (proc, s.get("MainPID"), x.get("pid")))
        got = {k: s.get(k) for k in PROPS}
        check(got == PROPS, "%s: unit properties %r, want %r" % (proc, got, PROPS))


def check_run(farm, hosts):
    """2: a whole run and its ledger; logs from the journal."""
    deadline = time.time() + 60
    while time.time() < deadline:
        if all(x.get("state") in ("FINISHED", "STOPPED") or x.get("finished")
               for n, x in farm.status().items() if n == "ro0"):
            break
        time.sleep(1)
    p = farm.ebfarm("stop", "--farm", farm.name, "--json")
    if not check(p.returncode == 0, "stop: exit %d" % p.returncode):
        return
    led = json.loads(p.stdout)["ledger"]
    nodes = sum(n["events"] for n in json.loads(p.stdout)["nodes"] if not n["gone"])
    check(nodes == 20000, "nodes' events %d, want 20000" % nodes)
    got = (led["generated"], led["accepted"] + led["rejected"], led["lost_total"], led["closed"])
    check(got == (20000, 20000, 0, True),
          "ledger (generated, accepted + rejected, lost, closed) %r, want (20000, 20000, 0, "
          "True)" % (got,))
    # The journal of the unit holds the failed up's sfc0 too; logs shows
    # this process's lines only, the last N with --lines N.
    pid = farm.status()["sfc0"]["pid"]
    j = hosts.sh("b", "journalctl -u %s --no-pager -o cat" % farm.unit("sfc0")).stdout
    starts = re.findall(r"ebfarm-sfc \S+ started, pid (\d+)", j)
    # The failed up's sfc0 and this one; the interrupted up's when it got
    # that far before the Ctrl-C.
    check(len(starts) in (2, 3) and starts[-1] == str(pid),
          "sfc0's unit journal: daemon starts %r, want 2 or 3, the last pid %d" % (starts, pid))
    p = farm.ebfarm("logs", "--farm", farm.name, "sfc0")
    mine = re.findall(r"ebfarm-sfc \S+ started, pid (\d+)", p.stdout)
    check(p.returncode == 0 and mine == [str(pid)],
          "ebfarm logs sfc0: exit %d, daemon starts %r, want [%r]" % (p.returncode, mine, pid))
    for line in ["sfc0: ctl: CONFIGURED -> RUNNING",
                 "sfc0: sfc: drained: 20000 events sent, 20000 acked"]:
        check(line in p.stdout, "ebfarm logs sfc0: no line %r" % line)
    last = farm.ebfarm("logs", "--farm", farm.name, "sfc0", "--lines", "2")
    check(last.returncode == 0 and last.stdout.splitlines() == p.stdout.splitlines()[-2:],
          "ebfarm logs sfc0 --lines 2: %r, want the last 2 of %d" % (
              last.stdout.splitlines(), len(p.stdout.splitlines())))



def check_kill(farm, hosts):
    """3: node1 killed: its unit failed, status names how it ended."""
    pid = farm.status()["node1"]["pid"]
    hosts.sh("a", "kill -KILL %d" % pid)
    want = {"ActiveState": "failed", "Result": "signal", "ExecMainCode": "2",
            "ExecMainStatus": "9"}
    deadline = time.time() + 20
    while time.time() < deadline:
        s = show(hosts, "a", farm.unit("node1"), sorted(want))
        if s.get("ActiveState") == "failed":
            break
        time.sleep(0.5)
    check(s == want, "node1 killed: unit %r, want %r" % (s, want))
    x = farm.status()["node1"]
    note = "killed by SIGKILL (log: journalctl -u %s _PID=%d on host h-a)" % (
        farm.unit("node1"), pid)
    check((x.get("state"), x.get("error")) == ("EXITED", note),
          "node1 killed: status %r %r, want EXITED %r" % (x.get("state"), x.get("error"), note))
    others = sorted(n for n, x in farm.status().items() if x.get("state") == "EXITED")
    check(others == ["node1"], "processes EXITED: %r, want ['node1']" % others)
    # restart: a new unit of the same name (systemd-run refuses a name whose
    # failed unit is still loaded: up resets it first).
    r = farm.ebfarm("restart", "node1", "--farm", farm.name)
    check(r.returncode == 0 and r.stdout.startswith("node1 restarted (it had exited)"),
          "restart node1: exit %d %r" % (r.returncode, r.stdout))
    x = farm.status()["node1"]
    s = show(hosts, "a", farm.unit("node1"), ["ActiveState", "SubState", "MainPID"])
    got = (x.get("state"), s.get("ActiveState"), s.get("SubState"), s.get("MainPID"))
    want = ("CONFIGURED", "active", "running", str(x.get("pid")))
    check(got == want, "node1 restarted: (state, unit state, substate, MainPID) %r, want %r" %
          (got, want))


def check_down(farm, hosts):
    """4: down leaves no unit on either host, not even a failed one."""
    p = farm.ebfarm("down", "--farm", farm.name)
    farm.up = p.returncode != 0
    check(p.returncode == 0, "down: exit %d" % p.returncode)
    for h in HOSTS:
        u = hosts.units(h)
        check(u == {}, "host %s after down: units %r" % (h, u))
        left = hosts.sh(h, "ls /var/run/dpdk 2>/dev/null; ls -d %s/%s 2>/dev/null; true" %
                        (farm.run_dir, farm.name)).stdout.split()
        check(left == [], "host %s after down: %r" % (h, left))


def check_templates(hosts):
    """5: a readout from systemd/'s template, as a site would run it."""
    unit = "ebfarm-readout@rt0.service"
    env = ('EBFARM_EAL_ARGS="--no-huge -m 64 --no-pci --vdev=net_null0 --file-prefix=rt0 '
           '--log-level=lib.eal:warning"\n'
           'EBFARM_ARGS="--port=net_null0 --sfc-mac=02:eb:00:00:00:01 --idle=backoff '
           '--control=ipc:///run/ebfarm/rt0/control.sock"\n')
    hosts.sh("b", "mkdir -p /etc/ebfarm && printf '%%s' '%s' >/etc/ebfarm/rt0.env && "
             "cp %s/systemd/build-ebfarm-readout@.service "
             "/etc/systemd/system/ebfarm-readout@.service && systemctl daemon-reload && "
             "systemctl start %s" % (env, BUILD, unit))
    props = ["ActiveState", "SubState", "MainPID", "NRestarts", "Result", "ExecMainStatus"]

    def wait_state(state):
        deadline = time.time() + 20
        while time.time() < deadline:
            s = show(hosts, "b", unit, props)
            if s.get("ActiveState") == state:
                break
            time.sleep(0.5)
        return s

    s = wait_state("active")
    check(s.get("SubState") == "running", "template %s: %r" % (unit, s))
    # The unit's limits as far as the host allows: here PID 1's hard limit,
    # which a machine without CAP_SYS_RESOURCE cannot raise (systemd then
    # gives the closest, as on a host whose fs.nr_open is lower).
    cap = int(hosts.sh("b", "grep 'Max open files' /proc/1/limits").stdout.split()[4])
    want = [str(min(65536, cap)), str(min(524288, cap))]
    if cap < 524288:
        print("note: the hosts' hard limit of open files is %d (this machine's): the "
              "template's 65536:524288 is given as %s:%s" % (cap, want[0], want[1]))
    lim = hosts.sh("b", "grep 'Max open files' /proc/%s/limits" % s.get("MainPID"),
                   check_rc=False).stdout.split()
    check(lim[3:5] == want, "template: the daemon's open-files limits %r, want %r" % (
        lim[3:5], want))
    sock = hosts.sh("b", "test -S /run/ebfarm/rt0/control.sock && echo yes",
                    check_rc=False).stdout.strip()
    check(sock == "yes", "template: no control socket in its RuntimeDirectory")
    hosts.sh("b", "kill -KILL %s" % s.get("MainPID"))
    s = wait_state("failed")
    time.sleep(1)                       # a restart, if any, would come within 100 ms
    s = show(hosts, "b", unit, props)
    got = (s.get("ActiveState"), s.get("Result"), s.get("NRestarts"), s.get("ExecMainStatus"))
    check(got == ("failed", "signal", "0", "9"),
          "template after SIGKILL (state, result, restarts, status) %r, want "
          "('failed', 'signal', '0', '9')" % (got,))
    hosts.sh("b", "systemctl reset-failed %s && systemctl start %s" % (unit, unit))
    s = wait_state("active")
    hosts.sh("b", "systemctl stop %s" % unit, timeout=90)
    s = show(hosts, "b", unit, props)
    got = (s.get("ActiveState"), s.get("Result"), s.get("ExecMainStatus"))
    check(got == ("inactive", "success", "0"),
          "template after stop (state, result, status) %r, want ('inactive', 'success', '0')"
          % (got,))
    check(hosts.units("b") == {}, "template: units left %r" % hosts.units("b"))


def main():
    if os.geteuid() != 0:
        skip("needs root (network namespaces, systemd-nspawn)")
    for tool in ("systemd-nspawn", "debootstrap"):
        if not shutil.which(tool):
            print("FAIL: %s is missing: install %s (tools/scripts/packages.txt)" % (
                tool, "systemd-container" if tool == "systemd-nspawn" else tool))
            sys.exit(1)
    # Ctrl-C (also where the caller left SIGINT ignored) and SIGTERM (meson's
    # timeout) end the test through the cleanups below.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    tmp = tempfile.mkdtemp(prefix="ebf-nsp-")
    os.chmod(tmp, 0o755)
    try:
        get_root(tmp)
    except (RuntimeError, subprocess.TimeoutExpired, KeyboardInterrupt) as e:
        print("FAIL: the hosts' root: %s" % (e or "interrupted"))
        shutil.rmtree(tmp, ignore_errors=True)
        sys.exit(1)
    except SystemExit:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    hosts, farm = Hosts(tmp), None
    t0 = time.time()
    try:
        hosts.make()
        hosts.keys()
        hosts.boot()
        farm = Farm(tmp, hosts)
        check_failed_up(farm, hosts)
        check_interrupted_up(farm, hosts)
        p = farm.ebfarm("up", farm.path)
        farm.up = True
        if check(p.returncode == 0, "up: exit %d" % p.returncode):
            check_up(farm, hosts)
            check_run(farm, hosts)
            check_kill(farm, hosts)
            check_down(farm, hosts)
        check_templates(hosts)
    except KeyboardInterrupt:
        check(False, "interrupted")
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        check(False, "%s: %s" % (type(e).__name__, e))
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):    # a second one: the cleanup goes on
            signal.signal(sig, signal.SIG_IGN)
        if farm and farm.up:
            farm.ebfarm("down", "--farm", farm.name)
        hosts.remove()
        left = hosts.left()
        if farm and os.path.exists(farm.ssh_dir()):
            left.append(farm.ssh_dir())
            shutil.rmtree(farm.ssh_dir(), ignore_errors=True)
        check(left == [], "left behind: %r" % left)
        shutil.rmtree(tmp, ignore_errors=True)
    print("%s in %.0f s" % ("FAILED (%d)" % failed if failed else "passed", time.time() - t0))
    sys.exit(1 if failed else 0)


main()
