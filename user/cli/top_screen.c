/* ncurses behind top_screen.h.  ncurses rather than escape sequences of
 * our own: it knows every terminal from terminfo (ssh, screen, tmux, a
 * plain VT100), redraws only what changed, and handles SIGWINCH (as
 * KEY_RESIZE) and Ctrl-Z itself. */
#include "cli/top_screen.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ESCAPE_WAIT_MS	50	/* Escape alone vs the start of a key's sequence */

struct top_screen {
	SCREEN *scr;
	bool open;
};

struct top_screen *top_screen_open(char *err, size_t errlen)
{
	struct top_screen *s;
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "top draws on a terminal: run it with stdin and stdout on one");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* newterm, unlike initscr, returns instead of exiting on a bad TERM. */
	s->scr = newterm(NULL, stdout, stdin);
	if (!s->scr) {
		snprintf(err, errlen, "cannot use the terminal (TERM=%s)", term ? term : "unset");
		free(s);
		return NULL;
	}
	s->open = true;
	cbreak();		/* keys at once; Ctrl-C and Ctrl-Z stay signals */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(ESCAPE_WAIT_MS);
	curs_set(0);
	return s;
}

void top_screen_close(struct top_screen *s)
{
	if (!s)
		return;
	if (s->open) {
		curs_set(1);
		endwin();
		delscreen(s->scr);
	}
	free(s);
}

void top_screen_size(struct top_screen *s, int *rows, int *cols)
{
	(void)s;
	getmaxyx(stdscr, *rows, *cols);
}

int top_screen_key(struct top_screen *s)
{
	int c;

	(void)s;
	c = getch();
	switch (c) {
	case ERR:
		return TOP_KEY_NONE;
	case KEY_RESIZE:
		return TOP_KEY_RESIZE;
	case KEY_ENTER:
	case '\n':
	case '\r':
		return TOP_KEY_ENTER;
	case 27:
		return TOP_KEY_ESCAPE;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		return TOP_KEY_BACKSPACE;
	default:
		return c >= 0 && c < 256 ? c : TOP_KEY_OTHER;
	}
}

void top_screen_begin(struct top_screen *s)
{
	(void)s;
	erase();
}

void top_screen_line(struct top_screen *s, int y, const char *text, enum top_attr attr)
{
	int attrs = attr == TOP_ATTR_BOLD ? A_BOLD : attr == TOP_ATTR_REVERSE ? A_REVERSE : 0;

	(void)s;
	if (attrs)
		attron(attrs);
	mvaddnstr(y, 0, text, COLS);
	if (attrs)
		attroff(attrs);
}

void top_screen_end(struct top_screen *s)
{
	(void)s;
	refresh();
}
