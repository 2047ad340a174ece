/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile.h - the farm file: one YAML file describing a farm's processes, ports and run. */
#ifndef FARMFILE_H
#define FARMFILE_H

#include <stddef.h>

#include "farmfile_types.h"

/*
 * A farm file names every process of a farm (readouts, SFCs, nodes), their
 * ports, MACs, lcores and ZeroMQ endpoints, and the run parameters; see
 * docs/operations.md ("The farm file") for every key. The loader validates every key and every
 * cross reference and fills a struct farm_spec made of plain fixed-size
 * arrays, so a runner can walk it without allocating. DPDK-free; any thread
 * may call these functions (they keep no state between calls).
 */

/*
 * Load and validate the farm file at path into *spec (over 500 kB: callers
 * keep it static or on the heap). Returns 0; or -ENOENT, -EACCES, ...
 * when the file cannot be read, -EFBIG when it is over 1 MiB, -EINVAL when
 * it is not a valid farm file (lists and mappings nested more than 8 deep
 * are refused before the YAML loader spends time on them), -ENOMEM; err
 * then holds one line naming the file, the key, the bad value and what is
 * allowed, e.g.
 *   farm file 'farms/x.yaml': key 'nodes[1].mac': "zz:00" is not a MAC address (...)
 * *spec is unspecified after a failure. spec->file_sha256 is the SHA-256
 * of the bytes read (the farm file's hash in a run's identity).
 */
int farm_spec_load(const char *path, struct farm_spec *spec, char *err, size_t errlen);

/* The same for a farm file held in memory (yaml need not end in NUL);
 * name_for_errors stands for the file in messages. */
int farm_spec_parse(const char *yaml, size_t len, const char *name_for_errors,
                    struct farm_spec *spec, char *err, size_t errlen);

/* The run keys a farm file's own default: a demo's run that ends, its
 * node busy 1 us per event (the daemons: until stopped, 0 us). */
#define FF_RUN_EVENTS 200000
#define FF_RUN_TRIGGER_US 1

/* The defaults before a file is applied, the parameter table's
 * (ebf_param.h) but for FF_RUN_EVENTS and FF_RUN_TRIGGER_US: of the run
 * section, of an SFC (id 0), of a node. The demo starts from them too. */
void ff_run_default(struct ff_run *run);
void ff_sfc_default(struct ff_sfc *sfc);
void ff_node_default(struct ff_node *n);

/*
 * Validate a spec built or modified in code: every value's range and form,
 * and the same cross checks as at load (unique names, MACs, endpoints and
 * SFC ids, SFC references, memif links with exactly two ends, fragment
 * sizes, MTU). Returns 0 or -EINVAL with err naming the key as it would be
 * written in a farm file ("farm 'demo': key 'sfcs[0].id': ...").
 */
int farm_spec_check(const struct farm_spec *spec, char *err, size_t errlen);

/*
 * What a farm that is to run (not only simulated) needs besides: every
 * SFC's memory_mb holds its mbuf pools at run.mtu (farmfile_memory.h).
 * Returns 0 or -EINVAL with err naming the key and the memory_mb to give
 * ("farm 'demo': key 'sfcs[0].memory_mb': 256 MB cannot hold ...").
 */
int farm_spec_check_run(const struct farm_spec *spec, char *err, size_t errlen);

/* The kind of a host as a farm file and messages say it: "local", "ssh",
 * "netns" ("unknown" for anything else). */
const char *farm_host_kind_name(enum ff_host_kind kind);

#endif /* FARMFILE_H */
