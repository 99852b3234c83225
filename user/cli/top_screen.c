// SPDX-License-Identifier: MIT
/* ncurses behind top_screen.h.  ncurses rather than escape sequences of
 * our own: it knows every terminal from terminfo (ssh, screen, tmux, a
 * plain VT100), redraws only what changed, and handles SIGWINCH (as
 * KEY_RESIZE) and Ctrl-Z itself. */
#include "cli/top_screen.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "base/textsafe.h"

#define ESCAPE_WAIT_MS	50	/* Escape alone vs the start of a key's sequence */

struct top_screen {
	SCREEN *scr;
	bool open;
	bool ascii;		/* the locale is not UTF-8: only ASCII is shown */
	struct strbuf line;
};

/* Whether TERM names a terminal top can draw on: one that moves its
 * cursor (TERM=dumb cannot, and ncurses would draw nothing at all). */
static bool term_can_draw(const char *term, char *err, size_t errlen)
{
	int rc = 0;
	const char *cup;

	if (setupterm((char *)term, STDOUT_FILENO, &rc) != OK) {
		snprintf(err, errlen, "cannot use the terminal (TERM=%s): not in terminfo",
			 term ? term : "unset");
		return false;
	}
	cup = tigetstr("cup");
	del_curterm(cur_term);
	if (!cup || cup == (char *)-1) {
		snprintf(err, errlen, "top cannot draw on TERM=%s: it cannot move the cursor "
			 "(set TERM to the terminal's, e.g. TERM=xterm-256color)", term ? term : "unset");
		return false;
	}
	return true;
}

struct top_screen *top_screen_open(char *err, size_t errlen)
{
	struct top_screen *s;
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "top draws on a terminal: run it with stdin and stdout on one");
		return NULL;
	}
	/* The user's character set, for names that are not ASCII: ncurses
	 * shows UTF-8 only in a UTF-8 locale.  LC_CTYPE only: numbers keep
	 * their '.' whatever LC_NUMERIC says. */
	setlocale(LC_CTYPE, "");
	if (!term_can_draw(term, err, errlen))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
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
	sb_free(&s->line);
	free(s);
}

bool top_screen_ascii(const struct top_screen *s)
{
	return s->ascii;
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

	/* The last gate before the terminal: whatever the line holds (a
	 * comm in the title, a filter typed), escaped by the one rule and cut
	 * to the screen's columns, never inside a character. */
	sb_reset(&s->line);
	text_put_cols(&s->line, text, strlen(text), COLS, s->ascii);
	if (attrs)
		attron(attrs);
	mvaddstr(y, 0, sb_str(&s->line));
	if (attrs)
		attroff(attrs);
}

void top_screen_end(struct top_screen *s)
{
	(void)s;
	refresh();
}
