// SPDX-License-Identifier: MIT
/* snapshot -p PID [-d SECONDS] [-n STACKS] -o FILE
 *
 * Takes a seed for the fuzz targets from a live LuaJIT process: samples it
 * with the real BPF collector for a while, keeps up to STACKS distinct
 * walked stacks, then symbolizes them once more while recording every read
 * of target memory, and saves those bytes with the stacks (snapfmt.h).
 * Page reads that only scanned past the end of a debug-info block are
 * dropped.
 * The saved image is checked to name every frame as the live process did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sample/collector.h"
#include "luajit/discover.h"
#include "jit/jblack.h"
#include "jit/jstate.h"
#include "jit/jtrace.h"
#include "model/frame_fmt.h"
#include "luajit/layout.h"
#include "recmem.h"
#include "snapfmt.h"
#include "symbolize/symbolize.h"

#define DEBUGINFO_MAX	(64 * 1024)	/* what symbolize.c copies at most */
#define MAX_WINDOWS	512

struct collect {
	uint64_t g;
	uint64_t ids[SNAP_MAX_STACKS];
	struct snapshot *snap;
	int max;
};

struct window {
	uint64_t start, used;	/* a debug-info block and its real length */
};

static void on_drained(void *ctx, const struct sample_key *key, uint64_t count,
		       const struct stack_trace *st)
{
	struct collect *c = ctx;
	struct snap_stack *out;

	(void)count;
	if (!st || st->g != c->g || !st->nframes || c->snap->nstacks >= c->max)
		return;
	for (int i = 0; i < c->snap->nstacks; i++)
		if (c->ids[i] == key->stack_id)
			return;
	c->ids[c->snap->nstacks] = key->stack_id;
	out = &c->snap->stacks[c->snap->nstacks++];
	out->vmstate = key->vmstate;
	out->nframes = st->nframes < LBP_MAX_FRAMES ? st->nframes : LBP_MAX_FRAMES;
	memcpy(out->frames, st->frames, out->nframes * sizeof(out->frames[0]));
}

/* Every frame of every stack as 'F' and 'l' keys, one string. */
static char *names_of(struct symbolizer *sym, const struct snapshot *s)
{
	static struct frame_sym out[LBP_MAX_FRAMES];
	struct strbuf sb = STRBUF_INIT;

	sym_next_epoch(sym);
	for (int i = 0; i < s->nstacks; i++) {
		sym_stack(sym, s->stacks[i].frames, s->stacks[i].nframes, out);
		for (uint32_t f = 0; f < s->stacks[i].nframes; f++) {
			frame_put(&sb, &out[f], 'F', false);
			sb_putc(&sb, ' ');
			frame_put(&sb, &out[f], 'l', false);
			sb_putc(&sb, '\n');
		}
	}
	return strdup(sb_str(&sb));
}

static uint64_t uleb_skip(const uint8_t **p, const uint8_t *end)
{
	while (*p < end && (*(*p)++ & 0x80))
		;
	return 0;
}

/* Real length of the varinfo (records up to the 0 byte) or uvinfo
 * (sizeuv names) block at addr. */
static uint64_t block_len(struct mem_reader *mem, uint64_t addr, bool varinfo, unsigned sizeuv)
{
	static uint8_t buf[DEBUGINFO_MAX];
	const uint8_t *p = buf, *end;
	size_t n = 0;

	while (n < sizeof(buf)) {
		size_t chunk = 4096 - ((addr + n) & 4095);

		if (chunk > sizeof(buf) - n)
			chunk = sizeof(buf) - n;
		if (mem_read(mem, addr + n, buf + n, chunk))
			break;
		n += chunk;
	}
	end = buf + n;
	if (varinfo) {
		while (p < end) {
			uint8_t code = *p++;

			if (!code)
				break;
			if (code >= 7) {
				while (p < end && *p)
					p++;
				p++;
			}
			uleb_skip(&p, end);
			uleb_skip(&p, end);
		}
	} else {
		for (unsigned i = 0; i < sizeuv && p < end; i++) {
			const uint8_t *nul = memchr(p, 0, (size_t)(end - p));

			p = nul ? nul + 1 : end;
		}
	}
	return p <= end ? (uint64_t)(p - buf) : n;
}

/* The debug-info blocks of the prototypes in the stacks. */
static int debug_windows(struct mem_reader *mem, const struct lj_layout *lay,
			 const struct snapshot *s, struct window *w)
{
	int n = 0;

	for (int i = 0; i < s->nstacks; i++) {
		for (uint32_t f = 0; f < s->stacks[i].nframes && n + 2 <= MAX_WINDOWS; f++) {
			uint64_t id = s->stacks[i].frames[f].id, pt = id & FRAME_ID_MASK;
			uint64_t vi = 0, uv = 0;
			uint8_t sizeuv = 0;

			if (id >> FRAME_KIND_SHIFT != FRAME_KIND_LUA ||
			    layout_read_ref(mem, lay, pt + lay->pt_varinfo, &vi) ||
			    layout_read_ref(mem, lay, pt + lay->pt_uvinfo, &uv) ||
			    mem_read(mem, pt + lay->pt_sizeuv, &sizeuv, 1))
				continue;
			if (vi)
				w[n++] = (struct window){ vi, block_len(mem, vi, true, 0) };
			if (uv)
				w[n++] = (struct window){ uv, block_len(mem, uv, false, sizeuv) };
		}
	}
	return n;
}

/* Drops copy_debuginfo's page reads past the end of a block: reads of its
 * page pattern that lie beyond the end of every block they could belong
 * to.  The page read holding the end of a block stays whole (the
 * symbolizer reads it whole). */
static void trim(struct mem_record *r, const struct window *w, int nw)
{
	bool in_tail = false;

	for (int i = 0; i < nw; i++) {
		uint64_t lim = w[i].start + DEBUGINFO_MAX, chunk;

		if (r->addr < w[i].start || r->addr >= lim)
			continue;
		chunk = 4096 - (r->addr & 4095);
		if (chunk > lim - r->addr)
			chunk = lim - r->addr;
		if (r->len != chunk || r->addr < w[i].start + w[i].used)
			return;
		in_tail = true;
	}
	if (in_tail)
		r->len = 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct mem_record *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Coalesces records into at most SNAP_MAX_REGIONS regions, widening the gap
 * that may be bridged (with live bytes) until they fit. */
/* What --jit reads (sample/jitwatch.c), so that fuzz_vm's seeds hold a
 * real jit_State, its traces and the prototypes of its aborts. */
static void record_jit(struct mem_reader *mem, struct symbolizer *sym,
		       const struct lj_layout *lay, uint64_t g)
{
	struct jblack_ins bl[8];
	struct jstate js;
	struct jtrace tr;
	char buf[256];

	if (!jstate_supported(lay) || jstate_read(mem, lay, g, &js))
		return;
	for (int i = 0; i < JPENALTY_SLOTS; i++) {
		uint64_t pt = js.penalty[i].pc ?
			      jblack_proto_of(mem, lay, js.penalty[i].pc, 4096) : 0;

		if (pt && jblack_scan(mem, lay, pt, bl, 8) >= 0)
			sym_pc_location(sym, pt, js.penalty[i].pc, 'l', buf, sizeof(buf));
	}
	sym_pc_location(sym, js.pt, js.pc, 'l', buf, sizeof(buf));
	for (unsigned n = 1; n < js.sizetrace && n < 64; n++)
		if (!jtrace_read(mem, lay, &js, n, &tr))
			sym_pc_location(sym, tr.startpt, tr.startpc, 'l', buf, sizeof(buf));
}

static int build_regions(struct mem_reader *mem, struct mem_record *r, size_t n,
			 struct snapshot *s)
{
	uint64_t gap = 0;

	qsort(r, n, sizeof(*r), by_addr);
	for (;;) {
		uint64_t end = 0;
		int count = 0;

		for (size_t i = 0; i < n; i++) {
			if (!r[i].len)
				continue;
			if (!count || r[i].addr > end + gap) {
				count++;
				end = r[i].addr + r[i].len;
			} else if (r[i].addr + r[i].len > end) {
				end = r[i].addr + r[i].len;
			}
		}
		if (count <= SNAP_MAX_REGIONS)
			break;
		gap = gap ? gap * 4 : 16;
	}
	s->nregions = 0;
	for (size_t i = 0; i < n;) {
		uint64_t start, end;
		size_t j;
		uint8_t *buf;

		if (!r[i].len) {
			i++;
			continue;
		}
		start = r[i].addr;
		end = r[i].addr + r[i].len;
		for (j = i + 1; j < n && (!r[j].len || r[j].addr <= end + gap); j++)
			if (r[j].len && r[j].addr + r[j].len > end)
				end = r[j].addr + r[j].len;
		buf = calloc(1, end - start);
		if (!buf)
			return -1;
		mem_read(mem, start, buf, end - start);	/* the gaps; zeros if unreadable */
		for (size_t k = i; k < j; k++)
			if (r[k].len)
				memcpy(buf + (r[k].addr - start), r[k].data, r[k].len);
		s->regions[s->nregions++] = (struct mem_region){ start, buf, end - start };
		i = j;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: snapshot -p PID [-d SECONDS] [-n STACKS] -o FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct snapshot snap, check;
	static struct window windows[MAX_WINDOWS];
	struct collector_opts co = { .hz = 997, .max_stacks = 4096, .max_counts = 16384,
				     .max_frames = LBP_MAX_FRAMES };
	struct lj_vm vms[LBP_MAX_VMS];
	struct discover_report rep;
	struct collector *col = NULL;
	struct mem_reader *mem = NULL, *img = NULL;
	struct symbolizer *sym = NULL, *isym = NULL;
	struct layout_probe probe;
	struct vm_slot slot;
	struct mem_record *recs;
	size_t nrecs, len, ok = 0;
	char err[256], *live = NULL, *saved = NULL;
	const char *path = NULL;
	double secs = 2;
	int c, pid = 0, maxstacks = 24, rc = 1, nw;
	uint8_t *enc = NULL;
	FILE *f;

	while ((c = getopt(argc, argv, "p:d:n:o:")) != -1) {
		switch (c) {
		case 'p': pid = atoi(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'n': maxstacks = atoi(optarg); break;
		case 'o': path = optarg; break;
		default: return usage();
		}
	}
	if (pid <= 0 || !path || maxstacks < 1 || maxstacks > SNAP_MAX_STACKS)
		return usage();
	mem = mem_open_pid(pid);
	if (!mem || discover_vms(pid, mem, vms, LBP_MAX_VMS, &rep) != DISCOVER_FOUND) {
		fprintf(stderr, "snapshot: PID %d: no LuaJIT VM found\n", pid);
		goto cleanup;
	}
	col = collector_open(&co, err, sizeof(err));
	if (!col) {
		fprintf(stderr, "snapshot: %s\n", err);
		goto cleanup;
	}
	discover_vm_slot(&vms[0], &slot);
	collector_set_proc(col, pid, &slot, 1, NULL);
	{
		struct collect cc = { .g = vms[0].g, .snap = &snap, .max = maxstacks };
		struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

		nanosleep(&ts, NULL);
		collector_drain(col, on_drained, &cc);
	}
	if (!snap.nstacks) {
		fprintf(stderr, "snapshot: PID %d: no Lua stacks sampled\n", pid);
		goto cleanup;
	}
	for (int i = 0; i < layout_count(); i++)
		if (layout_at(i) == vms[0].layout)
			snap.layout = i;
	snap.gg = vms[0].gg;
	snap.g = vms[0].g;

	/* What the loader and the symbolizer read, recorded. */
	recmem_start(mem);
	layout_identify(mem, vms[0].gg, vms[0].layout->gc64, &probe);
	discover_zone_table(mem, &vms[0]);
	sym = sym_new(mem, vms[0].layout, NULL);
	live = names_of(sym, &snap);
	for (int i = 0; i < snap.nstacks; i++) {
		char buf[256];

		if (snap.stacks[i].vmstate > 0)
			sym_trace_start(sym, vms[0].g, snap.stacks[i].vmstate, buf, sizeof(buf));
	}
	record_jit(mem, sym, vms[0].layout, vms[0].g);
	recmem_stop(mem, &recs, &nrecs);
	nw = debug_windows(mem, vms[0].layout, &snap, windows);
	for (size_t i = 0; i < nrecs; i++)
		trim(&recs[i], windows, nw);

	if (build_regions(mem, recs, nrecs, &snap) || snap_encode(&snap, &enc, &len)) {
		fprintf(stderr, "snapshot: out of memory\n");
		goto cleanup;
	}

	/* The image alone must name the frames as the live process did. */
	if (snap_parse(enc, len, &check) || !(img = mem_open_image(check.regions, (size_t)check.nregions)) ||
	    !(isym = sym_new(img, vms[0].layout, NULL)) || !(saved = names_of(isym, &check))) {
		fprintf(stderr, "snapshot: the encoded snapshot does not parse\n");
		goto cleanup;
	}
	ok = !strcmp(live, saved);
	if (!ok && getenv("SNAPSHOT_DEBUG"))
		fprintf(stderr, "live:\n%s\nimage:\n%s\n", live, saved);
	f = fopen(path, "w");
	if (!f || fwrite(enc, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "snapshot: cannot write %s: %s\n", path, strerror(errno));
		goto cleanup;
	}
	fprintf(stderr, "snapshot: %s: %d stacks, %d regions, %zu bytes (%s, %s)\n", path,
		snap.nstacks, snap.nregions, len, vms[0].layout->name,
		ok ? "the image names every frame as the live process did"
		   : "WARNING: the image names some frames differently");
	rc = ok ? 0 : 1;
cleanup:
	for (int i = 0; i < snap.nregions; i++)
		free((void *)snap.regions[i].data);
	free(enc);
	free(live);
	free(saved);
	sym_free(sym);
	sym_free(isym);
	mem_close(img);
	mem_close(mem);
	collector_close(col);
	return rc;
}
