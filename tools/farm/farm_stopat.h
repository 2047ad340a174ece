/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_stopat.h - the staged stop's common end: one event id every readout stops before. */
#ifndef FARM_STOPAT_H
#define FARM_STOPAT_H

#include <stdint.h>
#include <stdio.h>

#include "farm_types.h"

/*
 * Give every readout of st in a run (RUNNING or PAUSED, answering) one
 * common end (docs/protocol.md, "The common stop"): X = the furthest
 * readout's next_event plus a margin of half a second at the rate they
 * generate at (two looks 100 ms apart, at least FARM_STOPAT_MIN ids; none
 * when no readout moved between the looks: paused, held or finished);
 * each readout is then told `act stop_at X`. A readout that began X
 * already refuses and says where it is (its reply's next_event): X is
 * raised past it with a doubled margin and every readout told again (a
 * readout holds at its end without finishing, so a higher end still lets
 * it go on), at most FARM_STOPAT_TRIES rounds. The stop that follows
 * drains each readout up to X, so every readout ends at the same event
 * and the stop makes no incomplete event. A readout that does not answer
 * or is not in a run is left out. Returns the readouts given X (*at set),
 * 0 when there is none, or -1 when no end was agreed (the stop then ends
 * each readout where it is, as before).
 */
#define FARM_STOPAT_MIN 256
#define FARM_STOPAT_TRIES 6

int farm_stop_at(const struct farm_state *st, uint64_t *at);

/*
 * The summary's line for a run the common end cut short (a readout's
 * stop_at counter above 0 and below events, the run's events; events 0:
 * until stopped): "  stop     every readout ended before event X (the
 * staged stop's common end)", or when the readouts' ends differ (one was
 * left out) each by name: "  stop     readouts ended before: ro0 X, ro1
 * Y". Gone readouts are left out; nothing when no readout was cut short.
 */
struct farm_result;
void farm_stop_at_text(FILE *out, const struct farm_result *r, uint64_t events);

#endif /* FARM_STOPAT_H */
