// SPDX-License-Identifier: MIT
/* dumpstack formatting rules on synthetic frames (src/lj_debug.c lj_debug_dumpstack). */
#include "model/frame_fmt.h"
#include "base/unit.h"

static const char *dump(const struct frame_sym *const *fr, uint32_t n,
			const char *fmt, int depth)
{
	static struct strbuf sb;

	sb_reset(&sb);
	stack_dump(&sb, fr, n, fmt, depth);
	return sb_str(&sb);
}

int main(void)
{
	struct frame_sym leaf = { .kind = SYM_LUA, .name = "work",
				  .chunk = "@/tmp/dir/t.lua", .firstline = 1, .line = 2 };
	struct frame_sym mid = { .kind = SYM_LUA, .name = "outer",
				 .chunk = "@/tmp/dir/t.lua", .firstline = 5, .line = 6 };
	struct frame_sym main_chunk = { .kind = SYM_LUA, .name = NULL,
					.chunk = "@t.lua", .firstline = 0, .line = 9 };
	struct frame_sym cbot = { .kind = SYM_C, .cfunc = 0x55b303d132c0ull };
	struct frame_sym ff = { .kind = SYM_FF, .name = NULL, .ffid = 93,
				.ffname = "table.sort" };
	struct frame_sym ffnamed = { .kind = SYM_FF, .name = "rep", .ffid = 80,
				     .ffname = "string.rep" };
	struct frame_sym str = { .kind = SYM_LUA, .chunk = "return 1",
				 .firstline = 3, .line = 4 };
	struct frame_sym builtin = { .kind = SYM_LUA, .chunk = "foreach",
				     .firstline = -1, .line = -1 };
	const struct frame_sym *st[] = { &leaf, &mid, &main_chunk, &cbot };
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR("f depth 1", dump(st, 4, "f", 1), "work");
	CHECK_STR("F depth 1", dump(st, 4, "F", 1), "t.lua:work");
	CHECK_STR("l depth 1", dump(st, 4, "l", 1), "t.lua:2");
	CHECK_STR("pl keeps path", dump(st, 4, "pl", 1), "/tmp/dir/t.lua:2");
	CHECK_STR("fZ < depth 2", dump(st, 4, "fZ < ", 2), "work < outer");
	CHECK_STR("fZ > depth -2", dump(st, 4, "fZ > ", -2), "outer > work");
	CHECK_STR("G style", dump(st, 4, "fZ;", -100),
		  "@0x55b303d132c0;t.lua:0;outer;work");
	CHECK_STR("depth beyond bottom", dump(st, 2, "fZ;", 5), "work;outer");
	CHECK_STR("no frames", dump(st, 0, "f", 1), "");

	sb_reset(&sb);
	frame_put(&sb, &ff, 'f', true);
	CHECK_STR("unnamed fast function uses vmdef", sb_str(&sb), "table.sort");
	sb_reset(&sb);
	frame_put(&sb, &ffnamed, 'F', true);
	CHECK_STR("F on a fast function: its own name, not the call site's", sb_str(&sb),
		  "string.rep");
	sb_reset(&sb);
	frame_put(&sb, &str, 'l', true);
	CHECK_STR("string chunk", sb_str(&sb), "[string]:4");
	sb_reset(&sb);
	frame_put(&sb, &builtin, 'f', true);
	CHECK_STR("builtin bytecode has no line", sb_str(&sb), "[builtin:foreach]");
	sb_reset(&sb);
	put_pointer(&sb, 0x1234);
	CHECK_STR("short pointer pads to 8", sb_str(&sb), "0x00001234");
	sb_reset(&sb);
	put_pointer(&sb, 0x7f0000001234ull);
	CHECK_STR("48-bit pointer has 12 digits", sb_str(&sb), "0x7f0000001234");
	sb_free(&sb);
	UNIT_EXIT();
}
