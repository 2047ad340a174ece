/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim-rig.h - the simulator unit tests' rig: the farms they share, keys and faults set, the simulator run, its ledger checked closed. */
#ifndef TEST_SIM_RIG_H
#define TEST_SIM_RIG_H

#include "sim_conf.h"
#include "sim_farm.h"

/* Set key to value (sim_conf_set); the test fails with the
 * configuration's message when it refuses them. */
void sim_rig_set(struct sim_conf *c, const char *key, const char *value);

/* Add the fault text (sim_conf_fault, "sfc_death 1 0.5"); the test
 * fails with the configuration's message when it refuses it. */
void sim_rig_fault(struct sim_conf *c, const char *text);

/* The base farm: the defaults (4 sources, 4 nodes an SFC, 1 kHz for 1 s,
 * 1 KiB fragments, 10 GbE, 1 us links) with 2 SFCs, a fixed 100 us
 * trigger time and half the events accepted; failover (release frames
 * every 10 ms, death after 100 ms of silence, 32 MiB replay buffers) on
 * when failover is non-zero, off otherwise. */
void sim_rig_base(struct sim_conf *c, int failover);

/* The base farm with failover at 100 kHz: 2 sources, a fixed 10 us
 * trigger time, SFC tables of 4,096 events; 100,000 events in its 1 s,
 * so that join ids 65,536 ahead are reached. */
void sim_rig_fast(struct sim_conf *c);

/* Check c (sim_conf_check) and run it into r (sim_run, no progress); the
 * test fails with the message of whichever refuses. Nothing is asserted
 * of the result. */
void sim_rig_run(const struct sim_conf *c, struct sim_result *r);

/* Assert that r's ledger closed: nothing unaccounted, the digests, the
 * ids and the nodes' counts agree, closed. */
void sim_rig_closed(const struct sim_result *r);

/* sim_rig_run, then sim_rig_closed. */
void sim_rig_run_closed(const struct sim_conf *c, struct sim_result *r);

#endif
