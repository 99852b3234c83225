/* SPDX-License-Identifier: MIT */
/* A growable byte buffer for building keys and output text. */
#ifndef LBP_STRBUF_H
#define LBP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;	/* always NUL-terminated once anything was added */
	size_t len, cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void sb_reset(struct strbuf *sb);	/* empties, keeps the memory */
void sb_free(struct strbuf *sb);
void sb_putc(struct strbuf *sb, char c);
void sb_putn(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_truncate(struct strbuf *sb, size_t len);
const char *sb_str(struct strbuf *sb);	/* "" for an empty buffer */

#endif
