/* SPDX-License-Identifier: MIT */
/* JSON strings: the one escaper every JSON producer uses (speedscope,
 * the push APIs' labels). */
#ifndef LBP_JSON_H
#define LBP_JSON_H

#include <stddef.h>

#include "base/strbuf.h"

/* Appends s[0..n) as a quoted JSON string (RFC 8259): '"' and '\\'
 * escaped, \n \r \t by name, other control bytes and DEL as \u00XX, and
 * every byte that is not valid UTF-8 as \ufffd, so the output is always
 * valid JSON and valid UTF-8. */
void json_put_string(struct strbuf *sb, const char *s, size_t n);

/* The same for a NUL-terminated string. */
void json_put_cstr(struct strbuf *sb, const char *s);

#endif
