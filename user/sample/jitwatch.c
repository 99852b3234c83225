// SPDX-License-Identifier: MIT
/* Gathering the JIT's records of every profiled VM (src/lj_jit.h
 * jit_State, src/lj_trace.c penalty_pc and blacklist_pc). */
#include "sample/jitwatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"
#include "sample/targets.h"
#include "symbolize/symbolize.h"
#include "luajit/arch.h"
#include "luajit/discover.h"
#include "jit/jblack.h"
#include "jit/jstate.h"
#include "jit/jsnap.h"
#include "jit/jtrace.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "jit/traceerr.h"

#define PROTO_MAX_BACK	(1u << 20)	/* instructions walked back to a header */
#define MAX_BLACK	64		/* blacklisted instructions per prototype */
/* Compiled forms of loop headers: a slot whose start is one of these has
 * been compiled since it aborted (src/lj_bc.h JFORL, JITERL, JLOOP). */
#define JBC_JFORL	81
#define JBC_JITERL	84

struct jitwatch {
	struct jw_result r;
	bool final;		/* the last poll: every slot's start is looked at */
	size_t cap_aborts, cap_traces, cap_blacks, cap_exits;
};

struct jitwatch *jitwatch_new(void)
{
	return xcalloc(1, sizeof(struct jitwatch));
}

void jitwatch_free(struct jitwatch *jw)
{
	if (!jw)
		return;
	free(jw->r.aborts);
	free(jw->r.traces);
	free(jw->r.blacks);
	free(jw->r.exits);
	free(jw);
}

/* ==== Aborts: the penalty cache and the latest abort ==== */

static struct jw_abort *abort_find(struct jitwatch *jw, uint32_t pid, uint64_t g, uint64_t pc)
{
	for (size_t i = 0; i < jw->r.naborts; i++) {
		struct jw_abort *a = &jw->r.aborts[i];

		if (a->pid == pid && a->g == g && a->startpc == pc)
			return a;
	}
	if (jw->r.naborts == jw->cap_aborts) {
		jw->cap_aborts = jw->cap_aborts ? 2 * jw->cap_aborts : 16;
		jw->r.aborts = xrealloc(jw->r.aborts, jw->cap_aborts * sizeof(*jw->r.aborts));
	}
	memset(&jw->r.aborts[jw->r.naborts], 0, sizeof(struct jw_abort));
	jw->r.aborts[jw->r.naborts].pid = pid;
	jw->r.aborts[jw->r.naborts].g = g;
	jw->r.aborts[jw->r.naborts].startpc = pc;
	jw->r.aborts[jw->r.naborts].reason = 0xff;
	return &jw->r.aborts[jw->r.naborts++];
}

static bool is_compiled_op(uint8_t op)
{
	return op == JBC_JFORL || op == JBC_JITERL || op == JBC_JLOOP;
}

/* The message with its argument from J->errinfo, when js's latest abort is
 * this slot's (same start, compiler idle, start not compiled since, and
 * J->pt the start's own prototype: J->pc can be left in a caller the
 * recorder returned to, whose line would be the wrong "at"). */
static bool capture_detail(struct symbolizer *sym, const struct lj_layout *lay,
			   const struct jstate *js, const struct jpenalty *p, uint8_t op,
			   uint64_t start_pt, struct jw_abort *a)
{
	enum traceerr_arg kind = traceerr_arg(lay, p->reason);
	char name[128] = "";
	int arg = -1;

	if (js->state != 0 || js->cur_startpc != p->pc || is_compiled_op(op) ||
	    !start_pt || js->pt != start_pt)
		return false;
	if (kind == TRACEERR_ARG_INT || kind == TRACEERR_ARG_BCNAME) {
		if (js->errinfo_kind != JERRINFO_INT)
			return false;
		arg = js->errinfo_int;
		traceerr_bcname(lay, (unsigned)arg, name, sizeof(name));
	} else if (kind == TRACEERR_ARG_FUNC) {
		if (js->errinfo_kind != JERRINFO_FUNC ||
		    sym_func_ffname(sym, js->errinfo_func, name, sizeof(name)))
			return false;
	}
	traceerr_text(lay, p->reason, arg, name, a->text, sizeof(a->text));
	if (sym_pc_location(sym, js->pt, js->pc, 'l', a->at, sizeof(a->at)))
		a->at[0] = 0;
	return true;
}

static void poll_slot(struct jitwatch *jw, struct mem_reader *mem, struct symbolizer *sym,
		      const struct lj_vm *vm, uint32_t pid, const struct jstate *js,
		      const struct jpenalty *p)
{
	struct jw_abort *a = abort_find(jw, pid, vm->g, p->pc);
	const struct lj_layout *lay = vm->layout;
	uint32_t ins = 0;
	uint64_t pt;
	uint8_t op;
	bool changed = a->reason != p->reason || a->val != p->val;

	/* Blacklisting leaves the slot as it was (src/lj_trace.c penalty_pc):
	 * the start instruction itself is looked at on changes and at the end. */
	if (!changed && a->start[0] && !jw->final)
		return;
	if (mem_read(mem, p->pc, &ins, 4))
		return;
	op = (uint8_t)ins;
	a->blacklisted = jblack_name(lay, op) != NULL;
	if (!changed && a->start[0])
		return;
	a->changes += changed;
	a->val = p->val;
	if (a->reason != p->reason || !a->have_detail) {
		a->reason = p->reason;
		a->have_detail = false;
		traceerr_text(lay, p->reason, -1, NULL, a->text, sizeof(a->text));
		a->at[0] = 0;
	}
	pt = jblack_proto_of(mem, lay, p->pc, PROTO_MAX_BACK);
	if (capture_detail(sym, lay, js, p, op, pt, a))
		a->have_detail = true;
	if (!a->start[0]) {
		if (!pt || sym_pc_location(sym, pt, p->pc, 'l', a->start, sizeof(a->start)) ||
		    sym_pc_location(sym, pt, p->pc, 'f', a->func, sizeof(a->func)))
			a->start[0] = a->func[0] = 0;
	}
}

static void poll_vm(struct jitwatch *jw, struct mem_reader *mem, struct symbolizer *sym,
		    const struct lj_vm *vm, uint32_t pid)
{
	struct jstate js;

	if (!jstate_supported(vm->layout)) {
		if (!jw->r.refusal[0])
			snprintf(jw->r.refusal, sizeof(jw->r.refusal),
				 "--jit: the JIT state of %s is not known (no jit_State offsets "
				 "in the layout table), PID %u",
				 vm->layout->name, pid);
		return;
	}
	if (jstate_read(mem, vm->layout, vm->g, &js)) {
		jw->r.read_failures++;
		return;
	}
	for (int i = 0; i < JPENALTY_SLOTS; i++)
		if (js.penalty[i].pc)
			poll_slot(jw, mem, sym, vm, pid, &js, &js.penalty[i]);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

typedef void (*vm_fn)(struct jitwatch *jw, struct mem_reader *mem, struct symbolizer *sym,
		      const struct lj_vm *vm, uint32_t pid);

/* Calls fn on every VM of every running target; returns how many targets
 * had exited.  Adds the time taken and the bytes read to *ns, *bytes. */
static uint32_t each_vm(struct jitwatch *jw, struct targets *ts, vm_fn fn, uint64_t *ns,
			uint64_t *bytes)
{
	uint32_t exited = 0;
	uint64_t t0 = now_ns();

	for (int i = 0; i < targets_count(ts); i++) {
		struct target *t = targets_at(ts, i);

		if (target_exited(t)) {
			exited++;
			continue;
		}
		for (int v = 0; v < target_nvms(t); v++) {
			struct symbolizer *sym = NULL;
			struct mem_reader *mem = NULL;
			const struct lj_vm *vm = target_vm_at(t, v, &sym, &mem);

			if (vm && sym && mem) {
				uint64_t b0 = mem_bytes(mem);

				fn(jw, mem, sym, vm, (uint32_t)target_pid(t));
				*bytes += mem_bytes(mem) - b0;
			}
		}
	}
	*ns += now_ns() - t0;
	return exited;
}

void jitwatch_poll(struct jitwatch *jw, struct targets *ts)
{
	jw->r.polls++;
	each_vm(jw, ts, poll_vm, &jw->r.poll_ns, &jw->r.poll_bytes);
}

/* ==== Traces and blacklisted bytecode, at the end ==== */

#define GROW(arr, n, cap) do {                                                \
	if ((n) == (cap)) {                                                   \
		(cap) = (cap) ? 2 * (cap) : 16;                               \
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));              \
	}                                                                     \
} while (0)

/* One VM's traces with their exits and the parents found for them. */
struct vm_traces {
	struct jtrace *tr;
	struct jsnap_trace *st;
	struct jsnap_link *link;
	size_t n;
	/* Machine code read for jsnap_parents, by trace index: NULL not yet
	 * read; len 0 unreadable. */
	struct mem_reader *mem;
	uint8_t **code;
	size_t *codelen;
};

#define MCODE_MAX	(1u << 20)	/* machine code of one trace read */

/* jsnap_jumps_fn: reads the trace's code once, with what follows it where
 * the architecture keeps the exit stubs there (luajit/arch.h); the code
 * alone if that cannot be read. */
static int trace_jumps_to(void *ctx, size_t idx, uint64_t target)
{
	struct vm_traces *vt = ctx;
	const struct jtrace *tr = &vt->tr[idx];
	size_t body = tr->szmcode <= MCODE_MAX ? tr->szmcode : 0;

	if (!vt->code[idx]) {
		size_t len = body + ARCH_EXIT_STUB_BYTES(vt->st[idx].nexits + 1);
		bool ok;

		vt->code[idx] = xmalloc(len + 1);
		ok = tr->mcode && !mem_read(vt->mem, tr->mcode, vt->code[idx], len);
		if (!ok && len > body) {	/* what follows is not mapped */
			len = body;
			ok = tr->mcode && !mem_read(vt->mem, tr->mcode, vt->code[idx], len);
		}
		vt->codelen[idx] = ok ? len : 0;
	}
	if (body > vt->codelen[idx])
		body = vt->codelen[idx];
	return jsnap_exit_jumping_to(&vt->st[idx], vt->code[idx], body, vt->codelen[idx], target);
}

static void add_trace(struct jitwatch *jw, struct symbolizer *sym, uint32_t pid, uint64_t g,
		      const struct vm_traces *vt, size_t i)
{
	const struct jtrace *tr = &vt->tr[i];
	struct jw_trace *o;

	GROW(jw->r.traces, jw->r.ntraces, jw->cap_traces);
	o = &jw->r.traces[jw->r.ntraces++];
	memset(o, 0, sizeof(*o));
	*o = (struct jw_trace){ .pid = pid, .g = g, .traceno = tr->traceno, .link = tr->link,
				.root = tr->root, .linktype = tr->linktype };
	if (vt->link[i].found == JSNAP_PARENT) {
		o->parent = vt->link[i].parent;
		o->exitno = vt->link[i].exitno;
	}
	o->parent_ambiguous = vt->link[i].found == JSNAP_PARENT_AMBIGUOUS;
	if (sym_pc_location(sym, tr->startpt, tr->startpc, 'l', o->start, sizeof(o->start)) ||
	    sym_pc_location(sym, tr->startpt, tr->startpc, 'f', o->func, sizeof(o->func)))
		o->start[0] = o->func[0] = 0;
}

/* The side trace linked to exit e of trace t, NULL when none is known. */
static const struct jtrace *side_of(const struct vm_traces *vt, uint16_t t, uint16_t e)
{
	for (size_t i = 0; i < vt->n; i++)
		if (vt->link[i].found == JSNAP_PARENT && vt->link[i].parent == t &&
		    vt->link[i].exitno == e)
			return &vt->tr[i];
	return NULL;
}

/* The hot exits: with a side trace linked, or taken hotexit times (a side
 * trace was tried) without one. */
static void add_exits(struct jitwatch *jw, struct mem_reader *mem, struct symbolizer *sym,
		      const struct lj_vm *vm, uint32_t pid, const struct jstate *js,
		      const struct vm_traces *vt)
{
	const struct lj_layout *lay = vm->layout;

	for (size_t i = 0; i < vt->n; i++) {
		const struct jsnap_trace *t = &vt->st[i];

		for (int e = 0; e < t->nexits; e++) {
			const struct jexit *x = &t->exits[e];
			const struct jtrace *side = NULL;
			struct jw_exit *o;
			uint64_t pt;

			if (x->count == lay->snapcount_done)
				side = side_of(vt, t->traceno, x->exitno);
			if (!side && (x->count == lay->snapcount_done || js->hotexit <= 0 ||
				      x->count < js->hotexit))
				continue;
			pt = jblack_proto_of(mem, lay, x->pc, PROTO_MAX_BACK);
			GROW(jw->r.exits, jw->r.nexits, jw->cap_exits);
			o = &jw->r.exits[jw->r.nexits];
			*o = (struct jw_exit){ .pid = pid, .g = vm->g, .traceno = t->traceno,
					       .exitno = x->exitno,
					       .side = side ? side->traceno : 0,
					       .side_linktype = side ? side->linktype : 0,
					       .count = side ? 0 : x->count,
					       .hotexit = js->hotexit, .tryside = js->tryside };
			if (pt && !sym_pc_location(sym, pt, x->pc, 'l', o->where, sizeof(o->where)) &&
			    !sym_pc_location(sym, pt, x->pc, 'f', o->func, sizeof(o->func)))
				jw->r.nexits++;
		}
	}
}

/* Reads every trace of the VM and its exits, and finds side traces'
 * parents; vt's arrays are the caller's to free (vm_traces_free). */
static void vm_traces_read(struct jitwatch *jw, struct mem_reader *mem,
			   const struct lj_layout *lay, const struct jstate *js,
			   struct vm_traces *vt)
{
	size_t cap = 0;

	memset(vt, 0, sizeof(*vt));
	for (unsigned i = 1; i < js->sizetrace; i++) {
		struct jtrace tr;
		struct jexit *ex;
		int nex;

		if (jtrace_read(mem, lay, js, i, &tr))
			continue;
		if (vt->n == cap) {
			cap = cap ? 2 * cap : 16;
			vt->tr = xrealloc(vt->tr, cap * sizeof(*vt->tr));
			vt->st = xrealloc(vt->st, cap * sizeof(*vt->st));
		}
		ex = xcalloc(tr.nsnap ? tr.nsnap : 1, sizeof(*ex));
		nex = jsnap_read(mem, lay, &tr, ex, tr.nsnap);
		if (nex < 0) {
			jw->r.exit_read_failures++;
			nex = 0;
		}
		vt->tr[vt->n] = tr;
		vt->st[vt->n] = (struct jsnap_trace){ .traceno = tr.traceno, .root = tr.root,
						      .startpc = tr.startpc, .mcode = tr.mcode,
						      .exits = ex, .nexits = nex,
						      .has_mcofs = lay->snap_mcofs != 0 };
		vt->n++;
	}
	vt->link = xcalloc(vt->n + 1, sizeof(*vt->link));
	vt->mem = mem;
	vt->code = xcalloc(vt->n + 1, sizeof(*vt->code));
	vt->codelen = xcalloc(vt->n + 1, sizeof(*vt->codelen));
	jsnap_parents(lay, vt->st, vt->n, trace_jumps_to, vt, vt->link);
}

static void vm_traces_free(struct vm_traces *vt)
{
	for (size_t i = 0; i < vt->n; i++) {
		free((void *)vt->st[i].exits);
		free(vt->code[i]);
	}
	free(vt->code);
	free(vt->codelen);
	free(vt->tr);
	free(vt->st);
	free(vt->link);
}

static void add_blacks(struct jitwatch *jw, struct mem_reader *mem, struct symbolizer *sym,
		       const struct lj_vm *vm, uint32_t pid, uint64_t pt)
{
	struct jblack_ins ins[MAX_BLACK];
	int n = jblack_scan(mem, vm->layout, pt, ins, MAX_BLACK);

	for (int i = 0; i < n && i < MAX_BLACK; i++) {
		struct jw_black *b;

		if (jw->r.nblacks == jw->cap_blacks) {
			jw->cap_blacks = jw->cap_blacks ? 2 * jw->cap_blacks : 16;
			jw->r.blacks = xrealloc(jw->r.blacks, jw->cap_blacks * sizeof(*jw->r.blacks));
		}
		b = &jw->r.blacks[jw->r.nblacks++];
		memset(b, 0, sizeof(*b));
		b->pid = pid;
		b->g = vm->g;
		b->op = jblack_name(vm->layout, ins[i].op);
		if (sym_pc_location(sym, pt, ins[i].pc, 'l', b->where, sizeof(b->where)) ||
		    sym_pc_location(sym, pt, ins[i].pc, 'f', b->func, sizeof(b->func)))
			jw->r.nblacks--;
	}
}

/* Every prototype that started a trace or an aborted one, once. */
static void finish_vm(struct jitwatch *jw, struct mem_reader *mem, struct symbolizer *sym,
		      const struct lj_vm *vm, uint32_t pid)
{
	struct jstate js;
	struct vm_traces vt;
	uint64_t *protos = NULL;
	size_t np = 0, cap = 0;

	if (!jstate_supported(vm->layout) || jstate_read(mem, vm->layout, vm->g, &js))
		return;
	vm_traces_read(jw, mem, vm->layout, &js, &vt);
	for (size_t i = 0; i < vt.n; i++)
		add_trace(jw, sym, pid, vm->g, &vt, i);
	add_exits(jw, mem, sym, vm, pid, &js, &vt);
	for (size_t i = 0, n = 0; i < vt.n + jw->r.naborts; i++, n = 0) {
		uint64_t pt = 0;

		if (i < vt.n) {
			pt = vt.tr[i].startpt;
		} else {
			const struct jw_abort *a = &jw->r.aborts[i - vt.n];

			if (a->pid != pid || a->g != vm->g)
				continue;
			pt = jblack_proto_of(mem, vm->layout, a->startpc, PROTO_MAX_BACK);
		}
		for (n = 0; n < np && protos[n] != pt; n++)
			;
		if (!pt || n < np)
			continue;
		GROW(protos, np, cap);
		protos[np++] = pt;
	}
	vm_traces_free(&vt);
	for (size_t i = 0; i < np; i++)
		add_blacks(jw, mem, sym, vm, pid, protos[i]);
	free(protos);
}

const struct jw_result *jitwatch_finish(struct jitwatch *jw, struct targets *ts)
{
	jw->final = true;
	jitwatch_poll(jw, ts);
	jw->r.exited += each_vm(jw, ts, finish_vm, &jw->r.finish_ns, &jw->r.finish_bytes);
	return &jw->r;
}
