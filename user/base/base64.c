// SPDX-License-Identifier: MIT
/* Base64 encoder: three bytes in, four characters out. */
#include "base/base64.h"

#include <stdint.h>

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_append(struct strbuf *sb, const void *data, size_t len)
{
	const unsigned char *p = data;
	char quad[4];

	for (; len >= 3; p += 3, len -= 3) {
		uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];

		quad[0] = alphabet[v >> 18];
		quad[1] = alphabet[(v >> 12) & 63];
		quad[2] = alphabet[(v >> 6) & 63];
		quad[3] = alphabet[v & 63];
		sb_putn(sb, quad, 4);
	}
	if (len) {
		uint32_t v = (uint32_t)p[0] << 16 | (len == 2 ? (uint32_t)p[1] << 8 : 0);

		quad[0] = alphabet[v >> 18];
		quad[1] = alphabet[(v >> 12) & 63];
		quad[2] = len == 2 ? alphabet[(v >> 6) & 63] : '=';
		quad[3] = '=';
		sb_putn(sb, quad, 4);
	}
}
