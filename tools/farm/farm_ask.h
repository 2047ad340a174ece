/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_ask.h - a farm's processes asked over their control endpoints: commands, status, waits. */
#ifndef FARM_ASK_H
#define FARM_ASK_H

#include <stddef.h>
#include <stdint.h>

#include "acct.h"
#include "ctlclient.h"
#include "ebf_fsm.h"
#include "ebfarm.pb-c.h"
#include "farm_types.h"

/*
 * One ZeroMQ context for the whole program (made on first use); one
 * request per call (ctlclient.h). Single-threaded: call from one thread.
 */

#define FARM_REPLY_MS 3000       /* how long a command waits for its reply */

/* One command to p; the reply (free with ebfarm__reply__free_unpacked),
 * or NULL with err "<name>: <why>" when p does not answer in timeout_ms. */
Ebfarm__Reply *farm_ask(const struct farm_proc *p, enum ebf_cmd cmd, uint32_t run,
                        const struct ctl_param *params, unsigned n, int timeout_ms, char *err,
                        size_t len);

/* Send cmd and require ok: 0, or -1 with err naming the process and the
 * reason ("sfc0 refused 'start': ..."). */
int farm_order(const struct farm_proc *p, enum ebf_cmd cmd, uint32_t run,
               const struct ctl_param *params, unsigned n, char *err, size_t len);

/* farm_order of a START whose event 0 is due at start_at_ns (CLOCK_REALTIME
 * ns; 0: at once), for the readouts' common start. */
int farm_order_start(const struct farm_proc *p, uint32_t run, uint64_t start_at_ns, char *err,
                     size_t len);

/* Status of every process: replies[i] for st->proc[i], NULL when it did not
 * answer within 1 s or is a process of this host that is gone (not asked:
 * a farm with dead processes answers status at once; free with
 * farm_free_replies). */
void farm_status(const struct farm_state *st, Ebfarm__Reply **replies);
void farm_free_replies(const struct farm_state *st, Ebfarm__Reply **replies);

/* The farm's totals from the replies of farm_status (acct.h), as ebfarm
 * status shows them: a process without a reply or without metrics gave no
 * counters and is named in t->missing. place[i]: st->proc[i]'s place
 * (farm_spec_place); NULL: none known. */
void farm_status_totals(const struct farm_state *st, Ebfarm__Reply **replies,
                        const int *place, struct acct_totals *t);

/* A counter of p's status metrics, or def when p does not answer or has no
 * such counter; *finished (when not NULL) receives whether p finished
 * generating, and is left alone when p does not answer. */
uint64_t farm_counter(const struct farm_proc *p, const char *key, uint64_t def, int *finished);

/* Wait until p answers status (it is up and its ports started): 0, or -1
 * with err when p exits first (naming its log) or after timeout_s. */
int farm_wait_answer(const struct farm_state *st, const struct farm_proc *p, double timeout_s,
                     char *err, size_t len);

/* Wait until every live process of role is in state want: 0, or -1 with
 * err when one does not answer, one is in ERROR, or after timeout_s.
 * Processes that are gone (killed) are skipped. */
int farm_wait_state(const struct farm_state *st, enum farm_role role, enum ebf_state want,
                    double timeout_s, char *err, size_t len);

/* Wait until every readout reports its run finished; -1 with err when one
 * does not answer or after timeout_s. */
int farm_wait_finished(const struct farm_state *st, double timeout_s, char *err, size_t len);

/* Wait until the readout ro has generated `events` or finished; -1 with
 * err after timeout_s. */
int farm_wait_events(const struct farm_proc *ro, uint64_t events, double timeout_s, char *err,
                     size_t len);

#endif /* FARM_ASK_H */
