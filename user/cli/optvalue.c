// SPDX-License-Identifier: MIT
/* Option values: strict parsers and checks, and the /proc facts options
 * are checked against. */
#define _GNU_SOURCE
#include "cli/optvalue.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int fail(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/* -- Numbers ------------------------------------------------------------- */

int parse_uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')	/* no sign, no white space */
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static const struct {
	const char *name;
	double seconds;
} duration_units[] = {
	{ "ms", 1e-3 }, { "s", 1 }, { "m", 60 }, { "h", 3600 },
};

/* "31536000" -> "365 days", for the upper bound in a message. */
static void describe_seconds(double s, char *buf, size_t len)
{
	if (s >= 86400 && s < 1e15 && s == (double)(unsigned long long)s &&
	    (unsigned long long)s % 86400 == 0)
		snprintf(buf, len, "%.0f days", s / 86400);
	else
		snprintf(buf, len, "%gs", s);
}

int parse_duration(const char *s, double min, double max, double *out, char *why,
		   size_t whylen)
{
	static const char usage[] = "expected seconds, or a number with a unit: 500ms, 5s, 2m, 1h";
	char num[64], bound[32];
	size_t n;
	double v, mult = 0;
	char *end;

	if (!s || !*s)
		return fail(why, whylen, "%s", usage);
	if (*s == '-' && (isdigit((unsigned char)s[1]) || s[1] == '.'))
		return fail(why, whylen, "must be more than 0");
	/* Decimal only: no sign, white space, hex, inf or nan. */
	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return fail(why, whylen, "%s", usage);
	n = strspn(s, "0123456789.eE+-");
	/* An exponent's 'e' is part of the number; "5e" is not. */
	if (n >= sizeof(num))
		return fail(why, whylen, "%s", usage);
	memcpy(num, s, n);
	num[n] = '\0';
	if (!s[n])
		mult = 1;
	for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++)
		if (!strcmp(s + n, duration_units[i].name))
			mult = duration_units[i].seconds;
	if (!mult)
		return fail(why, whylen, "%s", usage);
	errno = 0;
	v = strtod(num, &end);
	if (*end || end == num)
		return fail(why, whylen, "%s", usage);
	describe_seconds(max, bound, sizeof(bound));
	if ((errno == ERANGE && v != 0) || !isfinite(v) || v * mult > max)
		return fail(why, whylen, "too large (at most %s)", bound);
	v *= mult;
	if (v <= 0 || (min > 0 && v < min)) {
		if (min > 0)
			return fail(why, whylen, "must be at least %gs", min);
		return fail(why, whylen, "must be more than 0");
	}
	*out = v;
	return 0;
}

int parse_short_time(const char *s, unsigned long long *ns)
{
	static const struct { const char *unit; unsigned long long ns; } units[] = {
		{ "", 1000 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	size_t digits = strspn(s, "0123456789");
	char num[24];
	unsigned long long v;

	for (size_t i = 0; digits && digits < sizeof(num) && i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s + digits, units[i].unit))
			continue;
		snprintf(num, sizeof(num), "%.*s", (int)digits, s);
		if (parse_uint(num, 0, 1000000000ull / units[i].ns, &v))
			return -1;
		*ns = v * units[i].ns;
		return 0;
	}
	return -1;
}

int parse_size(const char *s, unsigned long long *out)
{
	char buf[64];
	size_t n = s ? strlen(s) : 0;
	unsigned long long mult = 1, v;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'K': case 'k': mult = 1ull << 10; break;
	case 'M': case 'm': mult = 1ull << 20; break;
	case 'G': case 'g': mult = 1ull << 30; break;
	default: break;
	}
	if (mult > 1)
		buf[n - 1] = '\0';
	if (parse_uint(buf, 1, (1ull << 50) / mult, &v))
		return -1;
	*out = v * mult;
	return 0;
}

/* -- URLs ---------------------------------------------------------------- */

static int check_port(const char *p, size_t len, char *why, size_t whylen)
{
	char buf[8];
	unsigned long long port;

	if (!len || len >= sizeof(buf))
		return fail(why, whylen, "the port must be a number from 1 to 65535");
	memcpy(buf, p, len);
	buf[len] = '\0';
	if (parse_uint(buf, 1, 65535, &port))
		return fail(why, whylen, "the port must be a number from 1 to 65535");
	return 0;
}

/* HOST[:PORT], HOST a name or IPv4 address, or [IPv6]. */
static int check_hostport(const char *h, size_t len, char *why, size_t whylen)
{
	const char *colon;

	if (len && *h == '[') {
		const char *close = memchr(h, ']', len);
		char addr[INET6_ADDRSTRLEN + 1];
		struct in6_addr a6;
		size_t alen;

		if (!close)
			return fail(why, whylen, "the IPv6 address has no closing ']'");
		alen = (size_t)(close - h - 1);
		if (alen >= sizeof(addr))
			return fail(why, whylen, "invalid IPv6 address");
		memcpy(addr, h + 1, alen);
		addr[alen] = '\0';
		if (inet_pton(AF_INET6, addr, &a6) != 1)
			return fail(why, whylen, "invalid IPv6 address '%s'", addr);
		if (close + 1 == h + len)
			return 0;
		if (close[1] != ':')
			return fail(why, whylen, "unexpected text after the IPv6 address");
		return check_port(close + 2, (size_t)(h + len - close - 2), why, whylen);
	}
	colon = memchr(h, ':', len);
	if ((colon ? (size_t)(colon - h) : len) == 0)
		return fail(why, whylen, "no host name");
	for (const char *p = h; p < (colon ? colon : h + len); p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
			return fail(why, whylen, "invalid character '%c' in the host name", *p);
	if (colon)
		return check_port(colon + 1, (size_t)(h + len - colon - 1), why, whylen);
	return 0;
}

int check_http_url(const char *url, char *why, size_t whylen)
{
	const char *auth, *at;
	size_t len;

	if (!strncasecmp(url, "http://", 7))
		auth = url + 7;
	else if (!strncasecmp(url, "https://", 8))
		auth = url + 8;
	else
		return fail(why, whylen, "expected http:// or https://");
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return fail(why, whylen, "contains a space or a control character");
	len = strcspn(auth, "/?#");
	/* User information is the credentials' business, not the syntax's. */
	at = NULL;
	for (const char *p = auth; p < auth + len; p++)
		if (*p == '@')
			at = p;
	if (at) {
		len -= (size_t)(at + 1 - auth);
		auth = at + 1;
	}
	if (check_hostport(auth, len, why, whylen))
		return -1;
	if (strchr(auth, '#'))
		return fail(why, whylen, "a fragment (#...) is never sent");
	return 0;
}

/* -- Suggestions ----------------------------------------------------------- */

unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[64], n = (unsigned)strlen(b), m = (unsigned)strlen(a);

	if (n >= 64 || m >= 64)
		return 255;
	for (unsigned j = 0; j <= n; j++)
		row[j] = j;
	for (unsigned i = 1; i <= m; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (unsigned j = 1; j <= n; j++) {
			unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[n] > 255 ? 255 : row[n];
}

/* -- /proc ----------------------------------------------------------------- */

pid_t proc_tgid(const char *root, pid_t tid)
{
	char path[256], line[256];
	pid_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", root, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (sscanf(line, "Tgid: %d", &v) == 1) {
			tgid = v > 0 ? v : -1;
			break;
		}
	}
	fclose(f);
	return tgid;
}

int proc_read_uint(const char *root, const char *rel, unsigned long long *out)
{
	char path[256];
	unsigned long long v;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (!ok)
		return -1;
	*out = v;
	return 0;
}
