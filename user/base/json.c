// SPDX-License-Identifier: MIT
/* JSON string escaping. */
#include "base/json.h"

#include <stdint.h>
#include <string.h>

#include "base/textsafe.h"
#include "base/utf8.h"

void json_put_string(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	sb_putc(sb, '"');
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_next(u + i, n - i, &cp);

		if (cp == 0xfffd && len == 1)
			sb_puts(sb, "\\ufffd");
		else if (cp == '"' || cp == '\\')
			sb_printf(sb, "\\%c", (char)cp);
		else if (cp == '\n')
			sb_puts(sb, "\\n");
		else if (cp == '\r')
			sb_puts(sb, "\\r");
		else if (cp == '\t')
			sb_puts(sb, "\\t");
		else if (text_cp_unsafe(cp) && cp <= 0xffff)
			sb_printf(sb, "\\u%04x", cp);	/* controls, bidi, invisible */
		else if (text_cp_unsafe(cp))	/* as a surrogate pair */
			sb_printf(sb, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
				  0xdc00 + ((cp - 0x10000) & 0x3ff));
		else
			sb_putn(sb, s + i, len);
		i += len;
	}
	sb_putc(sb, '"');
}

void json_put_cstr(struct strbuf *sb, const char *s)
{
	json_put_string(sb, s, strlen(s));
}
