#define _GNU_SOURCE	/* vasprintf */
/* Escaping a target's bytes (see textsafe.h). */
#include "base/textsafe.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

size_t text_next(const unsigned char *s, size_t n, bool *unsafe)
{
	uint32_t cp;
	size_t len = utf8_next(s, n, &cp);

	*unsafe = (cp == 0xfffd && len == 1) || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
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
