/* SPDX-License-Identifier: MIT */
/* The terminal of `luabpfprof top`, through ncurses: the one file that
 * knows it.  Lines of text in, keys out; the terminal is given back as it
 * was by top_screen_close, which every exit path of top calls. */
#ifndef LBP_TOP_SCREEN_H
#define LBP_TOP_SCREEN_H

#include <stdbool.h>
#include <stddef.h>

enum top_key {
	TOP_KEY_NONE = -1,
	TOP_KEY_RESIZE = -2,	/* the terminal changed size (SIGWINCH) */
	TOP_KEY_ENTER = -3,
	TOP_KEY_ESCAPE = -4,
	TOP_KEY_BACKSPACE = -5,
	TOP_KEY_OTHER = -6,	/* a function key top has no use for */
};

enum top_attr { TOP_ATTR_PLAIN, TOP_ATTR_BOLD, TOP_ATTR_REVERSE };

struct top_screen;

/* Takes the terminal (stdin and stdout must be one): the alternate
 * screen, no echo, keys one by one, Ctrl-C still a signal; sets LC_CTYPE
 * from the environment.  NULL with a one-line reason when it cannot,
 * among them a terminal that cannot move its cursor (TERM=dumb). */
struct top_screen *top_screen_open(char *err, size_t errlen);

/* Gives the terminal back; NULL and a second call do nothing. */
void top_screen_close(struct top_screen *s);

void top_screen_size(struct top_screen *s, int *rows, int *cols);

/* Whether the terminal's locale is not UTF-8 (names are shown escaped to
 * ASCII then, never as mojibake). */
bool top_screen_ascii(const struct top_screen *s);

/* The next key typed, or TOP_KEY_NONE at once when none is waiting. */
int top_screen_key(struct top_screen *s);

/* A frame: begin, lines (cut at the width), end shows them at once. */
void top_screen_begin(struct top_screen *s);
void top_screen_line(struct top_screen *s, int y, const char *text, enum top_attr attr);
void top_screen_end(struct top_screen *s);

#endif
