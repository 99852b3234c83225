// SPDX-License-Identifier: MIT
/* luabpfprof top: a consumer of the one session loop.  The session cuts a
 * profile every --delay (its interval machinery, as for the agent); each
 * is added to the table and the screen redrawn.  Keys are read on the
 * session's ticks (ten a second), so sorting, filtering and quitting
 * answer at once, between updates. */
#define _GNU_SOURCE
#include "cli/top_cmd.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "cli/options.h"
#include "cli/top_screen.h"
#include "report/top_table.h"
#include "sample/procfs.h"
#include "sample/targets.h"
#include "session/session.h"

#define HEAD_LINES	4	/* title, counts, status, column heads */
#define MAX_MARKS	512	/* processes whose CPU time is followed */
#define FILTER_MAX	64

struct cpu_mark {
	pid_t pid;
	uint64_t ticks;
};

struct top {
	const struct options *o;
	struct top_screen *scr;
	struct top_table *tab;
	struct top_view view;
	char filter[FILTER_MAX], filter_before[FILTER_MAX];
	bool editing, help, paused, dirty, quit;
	volatile sig_atomic_t *stop;
	/* The targets' CPU time at the last update, and their use since. */
	struct cpu_mark marks[MAX_MARKS];
	int nmarks;
	uint64_t marks_ns;
	double cpu_pct;
	bool have_cpu;
	int ntargets;
	char what[96];		/* the targets, for the title */
	bool targets_exited;
	uint64_t paused_ns;
	struct strbuf sb;
};

/* The signals that end a run set *stop; unlike the report's handler a
 * second one does not _exit: the terminal must be given back first. */
static volatile sig_atomic_t *stop_flag;

static void on_stop(int sig)
{
	*stop_flag = sig;
}

static void install_signals(volatile sig_atomic_t *stop)
{
	struct sigaction sa;

	stop_flag = stop;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int top_cmd_check_terminal(void)
{
	if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		return 0;
	log_error("top draws on a terminal: run it with stdin and stdout on one "
		  "(for a report, leave out top and give -d)");
	return -1;
}

int top_cmd_child_stdio(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return -1;
	if (fd > 2)
		close(fd);
	return 0;
}

/* ==== The targets: their names and CPU use ==== */

static int read_ticks(pid_t pid, uint64_t *ticks)
{
	char buf[1024];

	return proc_read_stat_line(pid, buf, sizeof(buf)) ? -1 : top_parse_stat_ticks(buf, ticks);
}

/* The CPU the targets used since the last update, in percent of one CPU:
 * the processes seen both times (a new one starts its own count). */
static void measure_cpu(struct top *t, struct targets *ts, uint64_t now_ns)
{
	struct cpu_mark now[MAX_MARKS];
	int n = 0;
	uint64_t used = 0;

	for (int i = 0; i < targets_count(ts) && n < MAX_MARKS; i++) {
		struct target *tg = targets_at(ts, i);

		if (!target_exited(tg) && !read_ticks(target_pid(tg), &now[n].ticks))
			now[n++].pid = target_pid(tg);
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < t->nmarks; j++)
			if (t->marks[j].pid == now[i].pid && now[i].ticks >= t->marks[j].ticks)
				used += now[i].ticks - t->marks[j].ticks;
	t->have_cpu = t->marks_ns && now_ns > t->marks_ns;
	if (t->have_cpu)
		t->cpu_pct = top_cpu_percent(0, used, (double)(now_ns - t->marks_ns) / 1e9,
					     sysconf(_SC_CLK_TCK));
	memcpy(t->marks, now, (size_t)n * sizeof(now[0]));
	t->nmarks = n;
	t->marks_ns = now_ns;
}

static void describe_targets(struct top *t, struct targets *ts)
{
	int n = targets_count(ts);

	t->ntargets = n;
	if (t->o->all)
		snprintf(t->what, sizeof(t->what), "all LuaJIT processes (%d)", n);
	else if (n == 1)
		snprintf(t->what, sizeof(t->what), "PID %d (%s)", (int)target_pid(targets_at(ts, 0)),
			 target_comm(targets_at(ts, 0)));
	else
		snprintf(t->what, sizeof(t->what), "%d processes", n);
}

/* ==== Drawing ==== */

static const char *events_label(enum profile_event e)
{
	return e == PROFILE_OFFCPU ? "switches" : e == PROFILE_WALL ? "events" : "samples";
}

static void draw_head(struct top *t, int cols)
{
	const struct top_totals *tot = top_table_totals(t->tab);
	struct strbuf *sb = &t->sb;
	char lost[64] = "";

	sb_reset(sb);
	sb_printf(sb, "luabpfprof top - %s - %s", t->what, profile_event_name(t->o->event));
	if (t->o->event == PROFILE_ALLOC)
		sb_printf(sb, " every %lluK", t->o->alloc_every >> 10);
	else if (t->o->event != PROFILE_OFFCPU)
		sb_printf(sb, " at %u Hz", t->o->hz);
	sb_printf(sb, ", every %gs%s", t->o->top_delay, t->paused ? "   [PAUSED]" : "");
	top_screen_line(t->scr, 0, sb_str(sb), TOP_ATTR_BOLD);

	sb_reset(sb);
	sb_printf(sb, "%llu %s (%.0f/s) in %.1fs", (unsigned long long)tot->events,
		  events_label(t->o->event),
		  tot->last_seconds > 0 ? (double)tot->last_events / tot->last_seconds : 0.0,
		  tot->seconds);
	if (t->have_cpu)
		sb_printf(sb, "   CPU %.1f%%", t->cpu_pct);
	snprintf(lost, sizeof(lost), "   lost %llu   unknown frames %llu",
		 (unsigned long long)tot->lost, (unsigned long long)tot->unknown);
	sb_puts(sb, lost);
	top_screen_line(t->scr, 1, sb_str(sb), TOP_ATTR_PLAIN);
	(void)cols;
}

/* The bottom line: the filter being typed, the keys, or a hint. */
static void draw_foot(struct top *t, int y, size_t shown, size_t rows)
{
	struct strbuf *sb = &t->sb;

	sb_reset(sb);
	if (t->editing)
		sb_printf(sb, "filter: %s_", t->filter);
	else if (t->help)
		sb_puts(sb, "sort: o t O T n 1-9 < >  i invert  p pause  r reset  / filter  q quit");
	else if (!top_table_totals(t->tab)->seconds && !t->paused)
		sb_puts(sb, "waiting for the first update ...   ? keys   q quit");
	else
		sb_printf(sb, "%zu of %zu functions%s%s   ? keys   q quit", shown, rows,
			  t->filter[0] ? "   filter: " : "", t->filter);
	top_screen_line(t->scr, y, sb_str(sb), t->editing ? TOP_ATTR_BOLD : TOP_ATTR_PLAIN);
}

static void draw(struct top *t)
{
	const struct top_row **rows;
	struct top_layout l;
	int height, width, room;
	size_t n, shown;

	top_screen_size(t->scr, &height, &width);
	top_layout_for(width, top_table_per_process(t->tab), &l);
	l.ascii = top_screen_ascii(t->scr);
	/* A sort column the width hid: the nearest visible one. */
	if (!l.col[t->view.sort])
		t->view.sort = top_layout_step(&l, t->view.sort, -1);
	t->view.filter = t->filter;
	n = top_table_rows(t->tab, &t->view, &rows);
	room = height - HEAD_LINES - 1;
	shown = room > 0 ? ((size_t)room < n ? (size_t)room : n) : 0;
	top_screen_begin(t->scr);
	draw_head(t, width);
	sb_reset(&t->sb);
	top_render_head(&l, &t->view, &t->sb);
	top_screen_line(t->scr, HEAD_LINES - 1, sb_str(&t->sb), TOP_ATTR_REVERSE);
	for (size_t i = 0; i < shown; i++) {
		sb_reset(&t->sb);
		top_render_row(t->tab, &l, rows[i], &t->sb);
		top_screen_line(t->scr, HEAD_LINES + (int)i, sb_str(&t->sb), TOP_ATTR_PLAIN);
	}
	if (height > HEAD_LINES)
		draw_foot(t, height - 1, shown, n);
	top_screen_end(t->scr);
	free(rows);
	t->dirty = false;
}

/* ==== Keys ==== */

static void sort_by(struct top *t, enum top_col col)
{
	if (t->view.sort == col)
		return;
	t->view.sort = col;
	t->view.ascending = false;
}

/* A key while the filter is typed: it applies as it is typed. */
static void filter_key(struct top *t, int k)
{
	size_t len = strlen(t->filter);

	if (k == TOP_KEY_ENTER) {
		t->editing = false;
	} else if (k == TOP_KEY_ESCAPE) {
		memcpy(t->filter, t->filter_before, sizeof(t->filter));
		t->editing = false;
	} else if (k == TOP_KEY_BACKSPACE) {
		if (len)
			t->filter[len - 1] = '\0';
	} else if (k >= ' ' && k < 127 && len + 1 < sizeof(t->filter)) {
		t->filter[len] = (char)k;
		t->filter[len + 1] = '\0';
	}
}

static void key(struct top *t, int k, int width)
{
	struct top_layout l;

	top_layout_for(width, top_table_per_process(t->tab), &l);
	l.ascii = top_screen_ascii(t->scr);
	if (t->editing) {
		filter_key(t, k);
		return;
	}
	switch (k) {
	case 'q': case 'Q':
		t->quit = true;
		*t->stop = 1;
		break;
	case 'p': case ' ':
		t->paused = !t->paused;
		break;
	case 'r':
		top_table_reset(t->tab);
		break;
	case 'o': sort_by(t, TOP_COL_OWN_PCT); break;
	case 't': sort_by(t, TOP_COL_TOTAL_PCT); break;
	case 'O': sort_by(t, l.col[TOP_COL_OWN] ? TOP_COL_OWN : TOP_COL_OWN_PCT); break;
	case 'T': sort_by(t, l.col[TOP_COL_TOTAL] ? TOP_COL_TOTAL : TOP_COL_TOTAL_PCT); break;
	case 'n': sort_by(t, TOP_COL_NAME); break;
	case '<': sort_by(t, top_layout_step(&l, t->view.sort, -1)); break;
	case '>': sort_by(t, top_layout_step(&l, t->view.sort, 1)); break;
	case 'i': case 'I':
		t->view.ascending = !t->view.ascending;
		break;
	case '/': case 'f':
		memcpy(t->filter_before, t->filter, sizeof(t->filter));
		t->editing = true;
		break;
	case '?': case 'h':
		t->help = !t->help;
		break;
	default:
		if (k >= '1' && k <= '9' && top_layout_col_at(&l, k - '1') >= 0)
			sort_by(t, (enum top_col)top_layout_col_at(&l, k - '1'));
		break;
	}
}

/* ==== Messages while the screen is up ==== */

/* What is logged while the screen is up (a process that exited, a
 * warning) would tear it: stderr goes to a memory file meanwhile, and is
 * written out once the terminal is back.  Returns the saved stderr, or
 * -1 (then messages go to the screen, as before). */
static int hold_stderr(void)
{
	int mem = memfd_create("luabpfprof-top-log", MFD_CLOEXEC);
	int saved = mem >= 0 ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;

	if (saved < 0 || dup2(mem, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		saved = -1;
	}
	if (mem >= 0)
		close(mem);
	return saved;
}

static void release_stderr(int saved)
{
	char buf[4096];
	ssize_t n;

	if (saved < 0)
		return;
	fflush(stderr);
	lseek(STDERR_FILENO, 0, SEEK_SET);
	while ((n = read(STDERR_FILENO, buf, sizeof(buf))) > 0)
		if (write(saved, buf, (size_t)n) != n)
			break;
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/* ==== The consumer ==== */

static void top_tick(void *ctx, struct session *s, const struct session_clock *c)
{
	struct top *t = ctx;
	int k, rows, cols;

	(void)s;
	(void)c;
	while ((k = top_screen_key(t->scr)) != TOP_KEY_NONE && !t->quit) {
		top_screen_size(t->scr, &rows, &cols);
		if (k != TOP_KEY_RESIZE)
			key(t, k, cols);
		t->dirty = true;
	}
	if (t->dirty && !t->quit)
		draw(t);
}

static void top_ended(void *ctx, struct session *s, enum session_end why)
{
	struct top *t = ctx;

	(void)s;
	t->targets_exited = why == SESSION_TARGETS_EXITED || why == SESSION_CHILD_EXITED;
}

/* An interval: into the table, unless paused (then it is left out). */
static int top_finished(void *ctx, struct session *s, struct profile *p)
{
	struct top *t = ctx;
	struct targets *ts = session_targets(s);

	describe_targets(t, ts);
	measure_cpu(t, ts, clock_ns(CLOCK_MONOTONIC));
	if (t->paused)
		return 0;
	top_table_add(t->tab, p);
	if (!t->quit && !*t->stop)
		draw(t);
	return 0;
}

int top_cmd_run(const struct options *o, struct session *s, volatile sig_atomic_t *stop)
{
	struct top t = {
		.o = o, .stop = stop, .view = { .sort = TOP_COL_OWN_PCT },
	};
	struct session_consumer sc = {
		.ctx = &t, .tick = top_tick, .ended = top_ended, .finished = top_finished,
	};
	struct targets *ts = session_targets(s);
	char err[256];
	int rc, held;

	t.tab = top_table_new(o->all || o->npids > 1 || o->per_process);
	describe_targets(&t, ts);
	measure_cpu(&t, ts, clock_ns(CLOCK_MONOTONIC));
	install_signals(stop);
	t.scr = top_screen_open(err, sizeof(err));
	if (!t.scr) {
		log_error("%s", err);
		top_table_free(t.tab);
		return 1;
	}
	held = hold_stderr();
	draw(&t);
	rc = session_run(s, &sc);
	top_screen_close(t.scr);
	release_stderr(held);
	if (t.targets_exited && !o->command)
		for (int i = 0; i < targets_count(ts); i++)
			log_info("PID %d (%s) exited", (int)target_pid(targets_at(ts, i)),
				 target_comm(targets_at(ts, i)));
	top_table_free(t.tab);
	sb_free(&t.sb);
	return rc ? 1 : 0;
}
