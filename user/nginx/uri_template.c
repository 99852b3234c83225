// SPDX-License-Identifier: MIT
/* URI templates (see uri_template.h). */
#include "nginx/uri_template.h"

#include <string.h>

#define HEX_MIN	8	/* shorter hex words ("cafe", "add") are words */
#define ID	":id"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* 8-4-4-4-12 hex digits. */
static bool is_uuid(const char *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !is_hex(s[i]))
			return false;
	}
	return true;
}

bool uri_segment_is_id(const char *s, size_t n)
{
	bool digits = n > 0, hex = n >= HEX_MIN, digit = false;

	for (size_t i = 0; i < n; i++) {
		digits &= s[i] >= '0' && s[i] <= '9';
		hex &= is_hex(s[i]);
		digit |= s[i] >= '0' && s[i] <= '9';
	}
	return digits || (hex && digit) || is_uuid(s, n);
}

/* Appends s[0..n) to out at *at, keeping room for the terminator. */
static void put(char *out, size_t len, size_t *at, const char *s, size_t n)
{
	if (*at + n >= len)
		n = len - 1 - *at;
	memcpy(out + *at, s, n);
	*at += n;
}

int uri_template(const char *path, enum uri_template_mode mode, char *out, size_t len)
{
	size_t at = 0, plen = strcspn(path, "?");
	int folded = 0;

	for (size_t i = 0; i < plen;) {
		size_t n = strcspn(path + i, "/?");

		if (n > plen - i)
			n = plen - i;
		if (mode == URI_TEMPLATE_AUTO && uri_segment_is_id(path + i, n)) {
			put(out, len, &at, ID, strlen(ID));
			folded++;
		} else {
			put(out, len, &at, path + i, n);
		}
		i += n;
		if (i < plen)	/* the '/' */
			put(out, len, &at, path + i++, 1);
	}
	put(out, len, &at, path + plen, strlen(path + plen));
	out[at] = 0;
	return folded;
}

int uri_template_parse(const char *s, enum uri_template_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = URI_TEMPLATE_AUTO;
	else if (!strcmp(s, "none"))
		*mode = URI_TEMPLATE_NONE;
	else
		return -1;
	return 0;
}
