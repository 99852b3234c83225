// SPDX-License-Identifier: MIT
/* The one JSON string escaper: every class of byte it must treat. */
#include "base/json.h"
#include "base/unit.h"

static const char *esc(struct strbuf *sb, const char *s, size_t n)
{
	sb_reset(sb);
	json_put_string(sb, s, n);
	return sb_str(sb);
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR("plain text is quoted", esc(&sb, "abc", 3), "\"abc\"");
	CHECK_STR("quote and backslash", esc(&sb, "a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	CHECK_STR("newline, return, tab by name", esc(&sb, "\n\r\t", 3), "\"\\n\\r\\t\"");
	CHECK_STR("other control bytes and DEL as \\u", esc(&sb, "\x01\x1f\x7f", 3),
		  "\"\\u0001\\u001f\\u007f\"");
	CHECK_STR("a NUL inside the length is escaped", esc(&sb, "a\0b", 3), "\"a\\u0000b\"");
	CHECK_STR("valid UTF-8 is kept", esc(&sb, "\xc3\xa9\xe2\x82\xac", 5),
		  "\"\xc3\xa9\xe2\x82\xac\"");
	CHECK_STR("invalid bytes become U+FFFD", esc(&sb, "\xff\xc3", 2), "\"\\ufffd\\ufffd\"");
	CHECK_STR("an overlong '/' is invalid", esc(&sb, "\xc0\xaf", 2), "\"\\ufffd\\ufffd\"");
	CHECK_STR("a surrogate is invalid", esc(&sb, "\xed\xa0\x80", 3),
		  "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_STR("bidi and zero width as \\u", esc(&sb, "\xe2\x80\xae\xe2\x80\x8b", 6),
		  "\"\\u202e\\u200b\"");
	CHECK_STR("a tag beyond U+FFFF as a surrogate pair", esc(&sb, "\xf3\xa0\x80\x81", 4),
		  "\"\\udb40\\udc01\"");
	sb_reset(&sb);
	json_put_cstr(&sb, "x\"");
	CHECK_STR("json_put_cstr", sb_str(&sb), "\"x\\\"\"");
	sb_free(&sb);
	UNIT_EXIT();
}
