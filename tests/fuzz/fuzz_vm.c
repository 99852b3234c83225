// SPDX-License-Identifier: MIT
/* libFuzzer target: what the loader reads from a VM before any sample
 * arrives, on a memory image: GG_State validation against every layout,
 * the jit.zone lookup through the registry, trace start lookups and the
 * GCstr/table readers, and the JIT-state readers of --jit (jit_State,
 * traces, their exits and side traces' parents, blacklisted bytecode,
 * abort messages).  Input: a snapshot (snapfmt.h); the snapshot decoder
 * also gets the raw input as snapshots and map, with every layout. */
#include <stdint.h>
#include <string.h>

#include "luajit/discover.h"
#include "jit/jblack.h"
#include "jit/jinline.h"
#include "jit/jsnap.h"
#include "jit/jstate.h"
#include "jit/jtrace.h"
#include "jit/traceerr.h"
#include "luajit/layout.h"
#include "luajit/luaobj.h"
#include "proc/memory.h"
#include "snapfmt.h"
#include "symbolize/symbolize.h"

static struct snapshot snap;

#define MAX_TRACES	64
#define MAX_EXITS	JSNAP_MAX

/* The functions trace tr inlined without a snapshot, and their names as
 * the drain gives them (sym_trace_inlined). */
static void inlined(struct mem_reader *mem, struct symbolizer *sym, const struct lj_layout *lay,
		    uint64_t g, const struct jtrace *tr)
{
	struct jinline_fn fn[JINLINE_MAX], framed[JINLINE_MAX];
	size_t nframed = 0;
	char buf[512];
	int n = jinline_read(mem, lay, tr, fn, JINLINE_MAX, framed, JINLINE_MAX, &nframed);

	if (n > JINLINE_MAX || nframed > JINLINE_MAX)
		__builtin_trap();
	for (int i = 0; i < n; i++)
		if (fn[i].pt == tr->startpt)
			__builtin_trap();	/* the start's time is its own */
	if (sym_trace_inlined(sym, g, tr->traceno, buf, sizeof(buf)) > 0 && !buf[0])
		__builtin_trap();
}

/* What --jit reads (sample/jitwatch.c): the penalty cache, the traces,
 * prototypes found from PCs and their blacklisted bytecode. */
static void walk_jit(struct mem_reader *mem, struct symbolizer *sym, const struct lj_layout *lay,
		     uint64_t g)
{
	static struct jexit exits[MAX_TRACES][MAX_EXITS];
	struct jsnap_trace st[MAX_TRACES];
	struct jsnap_link links[MAX_TRACES];
	size_t nt = 0;
	struct jstate js;
	struct jtrace tr;
	struct jblack_ins bl[8];
	char buf[256], name[16];

	if (!jstate_supported(lay) || jstate_read(mem, lay, g, &js))
		return;
	for (int i = 0; i < JPENALTY_SLOTS; i++) {
		uint64_t pt;

		if (!js.penalty[i].pc)
			continue;
		traceerr_text(lay, js.penalty[i].reason, js.errinfo_int,
			      traceerr_bcname(lay, (unsigned)js.errinfo_int & 0xff, name,
					      sizeof(name)), buf, sizeof(buf));
		pt = jblack_proto_of(mem, lay, js.penalty[i].pc, 4096);
		if (pt) {
			jblack_scan(mem, lay, pt, bl, 8);
			sym_pc_location(sym, pt, js.penalty[i].pc, 'l', buf, sizeof(buf));
		}
	}
	sym_func_ffname(sym, js.errinfo_func, buf, sizeof(buf));
	sym_pc_location(sym, js.pt, js.pc, 'f', buf, sizeof(buf));
	for (unsigned n = 1; n < js.sizetrace && nt < MAX_TRACES; n++) {
		if (jtrace_read(mem, lay, &js, n, &tr))
			continue;
		sym_pc_location(sym, tr.startpt, tr.startpc, 'l', buf, sizeof(buf));
		st[nt] = (struct jsnap_trace){ .traceno = tr.traceno, .root = tr.root,
					       .startpc = tr.startpc, .exits = exits[nt] };
		st[nt].nexits = jsnap_read(mem, lay, &tr, exits[nt], MAX_EXITS);
		inlined(mem, sym, lay, g, &tr);
		if (st[nt].nexits < 0)
			st[nt].nexits = 0;
		nt++;
	}
	jsnap_parents(lay, st, nt, NULL, NULL, links);
	for (size_t i = 0; i < nt; i++)
		if (links[i].found == JSNAP_PARENT &&
		    (links[i].parent == st[i].traceno || !links[i].parent))
			__builtin_trap();	/* a trace is never its own parent */
}

/* The raw input as SnapShots and their map, for every layout: each exit
 * decoded lies within the map.  Then as IR constants (the first third),
 * snapshots and map for the inlined functions: each one once. */
static void parse_snaps(const uint8_t *data, size_t size)
{
	static struct jexit ex[MAX_EXITS];
	struct jinline_k k[JINLINE_MAX];
	size_t half = size / 2, third = size / 3;
	uint32_t nk = 0x8000 - (uint32_t)(third / 8 < JINLINE_KMAX ? third / 8 : JINLINE_KMAX);

	for (int l = 0; l < layout_count(); l++) {
		const struct lj_layout *lay = layout_at(l);
		size_t nsnap = lay->sizeof_snap ? half / lay->sizeof_snap : 0;
		int n = jsnap_parse(lay, data, nsnap, data + half, (size - half) / 4, ex,
				    MAX_EXITS);

		for (int i = 0; i < n; i++)
			if (ex[i].exitno >= nsnap || !ex[i].pc)
				__builtin_trap();
		nsnap = lay->sizeof_snap ? third / lay->sizeof_snap : 0;
		n = jinline_parse(lay, data, nk, data + third, nsnap, data + 2 * third,
				  (size - 2 * third) / 4, k, JINLINE_MAX);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < i; j++)
				if (k[i].fn == k[j].fn || !k[i].fn)
					__builtin_trap();
	}
}

/* Reads through a VM the way the loader does once a layout is known. */
static void walk_vm(struct mem_reader *mem, const struct lj_layout *lay, uint64_t gg, uint64_t g)
{
	struct lj_vm vm;
	struct symbolizer *sym;
	uint64_t registry = 0, tv = 0;
	char buf[64];

	memset(&vm, 0, sizeof(vm));
	vm.gg = gg;
	vm.g = g;
	vm.layout = lay;
	discover_zone_table(mem, &vm);
	if (!mem_read(mem, g + lay->g_registrytv, &registry, 8)) {
		lj_tab_getstr(mem, lay, lj_tv_gcptr(lay, registry), "_LOADED", &tv);
		lj_read_str(mem, lay, lj_tv_gcptr(lay, tv), buf, sizeof(buf));
	}
	sym = sym_new(mem, lay, NULL);
	for (int t = -1; t < 4; t++)
		sym_trace_start(sym, g, t, buf, sizeof(buf));
	walk_jit(mem, sym, lay, g);
	sym_free(sym);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct layout_probe probe;
	struct mem_reader *mem;
	uint64_t out;
	char buf[300];

	parse_snaps(data, size);
	if (snap_parse(data, size, &snap))
		return 0;
	mem = mem_open_image(snap.regions, (size_t)snap.nregions);
	if (!mem)
		return 0;
	for (int gc64 = 1; gc64 >= 0; gc64--)
		if (!layout_identify(mem, snap.gg, gc64, &probe))
			walk_vm(mem, probe.layout, snap.gg, snap.gg + probe.layout->sizeof_L);
	/* Also with the layout the input names, valid or not, so that the
	 * readers behind validation see garbage too. */
	walk_vm(mem, layout_at((snap.layout & 0x7f) % layout_count()), snap.gg, snap.g);
	/* Signature checks at every 8-byte step of the first region. */
	if (snap.nregions) {
		const struct mem_region *r = &snap.regions[0];

		for (size_t off = 0; off + 128 <= r->len && off < 4096; off += 8)
			for (int gc64 = 0; gc64 < 2; gc64++)
				layout_signature((const uint8_t *)r->data + off, r->addr + off, gc64);
	}
	mem_read_cstr(mem, snap.g, buf, sizeof(buf));
	layout_read_ref(mem, layout_at(0), snap.gg, &out);
	mem_close(mem);
	return 0;
}
