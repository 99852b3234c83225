/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* -e alloc: a uprobe on the VM's allocator (g->allocf, lj_alloc_f for the
 * built-in one: void *f(void *ud, void *ptr, size_t osize, size_t nsize))
 * counts the bytes each thread allocates and walks its Lua stack once per
 * alloc_every bytes, with the CPU sampler's walker (sample_and_count).
 *
 * Every growth (nsize > osize, src/lj_gc.c lj_mem_realloc) adds to the
 * thread's tally, as it adds to g->gc.total; frees and shrinks are not
 * allocation.  The threshold is drawn uniformly in [every/2, 3*every/2)
 * after each sample, so a workload allocating in a fixed rhythm cannot
 * alias with it; a sample stands for `every` bytes, an allocation larger
 * than the threshold for as many samples as it spans. */
#ifndef LBP_ALLOC_BPF_H
#define LBP_ALLOC_BPF_H

/* Bytes per sample; set by the loader (0: the program is not attached). */
const volatile __u64 alloc_every = 512 * 1024;

struct alloc_tally {
	__u64 bytes;		/* allocated since the last sample */
	__u64 next;		/* the threshold that takes the next sample */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);		/* tid */
	__type(value, struct alloc_tally);
} alloc_tallies SEC(".maps");

static __always_inline __u64 alloc_threshold(__u64 every)
{
	return every / 2 + (bpf_get_prandom_u32() % (every | 1));
}

SEC("uprobe")
int on_alloc(struct pt_regs *ctx)
{
	__u64 osize = PT_REGS_PARM3(ctx), nsize = PT_REGS_PARM4(ctx), every = alloc_every;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, tgid = id >> 32;
	struct alloc_tally *t, fresh;
	struct scratch *sc;
	__u32 zero = 0;
	__u64 n;

	if (nsize <= osize || !every)
		return 0;
	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	t = bpf_map_lookup_elem(&alloc_tallies, &tid);
	if (!t) {
		fresh.bytes = 0;
		fresh.next = alloc_threshold(every);
		bpf_map_update_elem(&alloc_tallies, &tid, &fresh, BPF_ANY);
		t = bpf_map_lookup_elem(&alloc_tallies, &tid);
		if (!t)
			return 0;
	}
	t->bytes += nsize - osize;
	if (t->bytes < t->next)
		return 0;
	/* One sample for the threshold crossed, one more per whole interval
	 * past it; the remainder carries over. */
	n = 1 + (t->bytes - t->next) / every;
	t->bytes = (t->bytes - t->next) % every;
	t->next = alloc_threshold(every);

	/* At the allocator's entry the callee-saved registers still hold
	 * its caller's: the walker sees what a CPU sample taken in C code
	 * the VM called would see. */
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return 0;
	sc->kregs_valid = 0;
	UREGS_FROM_CTX(&sc->regs, *ctx);
	return sample_and_count(sc, id, n, 0, NULL);
}

#endif
