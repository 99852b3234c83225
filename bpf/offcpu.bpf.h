/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Off-CPU time from the sched_switch tracepoint: when a traced thread
 * leaves the CPU, its Lua stack is walked as the cpu-clock sampler walks it
 * (walk_sample) and parked with the time; when it comes back, the time it
 * was away is added to that stack in the counts map (OFFCPU_VALUE).
 *
 * Included by sampler.bpf.c after walk_sample; loaded only when the loader
 * asks for off-CPU time (the program runs on every context switch of the
 * host, so both of its exits for untraced threads are one map lookup).
 */
#ifndef LBP_OFFCPU_BPF_H
#define LBP_OFFCPU_BPF_H

/* Blocks shorter than this are counted (CNT_SHORT_BLOCK), not weighed. */
const volatile __u64 min_block_ns = 10000;

/* --off-cpu-rate P: a traced thread's switch out is kept when a random
 * 32-bit draw is below offcpu_keep (P * 2^32); from 2^32 up every switch
 * is kept and nothing is drawn.  The decision is taken at the switch out,
 * before the stack is walked or anything parked: a block is kept or not
 * whatever its length, so the kept blocks' time weighed by 1/P (in user
 * space, user/sample/drain.c) estimates the whole without bias, and an
 * unkept block costs no walk, no parked entry and no switch-in work. */
const volatile __u64 offcpu_keep = 1ull << 32;

/* --off-cpu-rate auto (offcpu_budget != 0): each CPU keeps every switch
 * until it sees more than offcpu_budget traced switches out in a window
 * of OFFCPU_PACE_NS; the next window then keeps 1 in 2^k, the least k
 * that brings the last window's count under the budget.  k is fixed
 * before the switch it applies to (from the past window), so the kept
 * switch weighed by 2^k (SAMPLE_SHIFT in its key) is still unbiased: a
 * thread that blocks a few hundred times a second is measured exactly, a
 * ping-pong at 10^5 switches a second costs a draw for most of them. */
const volatile __u32 offcpu_budget = 0;

struct offcpu_pace {
	__u64 window_ns;	/* the current window's start */
	__u64 jiffies;		/* the tick at which the clock was last read */
	__u32 seen;		/* traced switches out in it so far */
	__u32 shift;		/* this window keeps 1 in 2^shift */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_pace);
} offcpu_pace SEC(".maps");

/* The automatic rate's k for a switch out on this CPU.  The clock is read
 * once a scheduler tick, not once a switch: a window ends at the first
 * tick after OFFCPU_PACE_NS, and a ping-pong's 10^5 switches a second
 * pay a load of jiffies instead of a clock read each. */
static __always_inline __u32 pace_shift(void)
{
	struct offcpu_pace *pc;
	__u32 zero = 0, k;
	__u64 now, tick;

	pc = bpf_map_lookup_elem(&offcpu_pace, &zero);
	if (!pc)
		return 0;
	tick = bpf_jiffies64();
	if (tick != pc->jiffies) {
		pc->jiffies = tick;
		now = bpf_ktime_get_ns();
		if (now - pc->window_ns >= OFFCPU_PACE_NS) {
			for (k = 0; k < OFFCPU_MAX_SHIFT && (pc->seen >> k) > offcpu_budget; k++)
				;
			pc->shift = k;
			pc->seen = 0;
			pc->window_ns = now;
		}
	}
	pc->seen++;
	return pc->shift;
}

/* Whether to walk this switch out; *shift gets the automatic rate's k. */
static __always_inline bool keep_switch(__u32 *shift)
{
	*shift = 0;
	if (offcpu_budget) {
		*shift = pace_shift();
		return !*shift || !(bpf_get_prandom_u32() & ((1u << *shift) - 1));
	}
	return offcpu_keep >= (1ull << 32) || bpf_get_prandom_u32() < offcpu_keep;
}

/* Task states of a thread that will not come back (include/linux/sched.h). */
#define LBP_EXIT_DEAD	0x0010
#define LBP_EXIT_ZOMBIE	0x0020
#define LBP_TASK_DEAD	0x0080

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* the loader resizes it */
	__type(key, __u32);		/* tid */
	__type(value, struct parked);
} parked SEC(".maps");

/* next comes back: weigh its parked stack by the time it was away. */
static __always_inline void switch_in(struct parked *pk, __u32 tid, __u64 now)
{
	__u32 zero = 0;
	struct counter_block *cb = bpf_map_lookup_elem(&counters, &zero);
	__u64 away = now - pk->since_ns;
	struct sample_key key = pk->key;

	bpf_map_delete_elem(&parked, &tid);
	if (away < min_block_ns) {
		bump(cb, CNT_SHORT_BLOCK);
		return;
	}
	if (away > OFFCPU_NS_MAX)
		away = OFFCPU_NS_MAX;
	count_sample(&key, cb, OFFCPU_VALUE(1, away));
}

/* The current thread (prev) leaves the CPU: walk and park it. */
static __always_inline void switch_out(struct counter_block *cb, __u64 id, __u32 flags,
				       __u64 now)
{
	struct scratch *sc;
	struct parked pk;
	__u32 zero = 0, tid = (__u32)id;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return;
	bump(cb, CNT_SWITCH_KEPT);
	sc->kregs_valid = 1;
	task_user_regs(&sc->kregs);
	uregs_from(&sc->regs, &sc->kregs);
	key_init(sc, id, flags);
	if (walk_now(id >> 32))
		return;
	pk.key = sc->key;
	pk.since_ns = now;
	/* Still parked from its last block: that block's switch-in was never
	 * seen, and its time is lost; counted, then replaced. */
	if (bpf_map_update_elem(&parked, &tid, &pk, BPF_NOEXIST))
		bump(cb, bpf_map_update_elem(&parked, &tid, &pk, BPF_EXIST) ?
			 CNT_PARK_FULL : CNT_PARK_STALE);
}

/* prev's state as it leaves: the tracepoint's fourth argument (5.18)
 * reads the same field, which 5.14 renamed. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int leaving_state(struct task_struct *prev)
{
	if (bpf_core_field_exists(prev->__state))
		return prev->__state;
	return (unsigned int)((struct task_struct___pre514 *)prev)->state;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 id = bpf_get_current_pid_tgid(), now = 0;
	__u32 tgid = id >> 32, ntid = next->pid;
	struct counter_block *cb;
	unsigned int prev_state;
	struct parked *pk;
	__u32 zero = 0, shift;

	/* -e wall: a switch ends what the CPU's last tick can vouch for: the
	 * next tick weighs the period (sampler.bpf.c, tick_elapsed). */
	if (wall_tick_ns) {
		__u64 *last = bpf_map_lookup_elem(&last_tick, &zero);

		if (last)
			*last = 0;
	}
	/* current is still prev here (kernel/sched/core.c: __schedule). */
	pk = ntid ? bpf_map_lookup_elem(&parked, &ntid) : NULL;
	if (pk) {
		now = bpf_ktime_get_ns();
		switch_in(pk, ntid, now);
	}
	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;	/* the cheap early exit for every other process */
	/* Drawn as soon as the thread is known to be traced (drawing
	 * first would cost every other process's switches a draw); an
	 * unkept switch reads neither the task nor the clock. */
	cb = bpf_map_lookup_elem(&counters, &zero);
	if (!keep_switch(&shift)) {
		bump(cb, CNT_SWITCH_OUT);
		return 0;
	}
	/* prev's state read directly (a BTF pointer): no helper call. */
	prev_state = leaving_state(prev);
	if (prev_state & (LBP_EXIT_DEAD | LBP_EXIT_ZOMBIE | LBP_TASK_DEAD))
		return 0;
	bump(cb, CNT_SWITCH_OUT);
	if (!now)
		now = bpf_ktime_get_ns();
	/* Preempted, or left runnable: on the run queue, waiting for a CPU. */
	switch_out(cb, id, SAMPLE_OFFCPU | SAMPLE_SHIFT(shift) |
		   (preempt || prev_state == 0 ? SAMPLE_RUNNABLE : 0), now);
	return 0;
}

#endif
