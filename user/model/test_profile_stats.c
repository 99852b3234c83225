// SPDX-License-Identifier: MIT
/* Unit tests for the loss counters: every list of them comes from the
 * tables, and the summary line keeps its exact text (tests grep it). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/unit.h"
#include "model/profile_stats.h"

/* The summary as main.c printed it by hand before the table existed. */
static void summary_by_hand(const struct profile_stats *st, double s, unsigned hz, char *buf,
			    size_t len)
{
	snprintf(buf, len,
		 "luabpfprof: %llu samples in %.1f s at %u Hz (%llu outside Lua); "
		 "unwind: %llu bad frame, %llu truncated, %llu read fault, %llu no frame base; "
		 "lost: %llu stack map full, %llu count map full, %llu no VM yet, "
		 "%llu prototype news lost, %llu unknown frames",
		 (unsigned long long)st->samples, s, hz, (unsigned long long)st->host,
		 (unsigned long long)st->bad_frame, (unsigned long long)st->truncated,
		 (unsigned long long)st->read_fault, (unsigned long long)st->no_base,
		 (unsigned long long)st->stack_map_full,
		 (unsigned long long)st->count_map_full, (unsigned long long)st->no_vm,
		 (unsigned long long)st->proto_lost, (unsigned long long)st->sym_unknown);
}

static void test_from_kernel(struct profile_stats *st)
{
	uint64_t cnt[CNT__MAX];

	/* Distinct values: a counter copied into the wrong field shows. */
	for (int i = 0; i < CNT__MAX; i++)
		cnt[i] = 1000 + (uint64_t)i * 7;
	memset(st, 0, sizeof(*st));
	profile_stats_from_kernel(st, cnt);
	CHECK("stats: samples from CNT_SAMPLES", st->samples == cnt[CNT_SAMPLES]);
	CHECK("stats: host from CNT_HOST", st->host == cnt[CNT_HOST]);
	CHECK("stats: no_vm from CNT_NO_VM", st->no_vm == cnt[CNT_NO_VM]);
	CHECK("stats: proto_lost from CNT_PROTO_LOST", st->proto_lost == cnt[CNT_PROTO_LOST]);
	CHECK("stats: bad_frame from CNT_BAD_FRAME", st->bad_frame == cnt[CNT_BAD_FRAME]);
	CHECK("stats: truncated from CNT_TRUNCATED", st->truncated == cnt[CNT_TRUNCATED]);
	CHECK("stats: read_fault from CNT_READ_FAULT", st->read_fault == cnt[CNT_READ_FAULT]);
	CHECK("stats: stack_map_full from CNT_STACK_MAP_FULL",
	      st->stack_map_full == cnt[CNT_STACK_MAP_FULL]);
	CHECK("stats: count_map_full from CNT_COUNT_MAP_FULL",
	      st->count_map_full == cnt[CNT_COUNT_MAP_FULL]);
	CHECK("stats: walker counters", st->base_regs == cnt[CNT_BASE_REGS] &&
	      st->base_jit == cnt[CNT_BASE_JIT] && st->base_L == cnt[CNT_BASE_L] &&
	      st->trace_pc == cnt[CNT_TRACE_PC]);
	CHECK("stats: user counters untouched", st->stack_lost == 0 && st->sym_unknown == 0);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void test_summary(struct profile_stats *st)
{
	struct strbuf sb = STRBUF_INIT;
	char want[512];

	st->sym_unknown = 5;
	st->stack_lost = 3;
	summary_by_hand(st, 12.345, 997, want, sizeof(want));
	profile_stats_summary(st, 12.345, 997, &sb);
	CHECK_STR("stats: summary line byte-identical", sb_str(&sb), want);
	sb_reset(&sb);
	/* Off-CPU takes no CPU samples: its walks are switches out, which
	 * the outside-Lua count is part of (it read "0 samples ... (14486
	 * outside Lua)" before). */
	st->samples = 0;
	st->switch_kept = 14490;
	st->host = 14486;
	profile_stats_summary_switches(st, 10.0, 0, &sb);
	CHECK("stats: off-cpu counts switches walked",
	      starts(sb_str(&sb), "luabpfprof: 14490 switches out walked in 10.0 s "
		     "(14486 outside Lua); unwind: "));
	sb_reset(&sb);
	st->samples = 930;
	profile_stats_summary_switches(st, 10.0, 99, &sb);
	CHECK("stats: wall counts both",
	      starts(sb_str(&sb), "luabpfprof: 930 samples at 99 Hz and 14490 switches out "
		     "walked in 10.0 s (14486 outside Lua); unwind: "));
	sb_reset(&sb);
	profile_stats_lost_list(st, &sb);
	snprintf(want, sizeof(want),
		 "%llu bad frame, %llu read fault, %llu no frame base, %llu stack map full, "
		 "%llu count map full",
		 (unsigned long long)st->bad_frame, (unsigned long long)st->read_fault,
		 (unsigned long long)st->no_base, (unsigned long long)st->stack_map_full,
		 (unsigned long long)st->count_map_full);
	CHECK_STR("stats: lost list", sb_str(&sb), want);
	CHECK("stats: lost total", profile_stats_lost(st) == st->bad_frame + st->read_fault +
	      st->no_base + st->stack_map_full + st->count_map_full);
	sb_free(&sb);
}

static void test_since(void)
{
	struct profile_stats prev = { 0 }, st = { 0 };

	prev.samples = 100;
	prev.bad_frame = 4;
	prev.sym_unknown = 10;
	prev.stack_lost = 7;
	prev.read_fault = 50;
	st.samples = 130;
	st.bad_frame = 4;
	st.sym_unknown = 12;
	st.stack_lost = 2;
	st.read_fault = 20;	/* went backwards (a restarted map): 0, not a wrap */
	profile_stats_since(&st, &prev);
	CHECK("stats since: kernel totals become deltas", st.samples == 30 && st.bad_frame == 0);
	CHECK("stats since: unknown frames (a running total) too", st.sym_unknown == 2);
	CHECK("stats since: per-profile counts kept", st.stack_lost == 2);
	CHECK("stats since: a total that went backwards counts 0", st.read_fault == 0);
}

int main(void)
{
	struct profile_stats st;

	test_from_kernel(&st);
	test_summary(&st);
	test_since();
	UNIT_EXIT();
}
