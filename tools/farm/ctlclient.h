/* SPDX-License-Identifier: BSD-3-Clause */
/* ctlclient.h - the ebfarm side of run control: one request, one reply, bounded wait. */
#ifndef CTLCLIENT_H
#define CTLCLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_fsm.h"
#include "ebfarm.pb-c.h"

struct ctl_param {
    const char *key;
    char value[256];             /* room for a fault spec (a farm file string) */
};

/*
 * Send cmd with its n_params parameters (at most 32) to the daemon at
 * endpoint and wait up to timeout_ms for its reply (a fresh REQ socket per
 * call, so a lost reply cannot wedge the next one). Returns 0 with *reply
 * set (free it with ebfarm__reply__free_unpacked; reply->ok says whether
 * the command was carried out), or -ETIMEDOUT / -EPROTO / -EINVAL /
 * -E2BIG / -errno with err naming the endpoint.
 */
int ctl_request(void *zctx, const char *endpoint, enum ebf_cmd cmd, uint32_t run_number,
                const struct ctl_param *params, unsigned n_params, int timeout_ms,
                Ebfarm__Reply **reply, char *err, size_t len);

/* ctl_request of a START of run run_number whose event 0 is due at
 * start_at_ns (CLOCK_REALTIME; 0: at once, the field left out). */
int ctl_request_start(void *zctx, const char *endpoint, uint32_t run_number,
                      uint64_t start_at_ns, int timeout_ms, Ebfarm__Reply **reply, char *err,
                      size_t len);

/* The client keys of every later request to a tcp:// endpoint: those of the
 * key directory dir (ebf_curve.h); NULL: none (a farm without keys, which
 * its file marks insecure). 0, or -1 with err naming the file. */
int ctl_use_keys(const char *dir, char *err, size_t len);

/* Whether the key directory dir that farm_file's key 'keys' names holds
 * both the daemons' keys and the tools' (what `ebfarm keygen DIR` makes),
 * checked before anything starts. 0 (also for no dir), or -1 with err
 * naming the key, the file that is missing or bad, and the fix. */
int ctl_keys_check(const char *dir, const char *farm_file, char *err, size_t len);

/* When set and it returns non-zero, a wait for a reply that a signal
 * interrupted ends (-EINTR); otherwise the wait goes on. NULL: it goes on. */
extern int (*ctl_cancelled)(void);

#endif /* CTLCLIENT_H */
