/* SPDX-License-Identifier: MIT */
/* The one rule for bytes that come from a target (chunk, function,
 * upvalue and local names, strings, comm, symbol names) on their way
 * out: a code point is unsafe when it is a control character (C0, DEL or
 * C1, which terminals act on), a bidi control or an invisible one
 * (U+202E, U+200B: they reorder or hide what the reader sees; the list
 * is text_cp_unsafe's), or not valid UTF-8.  Every format escapes
 * the unsafe ones and its own separators in its own way: text views and
 * stderr as \xNN (text_put, text_fput), folded as %XX (export_folded.c),
 * JSON (json.c), XML (export_svg.c) and pprof (UTF-8 only) by theirs. */
#ifndef LBP_TEXTSAFE_H
#define LBP_TEXTSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"

/* Whether a valid code point must be escaped by the rule above. */
bool text_cp_unsafe(uint32_t cp);

/* Length of the code point at s[0..n), n > 0; *unsafe says whether it
 * must be escaped by the rule above. */
size_t text_next(const unsigned char *s, size_t n, bool *unsafe);

/* How an escaped byte is written. */
enum text_escape {
	TEXT_ESC_HEX,		/* \xNN: text views, stderr */
	TEXT_ESC_PERCENT,	/* %XX: folded stacks */
};

/* Appends s[0..n), every byte of an unsafe code point, and every byte in
 * seps (the format's separators, ASCII), escaped as esc says. */
void text_put_escaped(struct strbuf *sb, const char *s, size_t n, const char *seps,
		      enum text_escape esc);

/* For a terminal's fixed columns (top): appends s[0..n) escaped as
 * text_put does, and every non-ASCII code point too when ascii (a locale
 * that is not UTF-8) or when the locale's wcwidth cannot show it, as many
 * whole code points or escapes as fit in cols terminal columns (wcwidth:
 * a CJK character takes 2).  Returns the columns used. */
int text_put_cols(struct strbuf *sb, const char *s, size_t n, int cols, bool ascii);

/* A target's text for a text view or a message: \xNN escapes, no
 * separators of its own (a newline is a control character). */
void text_put(struct strbuf *sb, const char *s);

/* The same, written to f. */
void text_fput(FILE *f, const char *s);

/* Formats one line whose %s arguments may be a target's text, escapes
 * all of it and ends it with a newline: the format itself must hold no
 * control character. */
void text_fprintf_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Keeps trusted layout characters (the line ends and tabs a format puts
 * around names itself) and escapes the rest: for whole lines whose names
 * were already escaped, or messages built with %s from target text. */
void text_fput_lines(FILE *f, const char *s, size_t n);

#endif
