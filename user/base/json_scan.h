/* SPDX-License-Identifier: MIT */
/* Reading a few members out of a JSON document (RFC 8259) that a
 * container runtime wrote on the host: no tree and no allocation, only
 * pointers into the text.  Every function takes the end of the text and
 * never reads past it; a malformed document gives NULL or false. */
#ifndef LBP_JSON_SCAN_H
#define LBP_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* p after leading white space. */
const char *json_ws(const char *p, const char *end);

/* The end of the value at p (after leading white space), or NULL. */
const char *json_skip(const char *p, const char *end);

/* The value of member key of the object at p, or NULL. */
const char *json_member(const char *p, const char *end, const char *key);

/* Decodes the string at p into out (escapes resolved, \uXXXX as UTF-8);
 * false if p is no string or it does not fit. */
bool json_string(const char *p, const char *end, char *out, size_t outlen);

/* Array iteration: *p at '[' or after an element; the next element, or
 * NULL at the end (or on an error). */
const char *json_next(const char **p, const char *end);

#endif
