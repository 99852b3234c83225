// SPDX-License-Identifier: MIT
/* A JSON reader for a few members (see json_scan.h). */
#include "base/json_scan.h"

#include <string.h>

#define MAX_DEPTH	64	/* deeper nesting is refused, not recursed into */

const char *json_ws(const char *p, const char *end)
{
	while (p && p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The end of the string at p (after its closing quote). */
static const char *skip_string(const char *p, const char *end)
{
	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
		else if ((unsigned char)*p < 0x20)
			return NULL;
	}
	return NULL;
}

static const char *skip_value(const char *p, const char *end, int depth);

/* An object or array at p: members or elements until its closing bracket. */
static const char *skip_container(const char *p, const char *end, int depth)
{
	char close = *p == '{' ? '}' : ']';

	if (depth > MAX_DEPTH)
		return NULL;
	p = json_ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	while (p && p < end) {
		if (close == '}') {
			p = json_ws(skip_string(p, end), end);
			if (!p || p >= end || *p != ':')
				return NULL;
			p = json_ws(p + 1, end);
		}
		p = json_ws(skip_value(p, end, depth + 1), end);
		if (!p || p >= end)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = json_ws(p + 1, end);
	}
	return NULL;
}

static const char *skip_value(const char *p, const char *end, int depth)
{
	if (!p || p >= end)
		return NULL;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[')
		return skip_container(p, end, depth);
	/* numbers, true, false, null */
	if (!strchr("-0123456789tfn", *p))
		return NULL;
	while (p < end && strchr("+-.0123456789eEtruefalsn", *p))
		p++;
	return p;
}

const char *json_skip(const char *p, const char *end)
{
	return skip_value(json_ws(p, end), end, 0);
}

const char *json_member(const char *p, const char *end, const char *key)
{
	size_t klen = strlen(key);

	p = json_ws(p, end);
	if (!p || p >= end || *p != '{')
		return NULL;
	p = json_ws(p + 1, end);
	while (p && p < end && *p == '"') {
		const char *name = p + 1, *after = skip_string(p, end);
		bool match = after && (size_t)(after - name - 1) == klen && !memcmp(name, key, klen);

		p = json_ws(after, end);
		if (!p || p >= end || *p != ':')
			return NULL;
		p = json_ws(p + 1, end);
		if (match)
			return p;
		p = json_ws(skip_value(p, end, 1), end);
		if (!p || p >= end || *p != ',')
			return NULL;
		p = json_ws(p + 1, end);
	}
	return NULL;
}

static int hex4(const char *p, const char *end)
{
	int v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (c | 0x20) - 'a' + 10;
		else
			return -1;
	}
	return v;
}

/* Appends code point cp as UTF-8; false when it does not fit. */
static bool put_cp(char *out, size_t outlen, size_t *n, unsigned cp)
{
	char b[4];
	size_t k = 0;

	if (cp < 0x80) {
		b[k++] = (char)cp;
	} else if (cp < 0x800) {
		b[k++] = (char)(0xc0 | cp >> 6);
		b[k++] = (char)(0x80 | (cp & 0x3f));
	} else {
		b[k++] = (char)(0xe0 | cp >> 12);
		b[k++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[k++] = (char)(0x80 | (cp & 0x3f));
	}
	if (*n + k >= outlen)
		return false;
	memcpy(out + *n, b, k);
	*n += k;
	return true;
}

bool json_string(const char *p, const char *end, char *out, size_t outlen)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	const char *stop = skip_string(p, end);
	size_t n = 0;

	if (!stop || !outlen)
		return false;
	for (p++; p < stop - 1; p++) {
		unsigned cp = (unsigned char)*p;

		if (*p == '\\') {
			const char *e = strchr(esc_in, p[1]);

			if (p[1] == 'u') {
				int v = hex4(p + 2, stop);

				if (v < 0)
					return false;
				cp = (unsigned)v;	/* a surrogate half stays one */
				p += 5;
			} else if (e && p[1]) {
				cp = (unsigned char)esc_out[e - esc_in];
				p++;
			} else {
				return false;
			}
			if (!put_cp(out, outlen, &n, cp))
				return false;
			continue;
		}
		if (n + 1 >= outlen)
			return false;
		out[n++] = *p;
	}
	out[n] = '\0';
	return true;
}

const char *json_next(const char **p, const char *end)
{
	const char *q = json_ws(*p, end), *elem;

	if (!q || q >= end)
		return NULL;
	if (*q == '[' || *q == ',')
		q = json_ws(q + 1, end);
	if (!q || q >= end || *q == ']')
		return NULL;
	elem = q;
	*p = json_ws(skip_value(q, end, 1), end);
	return *p ? elem : NULL;
}
