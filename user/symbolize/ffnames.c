// SPDX-License-Identifier: MIT
/* Fast-function names built in, per family: ffid -> "lib.name" as
 * jit/vmdef.lua would give them, for targets without that file (the normal
 * case for nginx's Lua module).  The ids are the order of the LJLIB_CF,
 * LJLIB_ASM and LJLIB_ASM_ definitions in src/lib_*.c (src/host/buildvm_lib.c
 * numbers them that way); OpenResty's luajit2 adds its own functions, so its
 * ids differ from upstream's after the first few.
 *
 * The list was made with ffnames_gen.py from the upstream 2.1 (2026-08) and
 * OpenResty (2024-03) sources, each with and without the JIT (a build
 * without it has no jit.util.* functions, and the ids after them move
 * down); test_ffnames
 * checks them against jit/vmdef.lua of the builds in .deps/ when present.
 * Upstream builds from 2.1.0-beta3 onwards share the upstream tables. */
#include "symbolize/ffnames.h"

#include <stdbool.h>
#include <stddef.h>

#include "luajit/layout.h"

/* Every fast function in id order, as one list (like LuaJIT's own BCDEF):
 * FF_OR only in OpenResty's luajit2, FF_JIT only in builds with the JIT.
 * A family's table is this list without the rows its build lacks. */
#define FF_OR	1
#define FF_JIT	2

#define FFDEF(_) \
	_("Lua", 0) _("C", 0) _("assert", 0) _("type", 0) _("next", 0) _("pairs", 0) \
	_("ipairs_aux", 0) _("ipairs", 0) _("getmetatable", 0) _("setmetatable", 0) \
	_("getfenv", 0) _("setfenv", 0) _("rawget", 0) _("rawset", 0) _("rawequal", 0) \
	_("unpack", 0) _("select", 0) _("tonumber", 0) _("tostring", 0) _("error", 0) \
	_("pcall", 0) _("xpcall", 0) _("loadfile", 0) _("load", 0) _("loadstring", 0) \
	_("dofile", 0) _("gcinfo", 0) _("collectgarbage", 0) _("newproxy", 0) \
	_("print", 0) _("coroutine.status", 0) _("coroutine.running", 0) \
	_("coroutine.isyieldable", 0) _("coroutine.create", 0) _("coroutine.yield", 0) \
	_("coroutine.resume", 0) _("coroutine.wrap_aux", 0) _("coroutine.wrap", 0) \
	_("thread.exdata", FF_OR) _("thread.exdata2", FF_OR) _("math.abs", 0) \
	_("math.floor", 0) _("math.ceil", 0) _("math.sqrt", 0) _("math.log10", 0) \
	_("math.exp", 0) _("math.sin", 0) _("math.cos", 0) _("math.tan", 0) \
	_("math.asin", 0) _("math.acos", 0) _("math.atan", 0) _("math.sinh", 0) \
	_("math.cosh", 0) _("math.tanh", 0) _("math.frexp", 0) _("math.modf", 0) \
	_("math.log", 0) _("math.atan2", 0) _("math.pow", 0) _("math.fmod", 0) \
	_("math.ldexp", 0) _("math.min", 0) _("math.max", 0) _("math.random", 0) \
	_("math.randomseed", 0) _("bit.tobit", 0) _("bit.bnot", 0) _("bit.bswap", 0) \
	_("bit.lshift", 0) _("bit.rshift", 0) _("bit.arshift", 0) _("bit.rol", 0) \
	_("bit.ror", 0) _("bit.band", 0) _("bit.bor", 0) _("bit.bxor", 0) \
	_("bit.tohex", 0) _("string.byte", 0) _("string.char", 0) _("string.sub", 0) \
	_("string.rep", 0) _("string.reverse", 0) _("string.lower", 0) \
	_("string.upper", 0) _("string.dump", 0) _("string.find", 0) \
	_("string.match", 0) _("string.gmatch_aux", 0) _("string.gmatch", 0) \
	_("string.gsub", 0) _("string.format", 0) _("table.maxn", 0) \
	_("table.insert", 0) _("table.concat", 0) _("table.clone", FF_OR) \
	_("table.isarray", FF_OR) _("table.nkeys", FF_OR) _("table.isempty", FF_OR) \
	_("table.sort", 0) _("table.new", 0) _("table.clear", 0) _("io.method.close", 0) \
	_("io.method.read", 0) _("io.method.write", 0) _("io.method.flush", 0) \
	_("io.method.seek", 0) _("io.method.setvbuf", 0) _("io.method.lines", 0) \
	_("io.method.__gc", 0) _("io.method.__tostring", 0) _("io.open", 0) \
	_("io.popen", 0) _("io.tmpfile", 0) _("io.close", 0) _("io.read", 0) \
	_("io.write", 0) _("io.flush", 0) _("io.input", 0) _("io.output", 0) \
	_("io.lines", 0) _("io.type", 0) _("os.execute", 0) _("os.remove", 0) \
	_("os.rename", 0) _("os.tmpname", 0) _("os.getenv", 0) _("os.exit", 0) \
	_("os.clock", 0) _("os.date", 0) _("os.time", 0) _("os.difftime", 0) \
	_("os.setlocale", 0) _("debug.getregistry", 0) _("debug.getmetatable", 0) \
	_("debug.setmetatable", 0) _("debug.getfenv", 0) _("debug.setfenv", 0) \
	_("debug.getinfo", 0) _("debug.getlocal", 0) _("debug.setlocal", 0) \
	_("debug.getupvalue", 0) _("debug.setupvalue", 0) _("debug.upvalueid", 0) \
	_("debug.upvaluejoin", 0) _("debug.sethook", 0) _("debug.gethook", 0) \
	_("debug.debug", 0) _("debug.traceback", 0) _("jit.on", 0) _("jit.off", 0) \
	_("jit.flush", 0) _("jit.status", 0) _("jit.security", 0) _("jit.attach", 0) \
	_("jit.prngstate", FF_OR) _("jit.util.funcinfo", 0) _("jit.util.funcbc", 0) \
	_("jit.util.funck", 0) _("jit.util.funcuvname", 0) \
	_("jit.util.traceinfo", FF_JIT) _("jit.util.traceir", FF_JIT) \
	_("jit.util.tracek", FF_JIT) _("jit.util.tracesnap", FF_JIT) \
	_("jit.util.tracemc", FF_JIT) _("jit.util.traceexitstub", FF_JIT) \
	_("jit.util.ircalladdr", FF_JIT) _("jit.opt.start", FF_JIT) \
	_("jit.profile.start", 0) _("jit.profile.stop", 0) _("jit.profile.dumpstack", 0) \
	_("ffi.meta.__index", 0) _("ffi.meta.__newindex", 0) _("ffi.meta.__eq", 0) \
	_("ffi.meta.__len", 0) _("ffi.meta.__lt", 0) _("ffi.meta.__le", 0) \
	_("ffi.meta.__concat", 0) _("ffi.meta.__call", 0) _("ffi.meta.__add", 0) \
	_("ffi.meta.__sub", 0) _("ffi.meta.__mul", 0) _("ffi.meta.__div", 0) \
	_("ffi.meta.__mod", 0) _("ffi.meta.__pow", 0) _("ffi.meta.__unm", 0) \
	_("ffi.meta.__tostring", 0) _("ffi.meta.__pairs", 0) _("ffi.meta.__ipairs", 0) \
	_("ffi.clib.__index", 0) _("ffi.clib.__newindex", 0) _("ffi.clib.__gc", 0) \
	_("ffi.callback.free", 0) _("ffi.callback.set", 0) _("ffi.cdef", 0) \
	_("ffi.new", 0) _("ffi.cast", 0) _("ffi.typeof", 0) _("ffi.typeinfo", 0) \
	_("ffi.istype", 0) _("ffi.sizeof", 0) _("ffi.alignof", 0) _("ffi.offsetof", 0) \
	_("ffi.errno", 0) _("ffi.string", 0) _("ffi.copy", 0) _("ffi.fill", 0) \
	_("ffi.abi", 0) _("ffi.metatype", 0) _("ffi.gc", 0) _("ffi.load", 0) \
	_("buffer.method.free", 0) _("buffer.method.reset", 0) \
	_("buffer.method.skip", 0) _("buffer.method.set", 0) _("buffer.method.put", 0) \
	_("buffer.method.putf", 0) _("buffer.method.get", 0) \
	_("buffer.method.putcdata", 0) _("buffer.method.reserve", 0) \
	_("buffer.method.commit", 0) _("buffer.method.ref", 0) \
	_("buffer.method.encode", 0) _("buffer.method.decode", 0) \
	_("buffer.method.__gc", 0) _("buffer.method.__tostring", 0) \
	_("buffer.method.__len", 0) _("buffer.new", 0) _("buffer.encode", 0) \
	_("buffer.decode", 0)

static const struct {
	const char *name;
	unsigned flags;
} ffdef[] = {
#define FFROW(name, flags) { name, flags },
	FFDEF(FFROW)
#undef FFROW
};

#define NFFDEF ((int)(sizeof(ffdef) / sizeof(ffdef[0])))

/* The four tables, built from ffdef on first use. */
static const char *tables[FFT_N][NFFDEF];
static int ntables[FFT_N];

static void build_tables(void)
{
	static const struct { bool openresty, jit; } want[FFT_N] = {
		[FFT_UPSTREAM] = { false, true }, [FFT_UPSTREAM_NOJIT] = { false, false },
		[FFT_OPENRESTY] = { true, true }, [FFT_OPENRESTY_NOJIT] = { true, false },
	};

	if (ntables[0])
		return;
	for (int t = 0; t < FFT_N; t++)
		for (int i = 0; i < NFFDEF; i++)
			if ((want[t].openresty || !(ffdef[i].flags & FF_OR)) &&
			    (want[t].jit || !(ffdef[i].flags & FF_JIT)))
				tables[t][ntables[t]++] = ffdef[i].name;
}

const char *ffnames_table(enum fft_table t, int ffid)
{
	/* 0 and 1 are Lua and C functions, not fast functions. */
	build_tables();
	return t >= 0 && t < FFT_N && ffid >= 2 && ffid < ntables[t] ? tables[t][ffid] : NULL;
}

int ffnames_table_count(enum fft_table t)
{
	build_tables();
	return t >= 0 && t < FFT_N ? ntables[t] : 0;
}

enum fft_table ffnames_default(const struct lj_layout *lay)
{
	return lay && lay->openresty ? FFT_OPENRESTY : FFT_UPSTREAM;
}

enum fft_table ffnames_nojit(enum fft_table t)
{
	return t == FFT_OPENRESTY ? FFT_OPENRESTY_NOJIT : FFT_UPSTREAM_NOJIT;
}
