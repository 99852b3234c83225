// SPDX-License-Identifier: MIT
/* record -p PID -k KIND -o PATH [-n STOPS] [-c COMMENT]
 *
 * Takes a walker snapshot (walksnap.h) of a live LuaJIT process: stops its
 * main thread at random instants (ptrace interrupt: the registers user mode
 * had, as a sample that interrupted the kernel reads them), runs the BPF
 * walker built as user-space code over the live memory while it records
 * every read, and keeps a stop whose walk is of KIND.  Meanwhile the real
 * BPF collector samples the process: the walk kept must be one the kernel
 * walker counted too (same key class, flags and frames), so that the
 * expected list beside the snapshot is the live BPF run's.
 * Writes PATH.snap and PATH.expect; tests/walker/README.md says how the
 * committed ones were made. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "base/textsafe.h"
#include "luajit/discover.h"
#include "model/frame_fmt.h"
#include "proc/memory.h"
#include "sample/collector.h"
#include "shim.h"
#include "symbolize/symbolize.h"
#include "walkexp.h"
#include "walker.h"
#include "walksnap.h"

#define MAX_CAND	16
#define MAX_RECS	65536

/* The live reader: what it read, kept. */
struct recorder {
	struct mem_reader *mem;
	struct walksnap_region *recs;
	uint32_t n;
};

struct cand {
	struct walksnap snap;
	struct walker_out out;
	uint64_t seen;		/* samples of the same walk the kernel counted */
};

static int rec_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct recorder *r = ctx;

	if (mem_read(r->mem, addr, dst, len))
		return -1;
	if (r->n < MAX_RECS && (r->recs[r->n].data = malloc(len))) {
		memcpy(r->recs[r->n].data, dst, len);
		r->recs[r->n].addr = addr;
		r->recs[r->n].len = (uint32_t)len;
		r->n++;
	}
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct walksnap_region *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The reads as regions: overlapping or touching ones merged (the thread
 * was stopped: they agree where they overlap). */
static int build_regions(struct recorder *r, struct walksnap *s)
{
	qsort(r->recs, r->n, sizeof(*r->recs), by_addr);
	s->regions = calloc(r->n ? r->n : 1, sizeof(*s->regions));
	s->nregions = 0;
	if (!s->regions)
		return -1;
	for (uint32_t i = 0; i < r->n;) {
		uint64_t start = r->recs[i].addr, end = start + r->recs[i].len;
		uint32_t j;

		for (j = i + 1; j < r->n && r->recs[j].addr <= end; j++)
			if (r->recs[j].addr + r->recs[j].len > end)
				end = r->recs[j].addr + r->recs[j].len;
		s->regions[s->nregions].addr = start;
		s->regions[s->nregions].len = (uint32_t)(end - start);
		s->regions[s->nregions].data = malloc(end - start);
		if (!s->regions[s->nregions].data)
			return -1;
		for (uint32_t k = i; k < j; k++)
			memcpy(s->regions[s->nregions].data + (r->recs[k].addr - start),
			       r->recs[k].data, r->recs[k].len);
		s->nregions++;
		i = j;
	}
	for (uint32_t i = 0; i < r->n; i++)
		free(r->recs[i].data);
	r->n = 0;
	return s->nregions > WALKSNAP_MAX_REGIONS ? -1 : 0;
}

static uint64_t frame_kind(const struct walker_out *o, unsigned i)
{
	return i < o->st.nframes ? o->st.frames[i].id >> FRAME_KIND_SHIFT : ~0ull;
}

/* The kinds of sample a snapshot is taken of, by what the walk gave. */
static bool k_interp(const struct walker_out *o)
{
	return o->key.vmstate == -1 && o->st.nframes >= 2 && frame_kind(o, 0) == FRAME_KIND_LUA;
}
static bool k_trace(const struct walker_out *o)
{
	return o->key.vmstate > 0 && o->st.nframes >= 2;
}
static bool k_inlined(const struct walker_out *o)
{
	return o->key.vmstate > 0 && o->counters[CNT_TRACE_INLINE];
}
static bool k_exit(const struct walker_out *o)
{
	return o->key.vmstate == -4 && o->st.nframes >= 1;	/* ~LJ_VMST_EXIT */
}
static bool k_cfunc(const struct walker_out *o)
{
	return o->key.vmstate == -2 && (frame_kind(o, 0) == FRAME_KIND_C ||
					frame_kind(o, 0) == FRAME_KIND_FF);
}
static bool k_gc(const struct walker_out *o)
{
	return o->key.vmstate == -3 && o->st.nframes >= 1;
}
static bool k_coro(const struct walker_out *o)
{
	return o->st.nthreads > 0;
}
static bool k_ffi(const struct walker_out *o)
{
	return frame_kind(o, 0) == FRAME_KIND_NATIVE && o->st.nframes >= 2;
}

static const struct {
	const char *name;
	bool (*is)(const struct walker_out *o);
} kinds[] = {
	{ "interp", k_interp }, { "trace", k_trace }, { "inlined", k_inlined },
	{ "exit", k_exit }, { "cfunc", k_cfunc }, { "gc", k_gc },
	{ "coro", k_coro }, { "ffi", k_ffi },
};

/* Stops tid (seized), reads its registers into s; 0 when stopped. */
static int stop_regs(pid_t tid, struct walksnap *s)
{
	struct user_regs_struct regs;
	int status;

	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0))
		return -1;
	for (;;) {
		if (waitpid(tid, &status, __WALL) != tid || !WIFSTOPPED(status))
			return -1;
		if (status >> 16 == PTRACE_EVENT_STOP)
			break;
		/* A signal on its way: delivered, then stopped again. */
		ptrace(PTRACE_CONT, tid, 0, (void *)(long)WSTOPSIG(status));
	}
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs))
		return -1;
	s->ip = regs.rip;
	s->sp = regs.rsp;
	s->base = regs.rdx;
	s->pc = regs.rbx;
	s->rb = regs.rbp;
	s->disp = regs.r14;
	return 0;
}

static bool same_walk(const struct walker_out *o, const struct sample_key *key,
		      const struct stack_trace *st)
{
	return key->vmstate == o->key.vmstate && key->flags == o->key.flags &&
	       st->nframes == o->st.nframes && st->flags == o->st.flags &&
	       st->nown == o->st.nown && st->nthreads == o->st.nthreads &&
	       !memcmp(st->frames, o->st.frames, st->nframes * sizeof(st->frames[0]));
}

struct drain_ctx {
	struct cand *c;
	int n;
	pid_t pid;
};

static void on_drained(void *ctx, const struct sample_key *key, uint64_t count,
		       const struct stack_trace *st)
{
	struct drain_ctx *d = ctx;

	if (!st || key->pid != (uint32_t)d->pid)
		return;
	for (int i = 0; i < d->n; i++)
		if (same_walk(&d->c[i].out, key, st))
			d->c[i].seen += count;
}

/* The expected walk with the frames' names as comments (symbolized from
 * the live process), and the builds that give it. */
static int write_expect(const char *path, const struct cand *c, bool arm64,
			struct mem_reader *mem, const struct lj_layout *lay, const char *comment)
{
	static struct frame_sym syms[LBP_MAX_FRAMES];
	struct symbolizer *sym = sym_new(mem, lay, NULL);
	char *text = walkexp_render(&c->out), *line, *save = NULL;
	FILE *f = fopen(path, "w");
	unsigned fi = 0;
	int bad;

	if (!sym || !text || !f) {
		if (f)
			fclose(f);
		sym_free(sym);
		free(text);
		return -1;
	}
	sym_stack(sym, c->out.st.frames, c->out.st.nframes, syms);
	fprintf(f, "# %s (%s); the kernel walker counted this walk %llu times while it ran\n",
		comment, lay->name, (unsigned long long)c->seen);
	fprintf(f, "arch x86%s\n", arm64 ? " arm64" : "");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		fputs(line, f);
		if (!strncmp(line, "frame ", 6) && fi < c->out.st.nframes) {
			struct strbuf sb = STRBUF_INIT;

			frame_put(&sb, &syms[fi], 'F', false);
			sb_puts(&sb, " ");
			frame_put(&sb, &syms[fi++], 'l', false);
			/* The target's bytes, escaped (base/textsafe.h). */
			fputs("\t# ", f);
			text_fput(f, sb_str(&sb));
			sb_free(&sb);
		}
		fputc('\n', f);
	}
	bad = fclose(f);
	free(text);
	sym_free(sym);
	return bad ? -1 : 0;
}

/* The walk replayed from the saved regions alone, for an architecture:
 * the same text as the live one, or NULL. */
static char *replay(struct walksnap *s, int arm64)
{
	struct walker_out *out = calloc(1, sizeof(*out));
	struct walker_in in;
	char *text = NULL;

	shim_set_reader(walksnap_read, s);
	if (out && !walksnap_input(s, arm64, &in) &&
	    !(arm64 ? walker_arm64_run(&in, out) : walker_x86_run(&in, out)))
		text = walkexp_render(out);
	free(out);
	return text;
}

/* Stops pid up to `stops` times, walks it live each time and keeps the
 * walks that `is` accepts, with the memory they read; returns how many. */
static int take_stops(pid_t pid, const struct lj_vm *vm, struct recorder *rec,
		      bool (*is)(const struct walker_out *), int stops, struct cand *cands)
{
	static struct walker_out out;
	struct walker_in in;
	int ncand = 0;

	srand((unsigned)time(NULL) ^ (unsigned)pid);
	shim_set_reader(rec_read, rec);
	for (int i = 0; i < stops && ncand < MAX_CAND; i++) {
		struct walksnap *s = &cands[ncand].snap;
		struct timespec ts = { 0, (1 + rand() % 20) * 1000000L };

		nanosleep(&ts, NULL);
		memset(s, 0, sizeof(*s));
		if (stop_regs(pid, s))
			break;
		snprintf(s->layout, sizeof(s->layout), "%s", vm->layout->name);
		s->tgid = s->tid = (uint32_t)pid;
		s->g = vm->g;
		s->zone_tab = vm->zone_tab;
		s->vm_lo = vm->vm_lo;
		s->vm_hi = vm->vm_hi;
		s->obj_lo = vm->obj_lo;
		s->obj_hi = vm->obj_hi;
		if (!walksnap_input(s, 0, &in) && !walker_x86_run(&in, &out) && is(&out) &&
		    !build_regions(rec, s)) {
			cands[ncand++].out = out;
		} else {
			for (uint32_t k = 0; k < rec->n; k++)
				free(rec->recs[k].data);
			rec->n = 0;
			walksnap_free(s);
		}
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
	return ncand;
}

static int usage(void)
{
	fprintf(stderr, "usage: record -p PID -k interp|trace|inlined|exit|cfunc|gc|coro|ffi "
			"-o PATH [-n STOPS] [-c COMMENT]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct cand cands[MAX_CAND];
	struct collector_opts co = { .hz = 997, .max_stacks = 4096, .max_counts = 16384,
				     .max_frames = LBP_MAX_FRAMES };
	struct recorder rec = { 0 };
	struct lj_vm vm;
	struct discover_report rep;
	struct collector *col = NULL;
	const char *path = NULL, *comment = "";
	bool (*is)(const struct walker_out *) = NULL;
	char err[256], snap_path[512], exp_path[512], *live = NULL, *x86 = NULL, *arm = NULL;
	int c, pid = 0, stops = 400, ncand = 0, rc = 1, pick = -1;

	while ((c = getopt(argc, argv, "p:k:o:n:c:")) != -1) {
		switch (c) {
		case 'p': pid = atoi(optarg); break;
		case 'o': path = optarg; break;
		case 'n': stops = atoi(optarg); break;
		case 'c': comment = optarg; break;
		case 'k':
			for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
				if (!strcmp(optarg, kinds[i].name))
					is = kinds[i].is;
			break;
		default: return usage();
		}
	}
	if (pid <= 0 || !path || !is || stops < 1)
		return usage();
	snprintf(snap_path, sizeof(snap_path), "%s.snap", path);
	snprintf(exp_path, sizeof(exp_path), "%s.expect", path);
	rec.mem = mem_open_pid(pid);
	rec.recs = calloc(MAX_RECS, sizeof(*rec.recs));
	if (!rec.mem || !rec.recs || discover_vms(pid, rec.mem, &vm, 1, &rep) != DISCOVER_FOUND) {
		fprintf(stderr, "record: PID %d: no LuaJIT VM found\n", pid);
		return 1;
	}
	vm.zone_tab = discover_zone_table(rec.mem, &vm);
	col = collector_open(&co, err, sizeof(err));
	if (!col) {
		fprintf(stderr, "record: %s\n", err);
		return 1;
	}
	{
		struct vm_slot slot;

		discover_vm_slot(&vm, &slot);
		collector_set_proc(col, pid, &slot, 1);
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, 0)) {
		fprintf(stderr, "record: PID %d: ptrace: %s\n", pid, strerror(errno));
		goto out;
	}
	ncand = take_stops(pid, &vm, &rec, is, stops, cands);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	{
		struct drain_ctx d = { cands, ncand, pid };

		collector_drain(col, on_drained, &d);
	}
	for (int i = 0; i < ncand && pick < 0; i++)
		if (cands[i].seen)
			pick = i;
	if (pick < 0) {
		fprintf(stderr, "record: PID %d: %d walks of the kind, none the kernel counted\n",
			pid, ncand);
		goto out;
	}
	live = walkexp_render(&cands[pick].out);
	x86 = replay(&cands[pick].snap, 0);
	arm = replay(&cands[pick].snap, 1);
	if (!live || !x86 || strcmp(live, x86)) {
		fprintf(stderr, "record: the saved image does not replay the walk\n");
		goto out;
	}
	if (walksnap_save(snap_path, &cands[pick].snap) ||
	    write_expect(exp_path, &cands[pick], arm && !strcmp(arm, live), rec.mem, vm.layout,
			 comment)) {
		fprintf(stderr, "record: cannot write %s: %s\n", path, strerror(errno));
		goto out;
	}
	fprintf(stderr, "record: %s: %u frames, %u regions, arm64 %s\n", snap_path,
		cands[pick].out.st.nframes, cands[pick].snap.nregions,
		arm && !strcmp(arm, live) ? "agrees" : "differs");
	rc = 0;
out:
	for (int i = 0; i < ncand; i++)
		walksnap_free(&cands[i].snap);
	free(live);
	free(x86);
	free(arm);
	collector_close(col);
	mem_close(rec.mem);
	return rc;
}
