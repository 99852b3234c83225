// SPDX-License-Identifier: MIT
/* The one rule for a target's bytes: what is escaped, how, per format. */
#include <stdlib.h>
#include <string.h>

#include "base/textsafe.h"
#include "base/unit.h"

static const char *esc(struct strbuf *sb, const char *s, size_t n, const char *seps,
		       enum text_escape e)
{
	sb_reset(sb);
	text_put_escaped(sb, s, n, seps, e);
	return sb_str(sb);
}

/* What text_fput_lines or text_fprintf_line wrote. */
static char *written(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f);
	fclose(f);
	return buf;
}

static void lines(FILE *f)
{
	text_fput_lines(f, "a\tb\nc\x1b[2Kd", 10);
}

static void one_line(FILE *f)
{
	text_fprintf_line(f, "PID %d (%s) exited", 7, "a;b \x1b[31mX\n 99%  FORGED");
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *forged = "x/\x1b]0;pwned\x07\x1b[2K\r 99%  FORGED\n 1%  other";
	char *out;

	CHECK_STR("plain text is kept", esc(&sb, "abc", 3, "", TEXT_ESC_HEX), "abc");
	CHECK_STR("the forged report line stays one line", esc(&sb, forged, strlen(forged), "",
		  TEXT_ESC_HEX),
		  "x/\\x1b]0;pwned\\x07\\x1b[2K\\x0d 99%  FORGED\\x0a 1%  other");
	CHECK_STR("DEL and C1 (CSI as UTF-8) are controls", esc(&sb, "\x7f\xc2\x9b", 3, "",
		  TEXT_ESC_HEX), "\\x7f\\xc2\\x9b");
	CHECK_STR("tab is a control in a name", esc(&sb, "a\tb", 3, "", TEXT_ESC_HEX), "a\\x09b");
	CHECK_STR("valid UTF-8 is kept", esc(&sb, "\xc3\xa9\xe2\x82\xac", 5, "", TEXT_ESC_HEX),
		  "\xc3\xa9\xe2\x82\xac");
	CHECK_STR("bidi override and zero width space are escaped",
		  esc(&sb, "a\xe2\x80\xae" "b\xe2\x80\x8b" "c", 9, "", TEXT_ESC_HEX),
		  "a\\xe2\\x80\\xaeb\\xe2\\x80\\x8bc");
	CHECK_STR("isolates, BOM and tags are escaped",
		  esc(&sb, "\xe2\x81\xa6\xef\xbb\xbf\xf3\xa0\x80\x81", 10, "", TEXT_ESC_HEX),
		  "\\xe2\\x81\\xa6\\xef\\xbb\\xbf\\xf3\\xa0\\x80\\x81");
	CHECK("neighbours of the ranges are kept", !text_cp_unsafe(0x200a) &&
	      !text_cp_unsafe(0x2030) && !text_cp_unsafe(0x2070) && !text_cp_unsafe(0xe9) &&
	      !text_cp_unsafe(0x4e2d) && text_cp_unsafe(0x2069) && text_cp_unsafe(0x200f));
	CHECK_STR("invalid UTF-8 is escaped byte by byte", esc(&sb, "\xff\xc3", 2, "",
		  TEXT_ESC_HEX), "\\xff\\xc3");
	CHECK_STR("a NUL inside the length is escaped", esc(&sb, "a\0b", 3, "", TEXT_ESC_HEX),
		  "a\\x00b");
	CHECK_STR("folded: separators and controls as %XX", esc(&sb, "a;b%c\nd", 7, "%;",
		  TEXT_ESC_PERCENT), "a%3Bb%25c%0Ad");
	CHECK_STR("folded: C1 too", esc(&sb, "\xc2\x85", 2, "%;", TEXT_ESC_PERCENT), "%C2%85");
	out = written(lines);
	CHECK_STR("lines keep their own tabs and newlines", out, "a\tb\nc\\x1b[2Kd");
	free(out);
	out = written(one_line);
	CHECK_STR("a message is one line", out,
		  "PID 7 (a;b \\x1b[31mX\\x0a 99%  FORGED) exited\n");
	free(out);
	sb_reset(&sb);
	text_put(&sb, "\x1b");
	CHECK_STR("text_put", sb_str(&sb), "\\x1b");
	sb_free(&sb);
	UNIT_EXIT();
}
