// SPDX-License-Identifier: MIT
/* Folded stacks back into a stackset: "root;...;leaf COUNT" per line,
 * each frame percent-decoded (export_folded.c escapes '%', ';' and the
 * bytes textsafe would).  Folded files name frames in one scope and
 * carry no lines, VM states, zones or duration: those views and
 * --per-second are refused for them. */
#include "report/profile_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put_decoded(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < n && (hi = hexval(s[i + 1])) >= 0 &&
		    (lo = hexval(s[i + 2])) >= 0) {
			sb_putc(sb, (char)(hi * 16 + lo));
			i += 2;
		} else {
			sb_putc(sb, s[i]);
		}
	}
}

/* One line: 0, 1 for a blank one, -1 when it is not "stack count". */
static int read_line(const char *line, size_t n, struct stackset *s, struct ss_frame *stack,
		     struct strbuf *sb)
{
	size_t sp = n, start = 0;
	uint32_t depth = 0;
	struct ss_sample v = { 0 };
	const char *fname;
	size_t flen;

	while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
		n--;
	if (!n)
		return 1;
	while (sp > 0 && line[sp - 1] >= '0' && line[sp - 1] <= '9')
		sp--;
	if (sp == n || sp < 2 || line[sp - 1] != ' ' || n - sp > 19)
		return -1;
	for (size_t i = sp; i < n; i++)
		v.count = v.count * 10 + (uint64_t)(line[i] - '0');
	sp--;
	for (size_t i = 0; i <= sp; i++) {
		if (i < sp && line[i] != ';')
			continue;
		if (depth == SS_MAX_DEPTH)
			return -1;
		sb_reset(sb);
		put_decoded(sb, line + start, i - start);
		stack[depth].F = strtab_intern(&s->str, sb_str(sb), sb->len);
		stackset_f_of_F(strtab_str(&s->str, stack[depth].F), &fname, &flen);
		stack[depth].f = strtab_intern(&s->str, fname, flen);
		stack[depth].l = 0;
		depth++;
		start = i + 1;
	}
	return stackset_add(s, stack, depth, &v);
}

int read_folded(const char *name, const char *data, size_t n, struct stackset *s, char *err,
		size_t errlen)
{
	struct ss_frame *stack = xmalloc(SS_MAX_DEPTH * sizeof(*stack));
	struct strbuf sb = STRBUF_INIT;
	size_t at = 0, lineno = 0;
	int rc = 0;

	while (at < n && rc >= 0) {
		const char *nl = memchr(data + at, '\n', n - at);
		size_t len = nl ? (size_t)(nl - (data + at)) : n - at;

		lineno++;
		rc = read_line(data + at, len, s, stack, &sb);
		at += len + 1;
	}
	free(stack);
	sb_free(&sb);
	if (rc < 0) {
		snprintf(err, errlen, "%s:%zu: not a folded stack line (frames;... COUNT)", name,
			 lineno);
		return -1;
	}
	stackset_file_done(s, 0);
	return 0;
}
