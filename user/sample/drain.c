// SPDX-License-Identifier: MIT
/* Drained kernel samples into the profile model: symbolize each stack once
 * per drain, attach zone and trace labels, count what was lost. */
#include "sample/drain.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "model/timeline.h"
#include "sample/collector.h"
#include "sample/reqlabels.h"
#include "model/reqlabel.h"
#include "sample/procfs.h"
#include "sample/targets.h"
#include "symbolize/native_stack.h"
#include "symbolize/symbolize.h"
#include "luajit/discover.h"
#include "luajit/layout.h"
#include "luajit/luaobj.h"
#include "proc/memory.h"
#include "native/nmods.h"

#define EPOCH_NS	1000000000ull	/* prototype revalidation period */
#define ZONE_NAME_MAX	256
#define NATIVE_MAX_FRAMES	(2 * LBP_MAX_FRAMES)
#define NATIVE_MAX_VMS		LBP_MAX_VMS

/* Per-drain memo: stacks shared by several sample classes are symbolized
 * once. */
struct stack_memo {
	uint64_t id;
	uint32_t nframes;
	bool cut;		/* the walk stopped early: a cause frame follows */
	const struct frame_sym **frames;
};

struct drain {
	struct drain_opts o;
	uint64_t next_epoch_ns;		/* next prototype revalidation */
	/* Frames whose VM was gone when drained: the summary keeps them. */
	uint64_t vanished_unknown;
	/* --native: each process's modules, opened once. */
	struct native_proc {
		pid_t pid;
		struct nmods *mods;
	} *nprocs;
	uint32_t nnprocs;
	uint64_t native_samples, native_bottom;
	uint64_t native_lost;		/* the kernel's CNT_NATIVE_LOST */
};

struct drain_state {
	struct drain *d;
	struct targets *ts;
	struct collector *col;		/* NULL: keys' requests not read */
	struct profile *prof;
	struct stack_memo *memo;	/* this pass's stacks, by hashidx */
	uint32_t nmemo, memo_cap;
	struct hashidx memo_idx;
	struct frame_sym scratch[LBP_MAX_FRAMES];
	const struct frame_sym *cut[LBP_MAX_FRAMES + 1];	/* frames + the cut's cause */
	const struct frame_sym *state[LBP_MAX_FRAMES + 1];	/* a state + the frames */
	/* --native */
	struct lua_frame nlua_raw[LBP_MAX_FRAMES];
	const struct frame_sym *nlua[LBP_MAX_FRAMES];
	bool nentry[LBP_MAX_FRAMES];
	const struct frame_sym *nout[NATIVE_MAX_FRAMES];
	char leaf_name[320];	/* a leaf C frame's "file+0xOFFSET" */
};

static uint64_t memo_hash(const void *ctx, uint32_t e)
{
	return hash_u64(((const struct drain_state *)ctx)->memo[e].id, 0);
}

static bool memo_match(const void *ctx, uint32_t e, const void *key)
{
	return ((const struct drain_state *)ctx)->memo[e].id == *(const uint64_t *)key;
}

static const struct hashidx_ops memo_ops = { memo_hash, memo_match };

/* The memo entry for stack id: *fresh when it was just made (id set, no
 * frames yet).  Valid until the next call. */
static struct stack_memo *memo_get(struct drain_state *ds, uint64_t id, bool *fresh)
{
	uint32_t e;
	size_t hint;

	e = hashidx_find(&ds->memo_idx, &memo_ops, ds, hash_u64(id, 0), &id, &hint);
	*fresh = e == HASHIDX_NONE;
	if (!*fresh)
		return &ds->memo[e];
	if (ds->nmemo == ds->memo_cap) {
		ds->memo_cap = ds->memo_cap ? ds->memo_cap * 2 : 256;
		ds->memo = xrealloc(ds->memo, ds->memo_cap * sizeof(*ds->memo));
	}
	hashidx_add(&ds->memo_idx, hint, ds->nmemo);
	memset(&ds->memo[ds->nmemo], 0, sizeof(*ds->memo));
	ds->memo[ds->nmemo].id = id;
	return &ds->memo[ds->nmemo++];
}

/* [unknown: CAUSE]: a frame that stands for what could not be read, so
 * every format shows the loss and counts it in its totals. */
static const struct frame_sym *unknown_frame(struct profile *p, const char *cause)
{
	struct frame_sym f = { .kind = SYM_UNKNOWN, .name = cause, .line = -1 };

	return profile_frame(p, &f);
}

/* The cause of a walk that stopped early, or NULL when it did not. */
static const char *cut_cause(uint32_t stack_flags)
{
	if (stack_flags & STACK_BAD_FRAME)
		return "bad frame";
	if (stack_flags & STACK_READ_FAULT)
		return "read fault";
	if (stack_flags & STACK_NO_BASE)
		return "no frame base";
	return NULL;
}

/* The stack's frames without the --native FRAME_ENTRY marks, which go to
 * entry[] when given. */
static const struct lua_frame *plain_frames(struct drain_state *ds, const struct stack_trace *st,
					    uint32_t n, bool *entry)
{
	for (uint32_t i = 0; i < n; i++) {
		ds->nlua_raw[i] = st->frames[i];
		ds->nlua_raw[i].id &= ~FRAME_ENTRY;
		if (entry)
			entry[i] = (st->frames[i].id & FRAME_ENTRY) != 0;
	}
	return ds->nlua_raw;
}

static struct nmods *native_mods(struct drain *d, pid_t pid);

/* The leaf C frame the sampler put on top (C code outside the VM that Lua
 * called: an FFI function, libm), named from its ELF symbols; returns the
 * frame count once sym_leaf has placed it. */
static uint32_t name_leaf(struct drain_state *ds, struct symbolizer *sym, pid_t pid, uint32_t n)
{
	if (!n || ds->scratch[0].kind != SYM_NATIVE)
		return n;
	native_name(native_mods(ds->d, pid), ds->scratch[0].cfunc, true, &ds->scratch[0],
		    ds->leaf_name, sizeof(ds->leaf_name));
	return sym_leaf(sym, ds->nlua_raw, ds->scratch, n);
}

/* Symbolized, interned frames of a kernel stack (memoized per drain). */
static struct stack_memo *symbolize_stack(struct drain_state *ds, struct target *t, pid_t pid,
					  uint64_t id, const struct stack_trace *st)
{
	bool fresh;
	struct stack_memo *m = memo_get(ds, id, &fresh);
	struct symbolizer *sym = target_vm(t, st->g, NULL, NULL);
	uint32_t n = st->nframes < LBP_MAX_FRAMES ? st->nframes : LBP_MAX_FRAMES;
	/* A walk cut short keeps what it read; drain_sample adds the cause. */
	bool cut = cut_cause(st->flags) != NULL;

	/* Without stitching only the running coroutine's frames count, and
	 * only a complete walk of it went on into its resumer. */
	if (ds->d->o.no_stitch && st->nthreads && st->nown < n) {
		n = st->nown;
		cut = false;
	}
	if (!fresh)
		return m->frames ? m : NULL;
	m->frames = calloc(n ? n : 1, sizeof(*m->frames));
	if (!m->frames)
		return NULL;
	m->nframes = n;
	m->cut = cut;
	if (!sym) {
		/* The VM is gone (or was never known): count what is lost. */
		for (uint32_t i = 0; i < n; i++)
			m->frames[i] = unknown_frame(ds->prof, "VM gone");
		ds->d->vanished_unknown += n;
		return m;
	}
	sym_stack(sym, plain_frames(ds, st, n, NULL), n, ds->scratch);
	n = m->nframes = name_leaf(ds, sym, pid, n);
	/* The bottom of a whole stack is the C function the host entered the
	 * VM with (lua_pcall of luajit's pmain, ...): the same in every stack,
	 * so noise unless asked for.  Alone, it is what ran: kept. */
	if (!ds->d->o.keep_root && n > 1 && ds->scratch[n - 1].kind == SYM_C &&
	    !(st->flags & STACK_TRUNCATED))
		m->nframes = --n;
	for (uint32_t i = 0; i < n; i++)
		m->frames[i] = profile_frame(ds->prof, &ds->scratch[i]);
	return m;
}

/* The sample's weight in the profile's unit and how many events it
 * stands for: a cpu-clock sample of a wall profile the time its tick
 * stood for (SAMPLE_TIMED, bpf/sampler.bpf.c), another its period, an
 * off-CPU count (OFFCPU_VALUE) its nanoseconds, and a kept switch stands
 * for 1/rate switches (a fixed --off-cpu-rate) or 2^k (the automatic
 * rate's SAMPLE_SHIFT, bpf/offcpu.bpf.h). */
static void weigh(const struct profile *p, const struct sample_key *key, uint64_t value,
		  struct sample *s)
{
	if (key->flags & SAMPLE_OFFCPU) {
		double w = (double)(1u << SAMPLE_SHIFT_OF(key->flags));

		if (p->offcpu_rate > 0 && p->offcpu_rate < 1)
			w /= p->offcpu_rate;

		s->events = (uint64_t)((double)OFFCPU_COUNT(value) * w + 0.5);
		s->count = (uint64_t)((double)OFFCPU_NS(value) * w + 0.5);
		s->flags |= PSAMPLE_OFFCPU;
		if (key->flags & SAMPLE_RUNNABLE)
			s->flags |= PSAMPLE_WAITING;
		return;
	}
	if (key->flags & SAMPLE_TIMED) {	/* -e wall: each tick's own time */
		s->events = OFFCPU_COUNT(value);
		s->count = profile_unit_ns(p) ? OFFCPU_NS(value) : s->events;
		return;
	}
	s->events = value;
	s->count = value;
	if (profile_unit_ns(p) && p->hz)
		s->count = value * (1000000000ull / p->hz);
}

/* A thread state as the top frame ("[waiting for a CPU]"), above the Lua
 * stack it was preempted in. */
static void add_state_frame(struct drain_state *ds, struct sample *s, const char *state)
{
	struct frame_sym f = { .kind = SYM_STATE, .name = state, .line = -1 };

	if (s->nframes >= LBP_MAX_FRAMES)
		return;
	ds->state[0] = profile_frame(ds->prof, &f);
	memcpy(ds->state + 1, s->frames, s->nframes * sizeof(*s->frames));
	s->frames = ds->state;
	s->nframes++;
}

/* The sample's jit.zone, trace start and inlined-without-snapshot
 * labels, into zone[ZONE_NAME_MAX], trace[256] and inlined[512]. */
static void add_labels(struct target *t, const struct sample_key *key, uint64_t g,
		       struct sample *s, char *zone, char *trace, char *inlined)
{
	struct mem_reader *mem;
	const struct lj_layout *lay;
	struct symbolizer *sym = target_vm(t, g, &mem, &lay);

	if (!sym)
		return;
	if (key->zone && !lj_read_str(mem, lay, key->zone, zone, ZONE_NAME_MAX))
		s->zone = zone;
	if (key->vmstate >= 1 && !sym_trace_start(sym, g, key->vmstate, trace, 256))
		s->trace_start = trace;
	if (key->vmstate >= 1 && sym_trace_inlined(sym, g, key->vmstate, inlined, 512) > 0)
		s->inlined = inlined;
}

/* Timeline formats: the sample's time, and its thread's name now and then. */
static void stamp(struct drain_state *ds, const struct sample_key *key, struct sample *s)
{
	char name[32];

	if (!key->time_slot || !ds->d->o.time_slot_ns || !ds->prof->timeline)
		return;
	/* The middle of its slot: off by half a slot at most, and unbiased. */
	s->time_ns = key->time_slot * ds->d->o.time_slot_ns + ds->d->o.time_slot_ns / 2;
	if (!timeline_wants_name(ds->prof->timeline, key->pid, key->tid, s->time_ns))
		return;
	proc_read_thread_comm((pid_t)key->pid, (pid_t)key->tid, name, sizeof(name));
	timeline_set_thread_name(ds->prof, key->pid, key->tid, name, s->time_ns);
}

void drain_sample(void *ctx, const struct sample_key *key, uint64_t count,
		  const struct stack_trace *st)
{
	struct drain_state *ds = ctx;
	struct profile *p = ds->prof;
	struct target *t = targets_find(ds->ts, (pid_t)key->pid);
	struct sample s = { .pid = key->pid, .tid = key->tid, .vmstate = key->vmstate };
	const struct frame_sym *lost[1];
	char zone[ZONE_NAME_MAX], trace[256], inlined[512], req[4 * REQ_KEY_MAX];
	struct stack_memo *m;

	if (!t)
		return;
	weigh(p, key, count, &s);
	if (ds->col)
		s.req = reqlabels_of(ds->col, key, ds->d->o.uri_template, &p->stats, req,
				     sizeof(req));
	stamp(ds, key, &s);
	if (key->flags & SAMPLE_HOST) {
		/* No frames, but never a NULL array: profile.c compares frame
		 * arrays with memcmp, and NULL is undefined there even for 0
		 * bytes (UBSan). */
		static const struct frame_sym *no_frames[1];

		if (ds->d->o.lua_only)
			return;
		s.flags |= PSAMPLE_HOST;
		s.frames = no_frames;
		profile_add(p, &s);
		return;
	}
	if (!st || (key->flags & SAMPLE_NO_STACK)) {
		p->stats.stack_lost += s.events;
		lost[0] = unknown_frame(p, "stack lost");
		s.frames = lost;
		s.nframes = 1;
		profile_add(p, &s);
		return;
	}
	m = symbolize_stack(ds, t, (pid_t)key->pid, key->stack_id, st);
	if (!m)
		return;
	s.frames = m->frames;
	s.nframes = m->nframes;
	if (m->cut) {
		/* The callers below the cut are unknown: one frame says why. */
		memcpy(ds->cut, m->frames, m->nframes * sizeof(*ds->cut));
		ds->cut[s.nframes++] = unknown_frame(p, cut_cause(st->flags));
		s.frames = ds->cut;
	}
	if (key->flags & SAMPLE_RUNNABLE)
		add_state_frame(ds, &s, "waiting for a CPU");
	if (st->flags & STACK_TRUNCATED)
		s.flags |= PSAMPLE_TRUNCATED;
	add_labels(t, key, st->g, &s, zone, trace, inlined);
	profile_add(p, &s);
}

/* ---- --native ------------------------------------------------------------- */

static struct nmods *native_mods(struct drain *d, pid_t pid)
{
	for (uint32_t i = 0; i < d->nnprocs; i++)
		if (d->nprocs[i].pid == pid)
			return d->nprocs[i].mods;
	d->nprocs = xrealloc(d->nprocs, (d->nnprocs + 1) * sizeof(*d->nprocs));
	d->nprocs[d->nnprocs].pid = pid;
	d->nprocs[d->nnprocs].mods = nmods_new(pid);
	return d->nprocs[d->nnprocs++].mods;
}

/* Drops the modules of processes no longer traced (their pid may be
 * reused by another program). */
static void native_forget_gone(struct drain *d, struct targets *ts)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < d->nnprocs; i++) {
		if (targets_find(ts, d->nprocs[i].pid))
			d->nprocs[kept++] = d->nprocs[i];
		else
			nmods_free(d->nprocs[i].mods);
	}
	d->nnprocs = kept;
}

/* The Lua frames of a native sample, whole (the host's entry function
 * too: native frames go on below it), symbolized into ds->nlua. */
static uint32_t native_lua(struct drain_state *ds, struct target *t, const struct stack_trace *st)
{
	struct symbolizer *sym = target_vm(t, st->g, NULL, NULL);
	uint32_t n = st->nframes < LBP_MAX_FRAMES ? st->nframes : LBP_MAX_FRAMES;

	if (!sym)
		return 0;
	const struct lua_frame *raw = plain_frames(ds, st, n, ds->nentry);
	uint32_t leaf = n && (raw[0].id >> FRAME_KIND_SHIFT) == FRAME_KIND_NATIVE;

	/* A leaf C frame is the unwinder's first frame here. */
	if (leaf)
		memmove(ds->nentry, ds->nentry + 1, (n - 1) * sizeof(*ds->nentry));
	n -= leaf;
	sym_stack(sym, raw + leaf, n, ds->scratch);
	for (uint32_t i = 0; i < n; i++)
		ds->nlua[i] = profile_frame(ds->prof, &ds->scratch[i]);
	return n;
}

/* One sample sent with its native stack (collector_drain_native). */
static void drain_native(void *ctx, const struct native_sample *ns, const struct stack_trace *st)
{
	struct drain_state *ds = ctx;
	const struct sample_key *key = &ns->key;
	struct target *t = targets_find(ds->ts, (pid_t)key->pid);
	struct sample s = { .pid = key->pid, .tid = key->tid, .vmstate = key->vmstate };
	struct native_vm vms[NATIVE_MAX_VMS];
	struct native_in in = { .rec = ns, .lua = ds->nlua, .entry = ds->nentry, .vms = vms };
	char zone[ZONE_NAME_MAX], trace[256], inlined[512];
	enum native_end end;

	if (!t || ((key->flags & SAMPLE_HOST) && ds->d->o.lua_only))
		return;
	for (int i = 0; i < target_nvms(t) && in.nvms < NATIVE_MAX_VMS; i++) {
		const struct lj_vm *vm = target_vm_at(t, i, &(struct symbolizer *){ 0 },
						      &(struct mem_reader *){ 0 });

		if (vm)
			vms[in.nvms++] = (struct native_vm){ vm->vm_lo, vm->vm_hi,
							      vm->layout->cframe_prev,
							      vm->layout->cframe_size,
							      vm->vm_ffi_hi };
	}
	if (st && !(key->flags & (SAMPLE_HOST | SAMPLE_NO_STACK)))
		in.nlua = native_lua(ds, t, st);
	in.complete = in.nlua && st->nframes <= LBP_MAX_FRAMES &&
		      !(st->flags & (STACK_TRUNCATED | STACK_BAD_FRAME | STACK_READ_FAULT |
				     STACK_NO_BASE));
	weigh(ds->prof, key, 1, &s);
	stamp(ds, key, &s);
	s.frames = ds->nout;
	s.nframes = native_merge(native_mods(ds->d, (pid_t)key->pid), ds->prof, &in, ds->nout,
				 NATIVE_MAX_FRAMES, &end);
	ds->d->native_samples++;
	if (end == NATIVE_BOTTOM)
		ds->d->native_bottom++;
	if (st)
		add_labels(t, key, st->g, &s, zone, trace, inlined);
	profile_add(ds->prof, &s);
}

static void read_news(void *ctx, const struct proto_news *n)
{
	struct target *t = targets_find(ctx, (pid_t)n->pid);
	struct symbolizer *sym = t ? target_vm(t, n->g, NULL, NULL) : NULL;
	struct mem_region copy[2];
	size_t ncopy = 0;

	/* The sampler's copies: the whole block (or none), the chunk name. */
	if (n->block_len)
		copy[ncopy++] = (struct mem_region){ n->pt, n->block,
						     n->block_len < sizeof(n->block) ?
						     n->block_len : sizeof(n->block) };
	if (n->str_len)
		copy[ncopy++] = (struct mem_region){ n->str, n->str_bytes,
						     n->str_len < sizeof(n->str_bytes) ?
						     n->str_len : sizeof(n->str_bytes) };
	/* One that cannot be read now is read by the drain, if it still
	 * can be; its frames are counted as unknown otherwise. */
	if (sym)
		sym_prefetch(sym, n->pt, n->fp, copy, ncopy);
}

int drain_news(struct drain *d, struct targets *ts, struct collector *col)
{
	(void)d;		/* nothing of it is needed yet */
	return collector_read_news(col, read_news, ts);
}

struct drain *drain_new(const struct drain_opts *o)
{
	struct drain *d = calloc(1, sizeof(*d));

	if (d)
		d->o = *o;
	return d;
}

void drain_free(struct drain *d)
{
	if (!d)
		return;
	if (d->native_samples)
		log_info("native: %llu samples, %llu unwound to the thread's first frame, "
			 "%llu without native frames (ring buffer full)",
			 (unsigned long long)d->native_samples,
			 (unsigned long long)d->native_bottom, (unsigned long long)d->native_lost);
	for (uint32_t i = 0; i < d->nnprocs; i++)
		nmods_free(d->nprocs[i].mods);
	free(d->nprocs);
	free(d);
}

struct drain_state *drain_begin(struct drain *d, struct targets *ts, struct profile *p)
{
	struct drain_state *ds = calloc(1, sizeof(*ds));
	uint64_t now_ns = clock_ns(CLOCK_MONOTONIC);

	if (!ds)
		return NULL;
	ds->d = d;
	ds->ts = ts;
	ds->prof = p;
	/* Drains come often (a process may exit any moment, and then its
	 * memory is gone); prototypes are revalidated about once a second. */
	if (now_ns >= d->next_epoch_ns) {
		targets_next_epoch(ts);
		d->next_epoch_ns = now_ns + EPOCH_NS;
	}
	return ds;
}

void drain_end(struct drain_state *ds, const uint64_t cnt[CNT__MAX])
{
	struct profile_stats *st = &ds->prof->stats;

	/* The kernel counters are cumulative: the profile shows the totals. */
	if (cnt)
		profile_stats_from_kernel(st, cnt);
	st->sym_unknown = ds->d->vanished_unknown + targets_unknown_frames(ds->ts);
	for (uint32_t i = 0; i < ds->nmemo; i++)
		free(ds->memo[i].frames);
	free(ds->memo);
	hashidx_free(&ds->memo_idx);
	free(ds);
}

int drain_run(struct drain *d, struct targets *ts, struct collector *col, struct profile *p)
{
	struct drain_state *ds = drain_begin(d, ts, p);
	uint64_t cnt[CNT__MAX];
	int err;

	if (!ds)
		return -1;
	ds->col = col;
	/* Native samples first: the counts' drain may recycle their stacks. */
	if (d->o.native) {
		collector_drain_native(col, drain_native, ds);
		native_forget_gone(d, ts);
	}
	err = collector_drain(col, drain_sample, ds);
	collector_counters(col, cnt);
	d->native_lost = cnt[CNT_NATIVE_LOST];
	drain_end(ds, cnt);
	return err;
}

int drain_run_parked(struct drain *d, struct targets *ts, struct collector *col,
		     struct profile *p)
{
	struct drain_state *ds = drain_begin(d, ts, p);
	int err;

	if (!ds)
		return -1;
	ds->col = col;
	err = collector_drain_parked(col, drain_sample, ds);
	drain_end(ds, NULL);
	return err;
}
