// SPDX-License-Identifier: MIT
/* libFuzzer target: the user-space half of a sample's life on a memory
 * image.  Walked frames (kind in the top byte, prototype, C function or
 * fast-function id) are decoded and symbolized against whatever the image
 * holds, interned into a profile, and rendered by every exporter and view.
 * Input: a snapshot (snapfmt.h); the seed corpus holds real ones. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/export.h"
#include "report/jpmode.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "model/profile.h"
#include "snapfmt.h"
#include "symbolize/symbolize.h"
#include "report/inlined_notes.h"
#include "report/view_jitp.h"
#include "report/view_tree.h"
#include "luajit/vmdef.h"

static char *ff_names[128];
static struct vmdef vd = { .ffnames = ff_names, .nff = 128 };
static FILE *sink;
static struct snapshot snap;
static struct frame_sym scratch[LBP_MAX_FRAMES];
static const struct frame_sym *interned[LBP_MAX_FRAMES];

static void setup(void)
{
	for (int i = 0; i < 128; i++)
		ff_names[i] = NULL;
	ff_names[20] = "pcall";
	ff_names[93] = "table.sort";
	ff_names[127] = "a;b\n<c>&\xff";
	sink = fopen("/dev/null", "w");
}

static void add_stack(struct symbolizer *sym, struct profile *p, const struct snap_stack *st,
		      int i)
{
	struct sample s = { .pid = 1 + (uint32_t)(i & 1), .tid = 100 + (uint32_t)i,
			    .vmstate = st->vmstate, .count = 1 + (uint64_t)i };
	char trace[256], inlined[512];

	sym_stack(sym, st->frames, st->nframes, scratch);
	for (uint32_t f = 0; f < st->nframes; f++)
		interned[f] = profile_frame(p, &scratch[f]);
	s.frames = interned;
	s.nframes = st->nframes;
	if (i & 2)
		s.flags |= PSAMPLE_TRUNCATED;
	if (st->vmstate > 0 &&
	    !sym_trace_start(sym, snap.g, st->vmstate, trace, sizeof(trace)))
		s.trace_start = trace;
	/* The trace's functions inlined without a snapshot, else a list
	 * with every character the exporters escape. */
	if (st->vmstate > 0 && sym_trace_inlined(sym, snap.g, st->vmstate, inlined,
						 sizeof(inlined)) > 0)
		s.inlined = inlined;
	else if (st->vmstate > 0 && (i & 8))
		s.inlined = "a.lua:f, [string]:<b>&;\n\xff";
	if (i & 4)
		s.zone = "zone;<&>";
	profile_add(p, &s);
}

static void render(const struct profile *p, bool odd)
{
	static const char *const modes[] = { "F", "fl", "l", "Fp2", "f-3", "vF", "zf", "G", "s" };
	struct export_opts eo = { .scope = odd ? 'l' : 'F', .pathstrip = odd,
				  .vmstate_frames = odd, .zone_frames = !odd, .icicle = odd,
				  .title = "fuzz" };
	struct view_tree_opts to;
	struct jp_mode jp;
	char err[128];

	export_folded(sink, p, &eo);
	export_svg(sink, p, &eo);
	inlined_notes_write(sink, p, "note: ");
	export_speedscope(sink, p, &eo);
	export_pprof(sink, p, &eo);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		if (!jp_mode_parse(modes[m], &jp, err, sizeof(err)))
			view_jitp_write(sink, p, &jp);
	view_tree_opts_init(&to);
	to.max_depth = odd ? 3 : 0;
	view_tree_write(sink, p, &to);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct lj_layout *lay;
	struct mem_reader *mem;
	struct symbolizer *sym;
	struct profile *p;

	if (!sink)
		setup();
	if (snap_parse(data, size, &snap))
		return 0;
	lay = layout_at((snap.layout & 0x7f) % layout_count());
	mem = mem_open_image(snap.regions, (size_t)snap.nregions);
	sym = sym_new(mem, lay, snap.layout & 0x80 ? &vd : NULL);
	p = profile_new(99);
	if (!mem || !sym || !p)
		goto cleanup;
	profile_set_comm(p, 1, "fuzz");
	profile_set_comm(p, 2, "a;b\n<c>&\xff");
	for (int i = 0; i < snap.nstacks; i++) {
		/* A new drain now and then: cached prototypes are revalidated. */
		if (i % 4 == 3)
			sym_next_epoch(sym);
		add_stack(sym, p, &snap.stacks[i], i);
	}
	/* Again, after the cache saw them all. */
	sym_next_epoch(sym);
	for (int i = 0; i < snap.nstacks && i < 4; i++)
		add_stack(sym, p, &snap.stacks[i], i);
	/* Idle for long enough that the cache sweeps what was not used. */
	for (int i = 0; i < 70; i++) {
		sym_next_epoch(sym);
		if (i == 40 && snap.nstacks)
			add_stack(sym, p, &snap.stacks[0], 0);
	}
	for (int i = 0; i < snap.nstacks && i < 2; i++)
		add_stack(sym, p, &snap.stacks[i], i);
	p->duration_ns = 1000000000ull;
	render(p, size & 1);
cleanup:
	profile_free(p);
	sym_free(sym);
	mem_close(mem);
	return 0;
}
