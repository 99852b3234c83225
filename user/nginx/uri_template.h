/* SPDX-License-Identifier: MIT */
/* URI templates for request labels: path segments that are ids (decimal
 * numbers, hex strings of 8 or more with a digit, UUIDs) fold to ":id",
 * so that /users/123/orders/9f8e7d6c0b1a and /users/7/orders/00ff00ff11
 * are one key, /users/:id/orders/:id, and a label's cardinality stays
 * bounded (`--uri-template auto`).  Pure. */
#ifndef LBP_URI_TEMPLATE_H
#define LBP_URI_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

enum uri_template_mode {
	URI_TEMPLATE_NONE,	/* the path as the request gave it */
	URI_TEMPLATE_AUTO,	/* ids folded to :id */
};

/* Is the segment s[0..n) an id by the rule above? */
bool uri_segment_is_id(const char *s, size_t n);

/* Writes the template of path (a query after '?' is kept as it is) to
 * out (len > 0, always terminated, cut when it does not fit).  Returns
 * the number of segments folded. */
int uri_template(const char *path, enum uri_template_mode mode, char *out, size_t len);

/* "auto" or "none"; -1 for anything else. */
int uri_template_parse(const char *s, enum uri_template_mode *mode);

#endif
