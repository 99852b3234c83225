// SPDX-License-Identifier: MIT
/* The symbolizer names frames by LuaJIT's f/F/l rules: call-site names,
 * chunk names, fast functions and trace starts (test_symbolize_image.h
 * builds the memory). */
#include "symbolize/test_symbolize_image.h"

/* Lines of the small callers below: one per instruction. */
static const uint8_t li[] = { 1, 2, 3, 4, 5, 6, 7 };

/* Names from the caller's variables and constants; returns the caller of
 * the first case, a global call at line 3. */
static uint64_t names_from_slots(void)
{
	/* global: GGET 0 "gfunc"; CALL 0 */
	static const uint32_t g_bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_GGET, 0, 0),
					 INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
	static const char *const g_k[] = { "gfunc" };
	struct pspec g = { .chunk = "@/tmp/dir/t.lua", .firstline = 1, .numline = 20,
			   .bc = g_bc, .sizebc = 4, .kstr = g_k, .nk = 1, .lineinfo = li };
	uint64_t pg = mkproto(&g);

	call_from(pg, 2);
	CHECK_STR("global: f", put_frame(&out[0], 'f'), "gfunc");
	CHECK_STR("global: F", put_frame(&out[0], 'F'), "t.lua:gfunc");
	CHECK_STR("global: l (callee's current line)", put_frame(&out[0], 'l'), "t.lua:11");
	CHECK_STR("bottom frame: f falls back to chunk:firstline", put_frame(&out[1], 'f'),
		  "t.lua:1");
	CHECK_STR("bottom frame: l is the call site's line", put_frame(&out[1], 'l'), "t.lua:3");
	CHECK("the chunk is kept as stored", out[0].chunk && !strcmp(out[0].chunk, "@/tmp/dir/t.lua"));

	/* local: FNEW 0; CALL 0, slot 0 is the local "myloc" over 1..5. */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_FNEW, 0, 0),
					       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
		static const uint8_t vi[] = { 'm', 'y', 'l', 'o', 'c', 0, 1, 5, 0 };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 4, .lineinfo = li, .varinfo = vi,
				   .varinfo_len = sizeof(vi) };

		call_from(mkproto(&p), 2);
		CHECK_STR("local: f", put_frame(&out[0], 'f'), "myloc");
		CHECK_STR("local: F", put_frame(&out[0], 'F'), "t.lua:myloc");
	}
	/* method: MOV 2 1; TGETS 0 1 "meth"; CALL 0 (obj:meth()). */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 3, 0), INS_AD(OP_MOV, 2, 1),
					       INS_ABC(OP_TGETS, 0, 1, 0), INS_ABC(OP_CALL, 0, 1, 2),
					       INS_AD(OP_RET0, 0, 1) };
		static const char *const k[] = { "meth" };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 5, .kstr = k, .nk = 1, .lineinfo = li };

		call_from(mkproto(&p), 3);
		CHECK_STR("method: f", put_frame(&out[0], 'f'), "meth");
	}
	/* field: GGET 0 "tbl"; TGETS 0 0 "fld"; CALL 0 (tbl.fld()). */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_GGET, 0, 1),
					       INS_ABC(OP_TGETS, 0, 0, 0), INS_ABC(OP_CALL, 0, 1, 1),
					       INS_AD(OP_RET0, 0, 1) };
		static const char *const k[] = { "fld", "tbl" };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 5, .kstr = k, .nk = 2, .lineinfo = li };

		call_from(mkproto(&p), 3);
		CHECK_STR("field: f", put_frame(&out[0], 'f'), "fld");
	}
	/* upvalue: UGET 0 1; CALL 0 with upvalues "u0", "uvfunc". */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_UGET, 0, 1),
					       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
		static const char uv[] = "u0\0uvfunc";
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 4, .lineinfo = li, .uvinfo = uv,
				   .uvinfo_len = sizeof(uv), .sizeuv = 2 };

		call_from(mkproto(&p), 2);
		CHECK_STR("upvalue: f", put_frame(&out[0], 'f'), "uvfunc");
	}
	return pg;
}

/* Metamethods, generic for, and the cases with no name to derive. */
static void names_other(uint64_t pg)
{
	/* metamethods: called from TGETS (__index), ADDVV (__add), CAT. */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 3, 0), INS_ABC(OP_TGETS, 0, 1, 0),
					       INS_ABC(OP_ADDVV, 0, 1, 2), INS_ABC(OP_CAT, 0, 1, 2),
					       INS_AD(OP_RET0, 0, 1) };
		static const char *const k[] = { "key" };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 5, .kstr = k, .nk = 1, .lineinfo = li };
		uint64_t pt = mkproto(&p);

		call_from(pt, 1);
		CHECK_STR("metamethod __index: f", put_frame(&out[0], 'f'), "__index");
		CHECK_STR("metamethod __index: F", put_frame(&out[0], 'F'), "t.lua:__index");
		call_from(pt, 2);
		CHECK_STR("metamethod __add: f", put_frame(&out[0], 'f'), "__add");
		call_from(pt, 3);
		CHECK_STR("metamethod __concat: f", put_frame(&out[0], 'f'), "__concat");
	}
	/* generic for: ITERC 3 with (for generator/state/control) in 0..2. */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 6, 0), INS_AD(OP_KPRI, 0, 0),
					       INS_ABC(OP_ITERC, 3, 3, 3), INS_AD(OP_RET0, 0, 1) };
		static const uint8_t vi[] = { 4, 1, 5, 5, 0, 5, 6, 0, 5, 0 };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 4, .lineinfo = li, .varinfo = vi,
				   .varinfo_len = sizeof(vi) };

		call_from(mkproto(&p), 2);
		CHECK_STR("(for generator): f", put_frame(&out[0], 'f'), "(for generator)");
		CHECK_STR("(for generator): F", put_frame(&out[0], 'F'), "t.lua:(for generator)");
	}
	/* No derivable name: the slot came from KPRI. */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_KPRI, 0, 0),
					       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 4, .lineinfo = li };

		call_from(mkproto(&p), 2);
		CHECK_STR("no name from the call site: f falls back to chunk:firstline",
			  put_frame(&out[0], 'f'), "t.lua:10");
		CHECK_STR("no name from the call site: F", put_frame(&out[0], 'F'), "t.lua:10");
		CHECK("no name: name is NULL", out[0].name == NULL);
	}
	/* Called from C (pcall, sort ...): no name, chunk:firstline. */
	{
		struct lua_frame fr[2] = { lua_at(callee, 1), c_frame(0x55b303d132c0ull) };

		run(fr, 2);
		CHECK_STR("called from C: f is chunk:firstline", put_frame(&out[0], 'f'),
			  "t.lua:10");
		CHECK_STR("C function: @0x...", put_frame(&out[1], 'f'), "@0x55b303d132c0");
	}
	/* The caller's PC is unknown (0): no name. */
	call_from(pg, -1);
	CHECK_STR("caller PC unknown: fallback", put_frame(&out[0], 'f'), "t.lua:10");
	/* A caller PC outside its bytecode: no name, and l of that frame
	 * prints the first line. */
	{
		struct lua_frame fr[2] = { lua_at(callee, 1), lua_at(pg, 500) };

		run(fr, 2);
		CHECK_STR("caller PC out of range: fallback", put_frame(&out[0], 'f'), "t.lua:10");
		CHECK_STR("PC out of range: l is firstline", put_frame(&out[1], 'l'), "t.lua:1");
		CHECK("PC out of range: line unknown", out[1].line == -1);
	}
	/* Misaligned PC. */
	{
		struct lua_frame fr[1] = { lua_at(callee, 1) };

		fr[0].pc_off += 2;
		run(fr, 1);
		CHECK("misaligned PC: line unknown", out[0].line == -1);
	}
}

static void chunks(void)
{
	static const uint8_t li[] = { 1, 2 };
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_KPRI, 0, 0),
				       INS_AD(OP_RET0, 0, 1) };
	struct pspec p = { .firstline = 5, .numline = 2, .bc = bc, .sizebc = 3, .lineinfo = li };
	struct lua_frame fr[1];
	static char big[10 * 1024 + 2];

	p.chunk = "local x = 1\nreturn x";
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("[string]: f", put_frame(&out[0], 'f'), "[string]:5");
	CHECK_STR("[string]: l", put_frame(&out[0], 'l'), "[string]:6");

	p.chunk = "=stdin";
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("=name chunk", put_frame(&out[0], 'l'), "stdin:6");

	p.chunk = "@main.lua";
	p.firstline = 0;
	fr[0] = lua_at(mkproto(&p), 0);
	run(fr, 1);
	CHECK_STR("main chunk: f", put_frame(&out[0], 'f'), "main.lua:0");
	CHECK_STR("main chunk: l at the header", put_frame(&out[0], 'l'), "main.lua:0");

	/* Builtin bytecode: firstline -1, the chunk is the function name. */
	p.chunk = "foreach";
	p.firstline = -1;
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("builtin bytecode: f", put_frame(&out[0], 'f'), "[builtin:foreach]");
	CHECK_STR("builtin bytecode: l", put_frame(&out[0], 'l'), "[builtin:foreach]");

	/* Stripped bytecode: no lineinfo, varinfo or uvinfo. */
	p.chunk = "=stripped";
	p.firstline = 0;
	p.lineinfo = NULL;
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("stripped bytecode: line 0", put_frame(&out[0], 'l'), "stripped:0");
	CHECK("stripped bytecode: line is 0", out[0].line == 0);

	/* 4-byte lineinfo (numline >= 65536) with garbage that would push
	 * firstline + delta past INT_MAX: unknown, not a wrapped number
	 * (found by fuzz_symbolize). */
	{
		static const uint8_t li4[] = { 0x38, 0x4e, 0xed, 0x43, 0, 0, 0, 0 };
		struct pspec q = { .chunk = "@big.lua", .firstline = 1903260017, .numline = 70000,
				   .bc = bc, .sizebc = 3, .lineinfo = li4 };

		fr[0] = lua_at(mkproto(&q), 1);
		run(fr, 1);
		CHECK("line past INT_MAX: unknown", out[0].kind == SYM_LUA && out[0].line == -1);
		q.firstline = 5;
		fr[0] = lua_at(mkproto(&q), 2);	/* pos == sizebc - 1: delta 0 */
		run(fr, 1);
		CHECK("4-byte lineinfo read", out[0].line == 5);
	}

	/* Names with bytes that every exporter must escape come through as
	 * stored: escaping is the exporters' job. */
	p.chunk = "@odd;name\n<a>&\xff\xfe.lua";
	p.firstline = 7;
	p.lineinfo = li;
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("odd bytes kept as stored", put_frame(&out[0], 'l'), "odd;name\n<a>&\xff\xfe.lua:8");

	/* A 10 KB chunk name. */
	big[0] = '@';
	memset(big + 1, 'x', sizeof(big) - 2);
	p.chunk = big;
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK("10 KB chunk name kept whole",
	      out[0].chunk && strlen(out[0].chunk) == sizeof(big) - 1 &&
	      strlen(put_frame(&out[0], 'l')) == sizeof(big) - 2 + 2);
}

static void builtins(void)
{
	static char *names[100];
	struct vmdef vd = { .ffnames = names, .nff = 100 };
	struct lua_frame fr[2] = { ff_frame(93), lua_at(callee, 1) };
	struct mem_reader *m = mem_open_image(regions, 2);
	struct symbolizer *with_vd = sym_new(m, lay, &vd);

	for (int i = 0; i < 100; i++)
		names[i] = NULL;
	names[93] = "table.sort";
	run(fr, 1);
	CHECK_STR("fast function without vmdef: the built-in table's name",
		  put_frame(&out[0], 'f'), "table.sort");
	sym_next_epoch(with_vd);
	sym_stack(with_vd, fr, 1, out);
	CHECK_STR("fast function with vmdef: its name", put_frame(&out[0], 'f'), "table.sort");
	fr[0] = ff_frame(150);
	sym_stack(with_vd, fr, 1, out);
	CHECK_STR("fast function beyond vmdef's table: the built-in table's name",
		  put_frame(&out[0], 'f'), "jit.util.funcbc");
	fr[0] = ff_frame(250);
	sym_stack(with_vd, fr, 1, out);
	CHECK_STR("fast function beyond every table: [builtin#250]", put_frame(&out[0], 'f'),
		  "[builtin#250]");
	sym_free(with_vd);
	mem_close(m);
}

/* Where a trace starts: g->J.trace[n]->startpt/startpc. */
static void traces(void)
{
	uint64_t g = alloc(2048), traces = alloc(8 * 4), T = alloc(128);
	char buf[64];

	put(g + lay->g_trace, traces, 8);
	put(g + lay->g_sizetrace, 4, 4);
	put(traces + 8 * 2, T, 8);
	put(T + lay->tr_startpt, callee, 8);
	put(T + lay->tr_startpc, callee + lay->sizeof_proto + 4 * 2, 8);
	CHECK("trace 2 starts at callee:13",
	      !sym_trace_start(sym, g, 2, buf, sizeof(buf)) && !strcmp(buf, "t.lua:13"));
	CHECK("trace 1: free slot", sym_trace_start(sym, g, 1, buf, sizeof(buf)) == -1);
	CHECK("trace 4: beyond sizetrace", sym_trace_start(sym, g, 4, buf, sizeof(buf)) == -1);
	CHECK("trace 0 and negative: none", sym_trace_start(sym, g, 0, buf, sizeof(buf)) == -1 &&
	      sym_trace_start(sym, g, -3, buf, sizeof(buf)) == -1);
	put(traces + 8 * 3, T + 8, 8);	/* points at no trace: startpt is garbage */
	CHECK("trace with a garbage start proto: none",
	      sym_trace_start(sym, g, 3, buf, sizeof(buf)) == -1);
}

int main(void)
{
	struct mem_reader *m = image_setup();

	names_other(names_from_slots());
	chunks();
	builtins();
	traces();
	image_teardown(m);
	UNIT_EXIT();
}
