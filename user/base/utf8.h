/* SPDX-License-Identifier: MIT */
/* UTF-8 decoding, shared by every exporter that must emit valid text. */
#ifndef LBP_UTF8_H
#define LBP_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one code point of s[0..n), n > 0.  Returns its length; invalid
 * or overlong sequences and surrogates give 1 and U+FFFD. */
size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

#endif
