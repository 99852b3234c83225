// SPDX-License-Identifier: MIT
/* Frame and stack formatting after lj_debug_dumpstack (src/lj_debug.c; docs/luajit-internals.md, "jit.p's rules"). */
#include "model/frame_fmt.h"

#include <string.h>

void put_pointer(struct strbuf *sb, uint64_t p)
{
	uint32_t hi = (uint32_t)(p >> 32);
	int digits = 8;

	if (!p) {
		sb_puts(sb, "NULL");
		return;
	}
	if (hi) {
		int fls = 31 - __builtin_clz(hi);

		digits += 2 + 2 * (fls >> 3);
	}
	sb_printf(sb, "0x%0*llx", digits, (unsigned long long)p);
}

/* debug_putchunkname: returns false for builtin bytecode, which has no line. */
static bool put_chunkname(struct strbuf *sb, const struct frame_sym *f, bool pathstrip)
{
	const char *name = f->chunk ? f->chunk : "?";

	if (f->firstline == -1) {
		sb_puts(sb, "[builtin:");
		sb_puts(sb, name);
		sb_putc(sb, ']');
		return false;
	}
	if (*name == '=' || *name == '@') {
		size_t len = strlen(name + 1);
		const char *start = name + 1;

		if (pathstrip) {
			for (size_t i = len; i > 0; i--) {
				char c = start[i - 1];

				if (c == '/' || c == '\\') {
					start += i;
					break;
				}
			}
		}
		sb_puts(sb, start);
	} else {
		sb_puts(sb, "[string]");
	}
	return true;
}

/* C and fast functions with a name of their own print it in every scope,
 * never the call site's: one function, one key. */
static bool has_own_name(const struct frame_sym *f)
{
	return ((f->kind == SYM_C || f->kind == SYM_NATIVE) && f->cname) ||
	       (f->kind == SYM_FF && f->ffname);
}

void frame_put(struct strbuf *sb, const struct frame_sym *f, char c, bool pathstrip)
{
	if ((c == 'f' || c == 'F') && f->name && f->kind != SYM_UNKNOWN &&
	    f->kind != SYM_STATE && !has_own_name(f)) {
		if (c == 'F' && f->kind == SYM_LUA && f->firstline != -1) {
			put_chunkname(sb, f, pathstrip);
			sb_putc(sb, ':');
		}
		sb_puts(sb, f->name);
		return;
	}
	switch (f->kind) {
	case SYM_LUA:
		if (put_chunkname(sb, f, pathstrip)) {
			int line = c == 'l' && f->line >= 0 ? f->line : f->firstline;

			sb_printf(sb, ":%d", line);
		}
		break;
	case SYM_FF:
		if (f->ffname)
			sb_puts(sb, f->ffname);
		else
			sb_printf(sb, "[builtin#%d]", f->ffid);
		break;
	case SYM_C:
	case SYM_NATIVE:
		if (f->cname) {
			sb_puts(sb, f->cname);
			break;
		}
		sb_putc(sb, '@');
		put_pointer(sb, f->cfunc);
		break;
	case SYM_HOST:
		sb_puts(sb, "[host]");
		break;
	case SYM_STATE:
		sb_putc(sb, '[');
		sb_puts(sb, f->name ? f->name : "state");
		sb_putc(sb, ']');
		break;
	case SYM_UNKNOWN:
		/* The name is the cause: "bad frame", "read fault" ... */
		sb_puts(sb, "[unknown: ");
		sb_puts(sb, f->name ? f->name : "unresolved");
		sb_putc(sb, ']');
		break;
	}
}

void stack_dump(struct strbuf *sb, const struct frame_sym *const *frames,
		uint32_t nframes, const char *fmt, int depth)
{
	int level = 0, dir = 1;
	bool pathstrip = true;
	size_t lastlen = 0;

	if (depth < 0) {
		level = ~depth;
		depth = dir = -1;
	}
	while (level != depth) {
		if (level >= 0 && (uint32_t)level < nframes) {
			const struct frame_sym *f = frames[level];

			for (const char *p = fmt; *p; p++) {
				switch (*p) {
				case 'p':
					pathstrip = false;
					break;
				case 'f':
				case 'F':
				case 'l':
					frame_put(sb, f, *p, pathstrip);
					break;
				case 'Z':
					lastlen = sb->len;
					break;
				default:
					sb_putc(sb, *p);
				}
			}
		} else if (dir == 1) {
			break;
		} else {
			/* Reverse walk: jump to the deepest level that exists. */
			level = (int)nframes;
		}
		level += dir;
	}
	if (lastlen)
		sb_truncate(sb, lastlen);
}
