// SPDX-License-Identifier: MIT
#define _GNU_SOURCE	/* vasprintf */
/* Escaping a target's bytes (see textsafe.h). */
#include "base/textsafe.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/utf8.h"

/* Code points that are not controls yet change what a reader sees
 * without showing themselves: bidi overrides, embeddings, isolates and
 * marks reorder the rest of a line (U+202E turns "gpj.exe" around), and
 * zero-width or invisible ones hide a difference between two names. */
static const struct { uint32_t lo, hi; } invisible[] = {
	{ 0x00ad, 0x00ad },	/* soft hyphen */
	{ 0x034f, 0x034f },	/* combining grapheme joiner */
	{ 0x061c, 0x061c },	/* Arabic letter mark */
	{ 0x115f, 0x1160 },	/* Hangul fillers */
	{ 0x17b4, 0x17b5 },	/* Khmer inherent vowels */
	{ 0x180b, 0x180f },	/* Mongolian variation selectors, vowel separator */
	{ 0x200b, 0x200f },	/* zero width space, (non-)joiner, LRM, RLM */
	{ 0x2028, 0x202e },	/* line and paragraph separators, embeddings, overrides */
	{ 0x2060, 0x206f },	/* word joiner, invisible operators, isolates, deprecated */
	{ 0x3164, 0x3164 },	/* Hangul filler */
	{ 0xfeff, 0xfeff },	/* zero width no-break space (BOM) */
	{ 0xffa0, 0xffa0 },	/* halfwidth Hangul filler */
	{ 0xfff9, 0xfffb },	/* interlinear annotation */
	{ 0x1d173, 0x1d17a },	/* musical formatting */
	{ 0xe0000, 0xe007f },	/* tags */
};

bool text_cp_unsafe(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return true;	/* C0, DEL, C1 */
	if (cp < 0xad)
		return false;
	for (size_t i = 0; i < sizeof(invisible) / sizeof(invisible[0]); i++)
		if (cp >= invisible[i].lo && cp <= invisible[i].hi)
			return true;
	return false;
}

size_t text_next(const unsigned char *s, size_t n, bool *unsafe)
{
	uint32_t cp;
	size_t len = utf8_next(s, n, &cp);

	*unsafe = (cp == 0xfffd && len == 1) || text_cp_unsafe(cp);
	return len;
}

static void put_escape(struct strbuf *sb, unsigned char c, enum text_escape esc)
{
	sb_printf(sb, esc == TEXT_ESC_PERCENT ? "%%%02X" : "\\x%02x", c);
}

void text_put_escaped(struct strbuf *sb, const char *s, size_t n, const char *seps,
		      enum text_escape esc)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		bool unsafe;
		size_t len = text_next(u + i, n - i, &unsafe);

		if (unsafe || (u[i] && strchr(seps, u[i]))) {
			for (size_t k = 0; k < len; k++)
				put_escape(sb, u[i + k], esc);
		} else {
			sb_putn(sb, s + i, len);
		}
		i += len;
	}
}

int text_put_cols(struct strbuf *sb, const char *s, size_t n, int cols, bool ascii)
{
	const unsigned char *u = (const unsigned char *)s;
	int used = 0;

	for (size_t i = 0; i < n;) {
		bool unsafe;
		size_t len = text_next(u + i, n - i, &unsafe);
		int w = 1;

		if (!unsafe && u[i] >= 0x80) {
			uint32_t cp;

			utf8_next(u + i, n - i, &cp);
			/* wcwidth is the locale's: -1 for what it cannot show */
			w = ascii ? -1 : wcwidth((wchar_t)cp);
			unsafe = w < 0;
		}
		if (unsafe)
			w = 4 * (int)len;	/* \xNN a byte */
		if (used + w > cols)
			break;
		if (unsafe) {
			for (size_t k = 0; k < len; k++)
				put_escape(sb, u[i + k], TEXT_ESC_HEX);
		} else {
			sb_putn(sb, s + i, len);
		}
		used += w;
		i += len;
	}
	return used;
}

void text_put(struct strbuf *sb, const char *s)
{
	text_put_escaped(sb, s, strlen(s), "", TEXT_ESC_HEX);
}

void text_fput(FILE *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	text_put(&sb, s);
	fwrite(sb_str(&sb), 1, sb.len, f);
	sb_free(&sb);
}

void text_fprintf_line(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *line = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		text_fput(f, line);
		free(line);
	}
	fputc('\n', f);
}

void text_fput_lines(FILE *f, const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t from = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '\n' && s[i] != '\t')
			continue;
		text_put_escaped(&sb, s + from, i - from, "", TEXT_ESC_HEX);
		if (i < n)
			sb_putc(&sb, s[i]);
		from = i + 1;
	}
	fwrite(sb_str(&sb), 1, sb.len, f);
	sb_free(&sb);
}
