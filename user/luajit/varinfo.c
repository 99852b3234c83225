// SPDX-License-Identifier: MIT
/* Local variable names from varinfo (see varinfo.h).
 *
 * The block is a list of records ended by a 0 byte.  A record is either a
 * code 1..6 (a for loop's hidden variable) or a NUL-terminated name, then
 * two ULEB128 numbers: where the variable's scope starts, as a delta from
 * the previous record's start, and how long it is.  Records are in the
 * order their variables were declared, so the variables live at a
 * position, in record order, are the function's slots from 0 up. */
#include "luajit/varinfo.h"

#include <string.h>

#define FOR_CODES	7	/* codes below this are hidden variables */

static const char *const for_names[FOR_CODES - 1] = {
	"(for index)", "(for limit)", "(for step)", "(for generator)", "(for state)",
	"(for control)",
};

/* A ULEB128 at *p, not past end (a truncated one reads as what it has). */
static uint64_t uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	int shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

const char *varinfo_local(const uint8_t *vi, size_t len, uint32_t pos, uint32_t slot)
{
	const uint8_t *p = vi, *end = vi + len;
	uint64_t start = 0;

	while (p && p < end && *p) {
		const char *name = (const char *)p;
		uint64_t scope;

		if (*p < FOR_CODES) {
			name = for_names[*p - 1];
			p++;
		} else {
			const uint8_t *nul = memchr(p, 0, (size_t)(end - p));

			if (!nul)
				return NULL;	/* a name cut by the copy */
			p = nul + 1;
		}
		start += uleb(&p, end);
		if (start > pos)
			return NULL;	/* scopes start in order: none later is live */
		scope = uleb(&p, end);
		if (pos < start + scope && slot-- == 0)
			return name;
	}
	return NULL;
}
