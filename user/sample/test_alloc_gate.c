// SPDX-License-Identifier: MIT
/* alloc_gate: the windows add up to the duty asked for, with lengths that
 * vary; time without live targets counts for nothing. */
#include <math.h>
#include <stdio.h>

#include "base/unit.h"
#include "sample/alloc_gate.h"

#define MS 1000000ull

int main(void)
{
	struct alloc_gate g;
	uint64_t now = 1000 * MS, min_on = UINT64_MAX, max_on = 0, opened = 0;
	int windows = 0;

	/* Simulated: each change is made exactly when due. */
	alloc_gate_init(&g, 0.03, 42, now);
	alloc_gate_observe(&g, now, true);
	while (now < 1000 * MS + 600000 * MS) {
		now = g.due_ns;
		if (g.on) {
			uint64_t len = now - opened;

			min_on = len < min_on ? len : min_on;
			max_on = len > max_on ? len : max_on;
			windows++;
		} else {
			opened = now;
		}
		alloc_gate_changed(&g, !g.on, now, true);
	}
	CHECK("600 s at 3%: the measured duty is within 0.3 points of 3%",
	      fabs(alloc_gate_duty(&g) - 0.03) < 0.003);
	CHECK("windows vary in length, 25 to 75 ms", min_on >= 25 * MS && max_on < 75 * MS &&
	      max_on - min_on > 30 * MS);
	CHECK("about one window per 1.67 s", windows > 300 && windows < 420);

	/* Dead time: a target gone for 10 s while attached is not counted. */
	alloc_gate_init(&g, 0.5, 7, 0);
	alloc_gate_observe(&g, 0, true);
	alloc_gate_changed(&g, true, 1000 * MS, true);
	alloc_gate_observe(&g, 2000 * MS, false);
	alloc_gate_observe(&g, 12000 * MS, true);
	alloc_gate_changed(&g, false, 13000 * MS, true);
	alloc_gate_observe(&g, 14000 * MS, true);
	CHECK("live time only: attached 2 s of 4 s", fabs(alloc_gate_duty(&g) - 0.5) < 1e-9);
	alloc_gate_observe(&g, 13000 * MS, true);
	CHECK("an observation back in time changes nothing",
	      fabs(alloc_gate_duty(&g) - 0.5) < 1e-9);
	UNIT_EXIT();
}
