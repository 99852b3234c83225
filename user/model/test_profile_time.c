// SPDX-License-Identifier: MIT
/* Unit tests for the time split of off-CPU and wall profiles. */
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/unit.h"
#include "model/profile.h"
#include "model/profile_time.h"

static void add(struct profile *p, uint32_t tid, uint32_t flags, uint64_t ns, uint64_t n)
{
	static const struct frame_sym *none[1];
	struct sample s = { .pid = 7, .tid = tid, .vmstate = -1, .flags = flags,
			    .frames = none, .count = ns, .events = n };

	profile_add(p, &s);
}

int main(void)
{
	struct profile *p = profile_new(1000);
	struct strbuf sb = STRBUF_INIT;
	struct time_split t;

	p->event = PROFILE_WALL;
	add(p, 7, 0, 5800000000ull, 5800);
	add(p, 7, PSAMPLE_HOST, 300000000ull, 300);
	add(p, 7, PSAMPLE_OFFCPU, 3700000000ull, 40);
	add(p, 8, PSAMPLE_OFFCPU | PSAMPLE_WAITING, 200000000ull, 5);
	p->stats.short_block = 12;
	p->offcpu_rate = 1;	/* every switch walked: no estimate to say */
	profile_time_split(p, 0, 0, &t);
	CHECK("split: Lua, host, blocked, waiting",
	      t.lua_ns == 5800000000ull && t.host_ns == 300000000ull &&
	      t.blocked_ns == 3700000000ull && t.waiting_ns == 200000000ull && t.switches == 45);
	profile_time_summary(p, &t, &sb);
	CHECK_STR("summary: wall", sb_str(&sb),
		  "wall 10.00 s = on-CPU 6.10 s (Lua 5.80 s, host C 0.30 s) + blocked 3.70 s + "
		  "waiting for a CPU 0.20 s, 45 switches out (12 under --min-block, 0 lost: "
		  "parked map full, 0 lost: switch-in unseen)");
	/* The default (auto) says how many switches it walked of those seen. */
	p->offcpu_rate = 0;
	p->stats.switch_out = 45;
	p->stats.switch_kept = 9;
	sb_reset(&sb);
	profile_time_summary(p, &t, &sb);
	CHECK("summary: auto names the switches walked and that totals are estimates",
	      strstr(sb_str(&sb), "(--off-cpu-rate auto: 9 of 45 seen walked, each weighed by "
			 "1/its rate: an estimate)") != NULL);
	profile_time_split(p, 7, 8, &t);
	CHECK("split: one thread", t.lua_ns == 0 && t.waiting_ns == 200000000ull &&
	      t.switches == 5 && !t.all);
	p->event = PROFILE_OFFCPU;
	sb_reset(&sb);
	profile_time_summary(p, &t, &sb);
	CHECK_STR("summary: off-cpu, one thread", sb_str(&sb),
		  "off-cpu 0.20 s = blocked 0.00 s + waiting for a CPU 0.20 s, 5 switches out");
	CHECK_STR("event names", profile_event_name(PROFILE_OFFCPU), "off-cpu");
	sb_free(&sb);
	profile_free(p);
	UNIT_EXIT();
}
