/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_hosts.h - the farm file's hosts: the list, each process's host, and what one host's processes may not share. */
#ifndef FARMFILE_HOSTS_H
#define FARMFILE_HOSTS_H

#include <stddef.h>

#include "farmfile_schema.h"
#include "farmfile_types.h"
#include "farmfile_value.h"

/*
 * A farm file may list its hosts; without `hosts:` every process is on the
 * implicit local host FF_LOCALHOST. A host is local (this machine), an ssh
 * address (a hostname, an IPv4 or an IPv6 address, with an optional user),
 * or a network namespace of this machine. DPDK-free, no state.
 */

#define FF_HINT_HOST                                                                    \
    "give exactly one of ssh: USER@ADDRESS (or address, with user if needed), netns: " \
    "NAME, or local: true"
#define FF_HINT_ADDRESS                                                              \
    "a hostname such as rack1.example.org, an IPv4 address such as 10.0.0.1, or an " \
    "IPv6 address such as 2001:db8::1 or [2001:db8::1]"
#define FF_HINT_USER "1 to 32 characters of a-z, A-Z, 0-9, ., _ and -, not starting with -"
#define FF_HINT_NETNS "1 to 32 characters of a-z, A-Z, 0-9, ., _ and -, not starting with ."
#define FF_CPUS_MAX 1024         /* CPUs an lcores value may name: 0 to 1023 */

/* The hosts of f into s (s->n_hosts >= 1): FF_LOCALHOST alone when the
 * file lists none. Each host's lcores and eal_args are checked here and
 * applied to its processes by ff_conv_proc_host. 0 or -EINVAL. */
int ff_conv_hosts(struct ff_cv *c, const struct raw_farm *f, struct farm_spec *s);

/*
 * The host of process p (its name set, c->pre its key) from its `host`
 * text (NULL: not given: the only host), then that host's lcores and
 * eal_args over the defaults already in p; the process's own keys come
 * after. 0, or -EINVAL naming the process, the host and the hosts known.
 */
int ff_conv_proc_host(struct ff_cv *c, const struct raw_farm *f, const struct farm_spec *s,
                      const char *txt, struct ff_proc *p);

/*
 * The checks of hosts on a spec: each host's name and form, unique names,
 * addresses and namespaces, at most one local host; every process's host
 * index; and on each host, that no two processes claim a CPU (explicit
 * lcores) or a port (a PCI device, or a kernel interface named by a
 * vdev's iface= argument), and that memif links stay on one host.
 * Returns 0, or -EINVAL with "<where>: key '...': ..." in err.
 */
int ff_check_hosts(const struct farm_spec *s, const char *where, char *err, size_t errlen);

/* 1 when s is a hostname, an IPv4 or an IPv6 address (bracketed or not). */
int ff_address_ok(const char *s);

#endif /* FARMFILE_HOSTS_H */
