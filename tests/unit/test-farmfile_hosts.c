/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farmfile_hosts.c - the farm file's hosts: the example, defaults per host, claims per host, bad files' exact messages. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "farmfile.h"

#ifndef EBF_SOURCE_ROOT
#error "EBF_SOURCE_ROOT: the source directory, for farms/*.yaml"
#endif

static struct farm_spec spec;   /* large: not on the stack */
static char err[2048];

static int parse(const char *yaml)
{
    err[0] = '\0';
    return farm_spec_parse(yaml, strlen(yaml), "h.yaml", &spec, err, sizeof(err));
}

/* A readout, an SFC and two nodes; HOSTS and the processes' host lines
 * are the cases' own. RO, SFC, N0, N1 take the extra lines of each. */
#define HEAD "farm: h\n"
#define RO(extra)                                                                 \
    "readouts:\n"                                                                 \
    "  - name: ro0\n"                                                             \
    "    port: memif:a\n"                                                         \
    "    mac: 02:00:00:00:00:01\n"                                                \
    "    sfcs: [sfc0]\n" extra
#define SFC(extra)                                                                \
    "sfcs:\n"                                                                     \
    "  - name: sfc0\n"                                                            \
    "    port: memif:a\n"                                                         \
    "    mac: 02:00:00:00:00:02\n" extra
#define N0(extra)                                                                 \
    "nodes:\n"                                                                    \
    "  - name: n0\n"                                                              \
    "    sfc: sfc0\n"                                                             \
    "    port: memif:b\n"                                                         \
    "    mac: 02:00:00:00:00:03\n" extra
#define N1(extra)                                                                 \
    "  - name: n1\n"                                                              \
    "    sfc: sfc0\n"                                                             \
    "    port: memif:c\n"                                                         \
    "    mac: 02:00:00:00:00:04\n" extra
/* Two hosts: this machine and one over ssh. */
#define TWO_HOSTS                                                                 \
    "hosts:\n"                                                                    \
    "  - {name: here, local: true}\n"                                             \
    "  - {name: rack2, ssh: daq@10.0.0.2}\n"
#define ON(h) "    host: " h "\n"
/* Every process on `here`, the smallest valid farm with TWO_HOSTS. */
#define ALL_HERE HEAD TWO_HOSTS RO(ON("here")) SFC(ON("here")) N0(ON("here"))

/* --- Files that load --------------------------------------------------------- */

START_TEST(test_example)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/farms/hosts-example.yaml", EBF_SOURCE_ROOT);
    ck_assert_msg(farm_spec_load(path, &spec, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(spec.n_hosts, 4);
    static const char *const name[] = {"ro-host", "sfc-host", "node-host-a", "node-host-b"};
    static const char *const addr[] = {"10.10.0.11", "sfc1.daq.example.org", "10.10.0.21",
                                       "fd00:eb::22"};
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_str_eq(spec.host[i].name, name[i]);
        ck_assert_int_eq(spec.host[i].kind, FF_HOST_SSH);
        ck_assert_str_eq(spec.host[i].user, "daq");
        ck_assert_str_eq(spec.host[i].address, addr[i]);
        ck_assert_str_eq(spec.host[i].netns, "");
    }
    ck_assert_uint_eq(spec.readout[0].p.host, 0);
    ck_assert_str_eq(spec.readout[0].p.lcores, "0@(2)");          /* the host's */
    ck_assert_uint_eq(spec.readout[0].p.n_eal_args, 1);
    ck_assert_str_eq(spec.readout[0].p.eal_args[0], "--huge-dir=/dev/hugepages");
    ck_assert_uint_eq(spec.sfc[0].p.host, 1);
    ck_assert_uint_eq(spec.sfc[1].p.host, 1);
    ck_assert_str_eq(spec.sfc[1].p.lcores, "0@(6)");             /* its own */
    ck_assert_uint_eq(spec.sfc[1].p.n_eal_args, 1);
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_uint_eq(spec.node[i].p.host, 2 + i / 2);
        ck_assert_uint_eq(spec.node[i].p.n_eal_args, 0);
    }
    ck_assert_str_eq(spec.node[2].port.dev, "0000:86:00.0");     /* as node0's, elsewhere */
    ck_assert_str_eq(farm_host_kind_name(FF_HOST_LOCAL), "local");
    ck_assert_str_eq(farm_host_kind_name(FF_HOST_SSH), "ssh");
    ck_assert_str_eq(farm_host_kind_name(FF_HOST_NETNS), "netns");
    ck_assert_str_eq(farm_host_kind_name((enum ff_host_kind)9), "unknown");
}
END_TEST

/* Without hosts every process is on the implicit local host, which a
 * process may also name. */
START_TEST(test_implicit_localhost)
{
    ck_assert_msg(parse(HEAD RO("") SFC(ON("localhost")) N0("")) == 0, "%s", err);
    ck_assert_uint_eq(spec.n_hosts, 1);
    ck_assert_str_eq(spec.host[0].name, "localhost");
    ck_assert_int_eq(spec.host[0].kind, FF_HOST_LOCAL);
    ck_assert_uint_eq(spec.readout[0].p.host, 0);
    ck_assert_uint_eq(spec.sfc[0].p.host, 0);
    ck_assert_uint_eq(spec.node[0].p.host, 0);
}
END_TEST

/* One host listed: every process is on it without naming it. Its lcores
 * and eal_args come between defaults' and the process's own. */
START_TEST(test_one_host_defaults)
{
    static const char yaml[] = HEAD
        "defaults: {lcores: 1, eal_args: [--log-level=7]}\n"
        "hosts:\n"
        "  - name: ns1\n"
        "    netns: ebf-ns1\n"
        "    lcores: '0@(3)'\n"
        "    eal_args: [--in-memory, --log-level=lib.eal:debug]\n"
        RO("    eal_args: [--iova-mode=va]\n")
        SFC("    lcores: 4\n")
        N0("    lcores: '0@(5,6)'\n");

    ck_assert_msg(parse(yaml) == 0, "%s", err);
    ck_assert_uint_eq(spec.n_hosts, 1);
    ck_assert_str_eq(spec.host[0].name, "ns1");
    ck_assert_int_eq(spec.host[0].kind, FF_HOST_NETNS);
    ck_assert_str_eq(spec.host[0].netns, "ebf-ns1");
    ck_assert_str_eq(spec.readout[0].p.lcores, "0@(3)");
    ck_assert_uint_eq(spec.readout[0].p.n_eal_args, 4);
    ck_assert_str_eq(spec.readout[0].p.eal_args[0], "--log-level=7");
    ck_assert_str_eq(spec.readout[0].p.eal_args[1], "--in-memory");
    ck_assert_str_eq(spec.readout[0].p.eal_args[2], "--log-level=lib.eal:debug");
    ck_assert_str_eq(spec.readout[0].p.eal_args[3], "--iova-mode=va");
    ck_assert_str_eq(spec.sfc[0].p.lcores, "4");
    ck_assert_uint_eq(spec.sfc[0].p.n_eal_args, 3);
    ck_assert_str_eq(spec.node[0].p.lcores, "0@(5,6)");
    ck_assert_uint_eq(spec.node[0].p.host, 0);
}
END_TEST

/* The forms of an ssh host, and what two hosts may both have: the same
 * CPUs, PCI address, interface and tcp endpoint. */
START_TEST(test_ssh_forms_and_two_hosts)
{
    static const char yaml[] = HEAD
        "keys: /etc/ebfarm/keys\n"
        "hosts:\n"
        "  - {name: a, ssh: 'root@[2001:db8::1]'}\n"
        "  - {name: b, ssh: rack-2.example.org}\n"
        "  - {name: c, address: 192.168.1.20, user: daq_1}\n"
        "  - {name: d, address: 'fe80::1%eth0'}\n"
        "readouts:\n"
        "  - {name: ro0, host: a, port: 3b:00.0, mac: 02:00:00:00:00:01, sfcs: [sfc0],\n"
        "     lcores: '0@(2)', control: 'tcp://eth0:5550'}\n"
        "sfcs:\n"
        "  - {name: sfc0, host: b, port: 3b:00.0, mac: 02:00:00:00:00:02, lcores: '0@(2)',\n"
        "     control: 'tcp://eth0:5550'}\n"
        "nodes:\n"
        "  - {name: n0, host: c, sfc: sfc0, port: 'net_af_packet0,iface=eth1',\n"
        "     sfc_port: 3b:00.1, mac: 02:00:00:00:00:03, lcores: 2, control: 'tcp://eth0:5550'}\n"
        "  - {name: n1, host: d, sfc: sfc0, port: 'net_af_xdp0,iface=eth1',\n"
        "     sfc_port: 3b:00.1, mac: 02:00:00:00:00:04, lcores: 2}\n";

    ck_assert_msg(parse(yaml) == 0, "%s", err);
    ck_assert_uint_eq(spec.n_hosts, 4);
    ck_assert_str_eq(spec.host[0].user, "root");
    ck_assert_str_eq(spec.host[0].address, "2001:db8::1");
    ck_assert_str_eq(spec.host[1].user, "");
    ck_assert_str_eq(spec.host[1].address, "rack-2.example.org");
    ck_assert_str_eq(spec.host[2].user, "daq_1");
    ck_assert_str_eq(spec.host[2].address, "192.168.1.20");
    ck_assert_str_eq(spec.host[3].user, "");
    ck_assert_str_eq(spec.host[3].address, "fe80::1%eth0");
    for (unsigned i = 0; i < 4; i++)
        ck_assert_int_eq(spec.host[i].kind, FF_HOST_SSH);
    ck_assert_uint_eq(spec.node[1].p.host, 3);
}
END_TEST

/* A node's sfc_port is its SFC's: nodes sharing their SFC's port claim
 * nothing twice, wherever the nodes are. */
START_TEST(test_sfc_port_is_the_sfcs)
{
    static const char yaml[] = HEAD TWO_HOSTS
        RO(ON("here"))
        "sfcs:\n"
        "  - {name: sfc0, host: here, port: memif:a, mac: 02:00:00:00:00:02}\n"
        "nodes:\n"
        "  - {name: n0, host: rack2, sfc: sfc0, port: 86:00.0, sfc_port: 5e:00.0,\n"
        "     mac: 02:00:00:00:00:03}\n"
        "  - {name: n1, host: rack2, sfc: sfc0, port: 86:00.1, sfc_port: 5e:00.0,\n"
        "     mac: 02:00:00:00:00:04}\n";

    ck_assert_msg(parse(yaml) == 0, "%s", err);
    ck_assert_uint_eq(spec.node[1].p.host, 1);
}
END_TEST

/* The farm file's hash: the SHA-256 of the bytes loaded. `sha256sum` of
 * the same 239 bytes written to a file gives SHA256_OF_SMALL. */
#define SHA256_OF_SMALL "2c1f10648f2e80ad75dd86b4717be4f66e1b3fd563c1d2291518a7d429068cd6"

START_TEST(test_sha256)
{
#define SMALL HEAD RO("") SFC("") N0("")
    ck_assert_msg(parse(SMALL) == 0, "%s", err);
    ck_assert_uint_eq(strlen(spec.file_sha256), 64);
    ck_assert_str_eq(spec.file_sha256, SHA256_OF_SMALL);
    ck_assert_msg(parse(SMALL "# a comment changes the hash\n") == 0, "%s", err);
    ck_assert_str_ne(spec.file_sha256, SHA256_OF_SMALL);
}
END_TEST

/* --- Bad files: the exact message after "farm file 'h.yaml': " --------------- */

static const struct bad {
    const char *what, *yaml, *msg;
} bad[] = {
    {"unknown host",
     HEAD TWO_HOSTS RO(ON("here")) SFC(ON("here")) N0(ON("rack9")),
     "key 'nodes[0].host': process 'n0' names host \"rack9\", which is not in hosts (hosts: "
     "here, rack2)"},
    {"unknown host without hosts",
     HEAD RO("") SFC(ON("rack9")) N0(""),
     "key 'sfcs[0].host': process 'sfc0' names host \"rack9\", which is not in hosts (no "
     "hosts are listed: every process is on the local host 'localhost')"},
    {"no host with several",
     HEAD TWO_HOSTS RO(ON("here")) SFC("") N0(ON("here")),
     "key 'sfcs[0].host' is required when hosts lists several (process 'sfc0'; hosts: here, "
     "rack2)"},
    {"ssh and netns on one host",
     HEAD "hosts:\n  - {name: h1, ssh: daq@10.0.0.1, netns: ns1}\n" RO("") SFC("") N0(""),
     "key 'hosts[0]': host 'h1' has both ssh and netns (give exactly one of ssh: USER@ADDRESS "
     "(or address, with user if needed), netns: NAME, or local: true)"},
    {"netns and local on one host",
     HEAD "hosts:\n  - {name: h1, netns: ns1, local: true}\n" RO("") SFC("") N0(""),
     "key 'hosts[0]': host 'h1' has both netns and local (give exactly one of ssh: "
     "USER@ADDRESS (or address, with user if needed), netns: NAME, or local: true)"},
    {"host of no kind",
     HEAD "hosts:\n  - {name: h1, local: false, lcores: 1}\n" RO("") SFC("") N0(""),
     "key 'hosts[0]': host 'h1' has none of ssh, address, netns and local: true (give exactly "
     "one of ssh: USER@ADDRESS (or address, with user if needed), netns: NAME, or local: "
     "true)"},
    {"ssh with address",
     HEAD "hosts:\n  - {name: h1, ssh: daq@10.0.0.1, address: 10.0.0.1}\n" RO("") SFC("")
     N0(""),
     "key 'hosts[0].address' cannot be given together with 'hosts[0].ssh' (give ssh: "
     "USER@ADDRESS, or address and user)"},
    {"user without address",
     HEAD "hosts:\n  - {name: h1, user: daq, local: true}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].user' needs 'hosts[0].address' (the login on that address; or give ssh: "
     "USER@ADDRESS)"},
    {"IPv4 out of range",
     HEAD "hosts:\n  - {name: h1, ssh: daq@10.0.0.256}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].ssh': address \"10.0.0.256\" is not a hostname such as rack1.example.org, "
     "an IPv4 address such as 10.0.0.1, or an IPv6 address such as 2001:db8::1 or "
     "[2001:db8::1]"},
    {"hostname with a bad label",
     HEAD "hosts:\n  - {name: h1, address: rack_1.example.org}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].address': address \"rack_1.example.org\" is not a hostname such as "
     "rack1.example.org, an IPv4 address such as 10.0.0.1, or an IPv6 address such as "
     "2001:db8::1 or [2001:db8::1]"},
    {"IPv6 with a port",
     HEAD "hosts:\n  - {name: h1, ssh: 'daq@[2001:db8::1]:22'}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].ssh': address \"[2001:db8::1]:22\" is not a hostname such as "
     "rack1.example.org, an IPv4 address such as 10.0.0.1, or an IPv6 address such as "
     "2001:db8::1 or [2001:db8::1]"},
    {"bad user",
     HEAD "hosts:\n  - {name: h1, ssh: '-oProxyCommand=x@10.0.0.1'}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].ssh': user \"-oProxyCommand=x\" is not a login name (1 to 32 characters "
     "of a-z, A-Z, 0-9, ., _ and -, not starting with -)"},
    {"empty user",
     HEAD "hosts:\n  - {name: h1, ssh: '@10.0.0.1'}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].ssh': user \"\" is not a login name (1 to 32 characters of a-z, A-Z, 0-9, "
     "., _ and -, not starting with -)"},
    {"bad namespace",
     HEAD "hosts:\n  - {name: h1, netns: ../x}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].netns': \"../x\" is not a namespace name (1 to 32 characters of a-z, A-Z, "
     "0-9, ., _ and -, not starting with .)"},
    {"bad host name",
     HEAD "hosts:\n  - {name: Rack1, local: true}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].name': \"Rack1\" is not a name (1 to 32 characters of a-z, 0-9, _ and -)"},
    {"local not a boolean",
     HEAD "hosts:\n  - {name: h1, local: yes}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].local': \"yes\" is not true or false"},
    {"two hosts of one name",
     HEAD "hosts:\n  - {name: h1, local: true}\n  - {name: h1, netns: ns1}\n" RO(ON("h1"))
     SFC(ON("h1")) N0(ON("h1")),
     "key 'hosts[1].name': \"h1\" is already the name of hosts[0]"},
    {"two local hosts",
     HEAD "hosts:\n  - {name: h1, local: true}\n  - {name: h2, local: true}\n" RO(ON("h1"))
     SFC(ON("h1")) N0(ON("h1")),
     "key 'hosts[1].local': host 'h2' is local, and so is 'h1' (hosts[0]); this machine is one "
     "host"},
    {"one address, two hosts",
     HEAD "hosts:\n  - {name: h1, ssh: a@10.0.0.1}\n  - {name: h2, address: 10.0.0.1}\n"
     RO(ON("h1")) SFC(ON("h1")) N0(ON("h1")),
     "key 'hosts[1]': host 'h2' has address 10.0.0.1, which is already host 'h1' (hosts[0])"},
    {"one namespace, two hosts",
     HEAD "hosts:\n  - {name: h1, netns: ns1}\n  - {name: h2, netns: ns1}\n" RO(ON("h1"))
     SFC(ON("h1")) N0(ON("h1")),
     "key 'hosts[1].netns': namespace \"ns1\" is already host 'h1' (hosts[0])"},
    {"unknown host key",
     HEAD "hosts:\n  - {name: h1, adress: 10.0.0.1}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].adress' is not allowed (allowed: name, ssh, address, user, netns, local, "
     "lcores, eal_args)"},
    {"host without a name",
     HEAD "hosts:\n  - {local: true}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].name' is required"},
    {"host lcores",
     HEAD "hosts:\n  - {name: h1, local: true, lcores: all}\n" RO("") SFC("") N0(""),
     "key 'hosts[0].lcores': \"all\" is not \"auto\" or an EAL --lcores value such as 0@(0,1) "
     "or 1-3"},
    {"two processes on one CPU of a host",
     ALL_HERE "    lcores: '0@(2)'\n" N1(ON("rack2") "    lcores: '0@(2)'\n")
     "  - {name: n2, host: here, sfc: sfc0, port: memif:d, mac: 02:00:00:00:00:05,\n"
     "     lcores: '0@(1,2)'}\n",
     "key 'nodes[2].lcores': \"0@(1,2)\" puts n2 on CPU 2 of host 'here', which n0 has too "
     "(nodes[0].lcores \"0@(2)\"; give each process of a host CPUs of its own)"},
    {"defaults' lcores on the implicit host",
     HEAD "defaults: {lcores: 1-3}\n" RO("") SFC("    lcores: '0@(4)'\n") N0(""),
     "key 'nodes[0].lcores': \"1-3\" puts n0 on CPU 1 of host 'localhost', which ro0 has too "
     "(readouts[0].lcores \"1-3\"; give each process of a host CPUs of its own)"},
    {"a host's lcores for two processes",
     HEAD "hosts:\n  - {name: h1, local: true, lcores: '0@(7)'}\n" RO("    lcores: 6\n")
     SFC("") N0(""),
     "key 'nodes[0].lcores': \"0@(7)\" puts n0 on CPU 7 of host 'h1', which sfc0 has too "
     "(sfcs[0].lcores \"0@(7)\"; give each process of a host CPUs of its own)"},
    {"CPU out of range",
     HEAD RO("    lcores: '0@(1024)'\n") SFC("") N0(""),
     "key 'readouts[0].lcores': \"0@(1024)\" names CPU 1024 (CPUs are 0 to 1023)"},
    {"lcores a range backwards",
     HEAD RO("    lcores: 3-1\n") SFC("") N0(""),
     "key 'readouts[0].lcores': \"3-1\" is not \"auto\" or an EAL --lcores value such as "
     "0@(0,1) or 1-3"},
    {"two processes on one PCI device of a host",
     HEAD TWO_HOSTS RO(ON("here")) SFC(ON("here"))
     "nodes:\n"
     "  - {name: n0, host: rack2, sfc: sfc0, port: 86:00.0, sfc_port: memif:x,\n"
     "     mac: 02:00:00:00:00:03}\n"
     "  - {name: n1, host: rack2, sfc: sfc0, port: '0000:86:00.0', sfc_port: memif:y,\n"
     "     mac: 02:00:00:00:00:04}\n",
     "key 'nodes[1].port': n1 and n0 (nodes[0].port) both take PCI device 0000:86:00.0 on "
     "host 'rack2' (a port belongs to one process of its host)"},
    {"a readout on its SFC's PCI device",
     HEAD RO("") SFC("") N0("")
     "  - {name: n1, sfc: sfc0, port: 3b:00.0, sfc_port: 3b:00.1, mac: 02:00:00:00:00:04}\n"
     "  - {name: n2, sfc: sfc0, port: 5e:00.0, sfc_port: 3b:00.0, mac: 02:00:00:00:00:05}\n",
     "key 'nodes[2].sfc_port': sfc0 and n1 (nodes[1].port) both take PCI device 0000:3b:00.0 "
     "on host 'localhost' (a port belongs to one process of its host)"},
    {"two vdevs on one interface of a host",
     HEAD RO("") SFC("") N0("")
     "  - {name: n1, sfc: sfc0, port: 'net_af_packet1,iface=veth1,qpairs=1',\n"
     "     sfc_port: 'net_af_packet0,iface=veth0', mac: 02:00:00:00:00:04}\n"
     "  - {name: n2, sfc: sfc0, port: 'net_pcap0,rx_iface=veth1,tx_iface=veth1',\n"
     "     sfc_port: 'net_af_packet0,iface=veth0', mac: 02:00:00:00:00:05}\n",
     "key 'nodes[2].port': n2 and n1 (nodes[1].port) both take interface 'veth1' on host "
     "'localhost' (a port belongs to one process of its host)"},
    {"a memif link between hosts",
     HEAD TWO_HOSTS RO(ON("here")) SFC(ON("rack2")) N0(ON("rack2")),
     "key 'sfcs[0].port': memif link 'a' joins sfc0 on host 'rack2' and ro0 on host 'here' (a "
     "memif link joins two processes of one host; between hosts use a NIC or a vdev such as "
     "net_af_packet0,iface=eth0)"},
    {"one endpoint twice on a host",
     HEAD "insecure: true\n" TWO_HOSTS RO(ON("here") "    control: tcp://eth0:5550\n")
     SFC(ON("here")) N0(ON("here") "    control: tcp://eth0:5550\n"),
     "key 'nodes[0].control': \"tcp://eth0:5550\" is already used by readouts[0].control "
     "(\"tcp://eth0:5550\")"},
    {"too many EAL arguments with a host's",
     HEAD "defaults: {eal_args: [--syslog, --syslog, --syslog, --syslog, --syslog, --syslog,\n"
     "  --syslog, --syslog, --syslog, --syslog, --syslog, --syslog, --syslog, --syslog]}\n"
     "hosts:\n  - {name: h1, local: true, eal_args: [--legacy-mem, --legacy-mem, --legacy-mem]}\n"
     RO("") SFC("") N0(""),
     "key 'hosts[0].eal_args[2]': more than 16 EAL arguments for process 'ro0' with those of "
     "defaults"},
};

START_TEST(test_bad)
{
    const struct bad *b = &bad[_i];
    char want[2048];

    snprintf(want, sizeof(want), "farm file 'h.yaml': %s", b->msg);
    ck_assert_msg(parse(b->yaml) == -EINVAL, "%s: loaded", b->what);
    ck_assert_msg(strcmp(err, want) == 0, "%s:\n got: %s\nwant: %s", b->what, err, want);
}
END_TEST

/* farm_spec_check on hosts changed in code. */
START_TEST(test_check_in_code)
{
    ck_assert_msg(parse(ALL_HERE) == 0, "%s", err);
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), 0);

    spec.node[0].p.host = 2;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'h': key 'nodes[0].host': 2 is not a host index (0 to 1)");
    spec.node[0].p.host = 0;

    spec.n_hosts = 0;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'h': key 'hosts': 0 entries (allowed: 1 to 96)");
    spec.n_hosts = 2;

    snprintf(spec.host[1].address, sizeof(spec.host[1].address), "[10.0.0.2]");
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'h': key 'hosts[1].address': \"[10.0.0.2]\" is not a hostname "
                          "such as rack1.example.org, an IPv4 address such as 10.0.0.1, or an "
                          "IPv6 address such as 2001:db8::1 or [2001:db8::1]");
    snprintf(spec.host[1].address, sizeof(spec.host[1].address), "10.0.0.2");
    snprintf(spec.host[1].user, sizeof(spec.host[1].user), "a b");
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'h': key 'hosts[1].user': \"a b\" is not a login name (1 to 32 "
                          "characters of a-z, A-Z, 0-9, ., _ and -, not starting with -)");
    spec.host[1].user[0] = '\0';
    spec.host[1].kind = (enum ff_host_kind)7;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'h': key 'hosts[1]': kind 7 is not local, ssh or netns");
    spec.host[1].kind = FF_HOST_NETNS;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'h': key 'hosts[1].netns': \"\" is not a namespace name (1 to "
                          "32 characters of a-z, A-Z, 0-9, ., _ and -, not starting with .)");
    snprintf(spec.host[1].netns, sizeof(spec.host[1].netns), "ebf-1");
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), 0);
}
END_TEST

Suite *farmfile_hosts_suite(void);

Suite *farmfile_hosts_suite(void)
{
    Suite *s = suite_create("farmfile_hosts");
    TCase *tc = tcase_create("hosts");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_example);
    tcase_add_test(tc, test_implicit_localhost);
    tcase_add_test(tc, test_one_host_defaults);
    tcase_add_test(tc, test_ssh_forms_and_two_hosts);
    tcase_add_test(tc, test_sfc_port_is_the_sfcs);
    tcase_add_test(tc, test_sha256);
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof(bad) / sizeof(bad[0])));
    tcase_add_test(tc, test_check_in_code);
    suite_add_tcase(s, tc);
    return s;
}
