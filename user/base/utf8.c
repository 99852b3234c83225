// SPDX-License-Identifier: MIT
/* UTF-8 decoding (RFC 3629): overlong forms and surrogates are invalid. */
#include "base/utf8.h"

size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, min = 0x10000, c &= 0x07;
	} else {
		goto invalid;
	}
	if (len > n)
		goto invalid;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto invalid;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto invalid;
	*cp = c;
	return len;
invalid:
	*cp = 0xfffd;
	return 1;
}
