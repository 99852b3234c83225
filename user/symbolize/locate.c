// SPDX-License-Identifier: MIT
/* Where things are, as text for reports that are not stacks (--jit): a
 * PC's function and line, a fast function's name, a trace's start. */
#include "symbolize/symbolize.h"

#include <stdio.h>

#include "base/strbuf.h"
#include "model/frame_fmt.h"
#include "symbolize/symbolizer_int.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "luajit/vmdef.h"

int sym_pc_location(struct symbolizer *s, uint64_t pt, uint64_t pc, char fmt, char *buf,
		    size_t len)
{
	struct proto_entry *e = proto_get(s, pt, 0);
	struct frame_sym f = { .kind = SYM_LUA };
	struct strbuf sb = STRBUF_INIT;

	if (!e)
		return -1;
	f.chunk = e->chunk;
	f.firstline = e->firstline;
	/* pc points at the instruction itself, not after it. */
	f.line = line_at(s, e, pc_pos(s, e, pc + 4));
	frame_put(&sb, &f, fmt, true);
	snprintf(buf, len, "%s", sb_str(&sb));
	sb_free(&sb);
	return 0;
}

int sym_func_ffname(struct symbolizer *s, uint64_t fn, char *buf, size_t len)
{
	uint8_t ffid = 0;
	const char *name;

	if (!fn || mem_read(s->mem, fn + s->lay->fn_ffid, &ffid, 1) || ffid <= 1)
		return -1;
	name = vmdef_ffname(s->vd, ffid);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "[builtin#%u]", ffid);
	return 0;
}

int sym_trace_start(struct symbolizer *s, uint64_t g, int traceno, char *buf, size_t len)
{
	const struct lj_layout *lay = s->lay;
	uint64_t traces = 0, T = 0, pt = 0, startpc = 0;
	uint32_t sizetrace = 0;

	if (traceno <= 0 || mem_read(s->mem, g + lay->g_trace, &traces, 8) ||
	    mem_read(s->mem, g + lay->g_sizetrace, &sizetrace, 4) || (uint32_t)traceno >= sizetrace ||
	    layout_read_ref(s->mem, lay, traces + (uint64_t)traceno * (lay->gc64 ? 8 : 4), &T) || !T ||
	    layout_read_ref(s->mem, lay, T + lay->tr_startpt, &pt) ||
	    layout_read_ref(s->mem, lay, T + lay->tr_startpc, &startpc))
		return -1;
	return sym_pc_location(s, pt, startpc, 'l', buf, len);
}
