/* luabpfprof: options and orchestration only.  Collect with BPF, drain
 * into the profile model about once a second, render at the end. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ship/agent.h"
#include "base/clock.h"
#include "sample/collector.h"
#include "report/export.h"
#include "report/jpmode.h"
#include "base/log.h"
#include "cli/options.h"
#include "report/output.h"
#include "model/profile.h"
#include "sample/sysscan.h"
#include "sample/targets.h"
#include "report/view_jitp.h"
#include "report/view_tree.h"

#define TICK_NS		100000000ull	/* main loop period */
#define WAIT_TICK_NS	10000000ull	/* ... while a target has no VM yet */
#define CHILD_WAIT_TICK_NS 1000000ull	/* ... a command launched: it may live 0.1 s */
/* A launched command is drained this often in its first second: a short
 * program's memory is gone once it exits, and its frames with it. */
#define YOUNG_DRAIN_NS	4000000ull
#define YOUNG_NS	1000000000ull
/* Kernel maps are drained this often: symbolizing soon after sampling
 * keeps short-lived targets and closures nameable. */
#define DRAIN_NS	200000000ull
#define PROGRESS_NS	1000000000ull
#define EXIT_USAGE	2

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	/* A second Ctrl-C: the user will not wait for the report or flush. */
	if (stop_signal)
		_exit(128 + sig);
	stop_signal = sig;
}

/* The first capability missing for BPF, perf events and reading target
 * memory, or NULL.  Root counts only with its capabilities: a container or
 * setpriv may have dropped them.  CAP_SYS_ADMIN stands in for CAP_BPF and
 * CAP_PERFMON as on kernels before 5.8. */
static const char *missing_capability(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	bool admin;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return "CAP_BPF";
#define HAS_CAP(c) ((data[(c) / 32].effective & (1u << ((c) % 32))) != 0)
	admin = HAS_CAP(CAP_SYS_ADMIN);
	if (!admin && !HAS_CAP(CAP_BPF))
		return "CAP_BPF";
	if (!admin && !HAS_CAP(CAP_PERFMON))
		return "CAP_PERFMON";
	if (!HAS_CAP(CAP_SYS_PTRACE))
		return "CAP_SYS_PTRACE";
#undef HAS_CAP
	return NULL;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* A command held at a pipe until the parent is ready to sample it; a
 * second, close-on-exec pipe carries errno back if exec fails. */
struct launched {
	pid_t pid;
	int go_fd;
	int err_fd;
};

static int launch(char **command, struct launched *l)
{
	int go[2], err[2] = { -1, -1 };

	if (pipe2(go, O_CLOEXEC))
		return -1;
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	l->pid = fork();
	if (l->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		execvp(command[0], command);
		e = errno;
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	if (l->pid < 0) {
		close(go[1]);
		close(err[0]);
		return -1;
	}
	l->go_fd = go[1];
	l->err_fd = err[0];
	return 0;
}

/* Releases the command; returns 0 once it runs, else its exec errno. */
static int release(struct launched *l)
{
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, "g", 1) != 1)
		e = EPIPE;
	close(l->go_fd);
	l->go_fd = -1;
	n = read(l->err_fd, &e, sizeof(e));
	close(l->err_fd);
	l->err_fd = -1;
	return n == sizeof(e) ? e : 0;
}

static void show_progress(const struct profile *p, double elapsed)
{
	const struct profile_stats *st = &p->stats;
	uint64_t lost = st->stack_map_full + st->count_map_full + st->read_fault + st->bad_frame;

	fprintf(stderr, "\r[%6.1fs] %llu samples, %.0f/s, %llu dropped ", elapsed,
		(unsigned long long)st->samples, elapsed > 0 ? (double)st->samples / elapsed : 0.0,
		(unsigned long long)lost);
}

static void print_summary(const struct profile *p, unsigned hz)
{
	const struct profile_stats *st = &p->stats;

	fprintf(stderr,
		"luabpfprof: %llu samples in %.1f s at %u Hz (%llu outside Lua); "
		"unwind: %llu bad frame, %llu truncated, %llu read fault; "
		"lost: %llu stack map full, %llu count map full, %llu no VM yet, %llu unknown frames\n",
		(unsigned long long)st->samples, (double)p->duration_ns / 1e9, hz,
		(unsigned long long)st->host, (unsigned long long)st->bad_frame,
		(unsigned long long)st->truncated, (unsigned long long)st->read_fault,
		(unsigned long long)st->stack_map_full, (unsigned long long)st->count_map_full,
		(unsigned long long)st->no_vm, (unsigned long long)st->sym_unknown);
}

static int render(FILE *out, const struct profile *p, const struct options *o,
		  const struct jp_mode *jp, enum out_format fmt, struct targets *ts)
{
	char title[128];
	struct export_opts eo = {
		.title = title,
		.scope = jp->user_scope ? jp->user_scope : 'F',
		.pathstrip = !jp->full_path,
		.vmstate_frames = o->vmstate_frames,
		.zone_frames = o->zone_frames,
		.icicle = o->icicle,
		.per_process = o->per_process,
	};
	struct view_jitp_opts vo = {
		.open_source = targets_open_source, .ctx = ts, .per_thread = o->per_thread,
		.per_process = o->per_process,
	};
	struct view_tree_opts to;
	char err[200];

	snprintf(title, sizeof(title), "luabpfprof: %s%s, %.1f s at %u Hz",
		 p->nprocs == 1 ? p->procs[0].comm : "several processes",
		 p->nprocs == 1 ? "" : "", (double)p->duration_ns / 1e9, p->hz);

	switch (fmt) {
	case FMT_FOLDED:
		return export_folded(out, p, &eo);
	case FMT_SVG:
		return export_svg(out, p, &eo);
	case FMT_PPROF:
		return export_pprof(out, p, &eo);
	case FMT_SPEEDSCOPE:
		return export_speedscope(out, p, &eo);
	case FMT_TEXT:
		break;
	}
	if (!o->tree)
		return view_jitp_write_opts(out, p, jp, &vo);
	view_tree_opts_init(&to);
	view_tree_opts_from_jp(&to, jp);
	if (view_tree_parse_arg(o->tree, &to, err, sizeof(err))) {
		log_error("%s", err);
		return -1;
	}
	to.max_depth = o->tree_depth;
	to.per_thread = o->per_thread;
	to.per_process = o->per_process;
	to.focus = o->focus;
	return view_tree_write(out, p, &to);
}

/* Samples until the duration ends, a signal arrives or every target
 * exits, draining the kernel maps as it goes. */
static void sample_loop(struct targets *ts, const struct options *o, pid_t child)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	uint64_t next_drain = start + (child > 0 ? YOUNG_DRAIN_NS : DRAIN_NS);
	uint64_t next_progress = start + PROGRESS_NS;
	bool progress = isatty(STDERR_FILENO) && (o->duration == 0 || o->duration > 2);
	struct timespec tick = { 0, TICK_NS };

	while (!stop_signal) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);

		if (o->duration > 0 && (double)(now - start) / 1e9 >= o->duration)
			break;
		if (child > 0 && waitpid(child, NULL, WNOHANG) == child)
			break;
		if (o->all)
			sysscan_poll(ts, now);
		if (!targets_poll(ts, now) && !o->all) {
			for (int i = 0; i < ts->n && child <= 0; i++)
				fprintf(stderr, "luabpfprof: PID %d (%s) exited; reporting what was collected\n",
					(int)ts->t[i].pid, ts->t[i].comm);
			break;
		}
		if (now >= next_drain) {
			targets_drain(ts);
			next_drain = now + (child > 0 && now - start < YOUNG_NS ?
					    YOUNG_DRAIN_NS : DRAIN_NS);
		}
		if (progress && now >= next_progress) {
			show_progress(ts->prof, (double)(now - start) / 1e9);
			next_progress = now + PROGRESS_NS;
		}
		/* A process waiting for its VM (a command just launched) is
		 * looked at often, so its first samples are not lost. */
		tick.tv_nsec = !targets_waiting(ts) ? TICK_NS :
			       child > 0 ? CHILD_WAIT_TICK_NS : WAIT_TICK_NS;
		nanosleep(&tick, NULL);
	}
	if (progress)
		fputc('\n', stderr);
	ts->prof->duration_ns = clock_ns(CLOCK_MONOTONIC) - start;
}

int main(int argc, char **argv)
{
	struct options o;
	struct jp_mode jp;
	struct targets ts = { 0 };
	struct collector_opts co;
	struct collector *col = NULL;
	struct output out = { 0 };
	enum out_format fmt;
	char err[256];
	struct launched cmd = { -1, -1, -1 };
	int rc = 1, e;
	const char *missing;
	bool pipe_closed = false;

	switch (options_parse(argc, argv, &o)) {
	case OPTIONS_EXIT_OK:
		return 0;
	case OPTIONS_ERROR:
		return EXIT_USAGE;
	case OPTIONS_OK:
		break;
	}
	log_is_verbose = o.verbose;
	/* --jp, --tree and -f were checked by the option table. */
	jp = o.jp_mode;
	fmt = o.fmt;
	missing = missing_capability();
	if (missing && geteuid() != 0) {
		log_error("permission denied: luabpfprof needs root (or CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE)");
		return 1;
	}
	if (missing) {
		log_error("permission denied: running as root without %s (dropped by a container or setpriv?); luabpfprof needs CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE",
			  missing);
		return 1;
	}
	install_signals();
	if (output_open(&out, o.output, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	ts.prof = profile_new(o.hz);
	ts.lua_only = o.lua_only;
	ts.keep_root = o.keep_root;
	/* The --jp views keep jit.p's meaning: the running coroutine only. */
	ts.no_stitch = o.no_stitch || (fmt == FMT_TEXT && !o.tree && !o.continuous);
	if (!ts.prof)
		goto cleanup;
	ts.prof->start_ns = clock_ns(CLOCK_REALTIME);
	for (int i = 0; i < o.npids; i++) {
		if (targets_add(&ts, o.pids[i], true, err, sizeof(err))) {
			log_error("%s", err);
			goto cleanup;
		}
	}
	co = (struct collector_opts){ .hz = o.hz, .max_stacks = o.max_stacks,
				      .max_counts = o.max_counts, .max_frames = o.max_frames };
	col = collector_open(&co, err, sizeof(err));
	if (!col) {
		log_error("%s", err);
		goto cleanup;
	}
	targets_attach(&ts, col);
	if (o.all)
		sysscan_add_all(&ts);
	if (o.command) {
		if (launch(o.command, &cmd) ||
		    targets_add(&ts, cmd.pid, false, err, sizeof(err))) {
			log_error("cannot launch %s: %s", o.command[0],
				  cmd.pid < 0 ? strerror(errno) : err);
			goto cleanup;
		}
		/* Release the child only once its samples are being counted. */
		e = release(&cmd);
		if (e) {
			log_error("cannot run %s: %s", o.command[0], strerror(e));
			rc = 127;
			goto cleanup;
		}
	}
	if (o.continuous) {
		rc = agent_run(&o, &ts, col, &stop_signal);
		goto cleanup;
	}
	sample_loop(&ts, &o, cmd.pid);
	/* Notice exits (a launched command that was just reaped) before the
	 * last drain, so their symbols are used as cached, not revalidated
	 * against memory that is gone. */
	targets_poll(&ts, clock_ns(CLOCK_MONOTONIC));
	targets_drain(&ts);
	/* A failed write is reported by output_commit, which knows its
	 * errno.  A reader that stops early (| head) is not an error: say
	 * so, keep the summary and exit 0. */
	if (render(out.f, ts.prof, &o, &jp, fmt, &ts) && !ferror(out.f)) {
		log_error("writing %s failed: %s", o.output ? o.output : "the report",
			  strerror(errno));
		goto cleanup;
	}
	if (output_commit(&out, err, sizeof(err))) {
		if (errno != EPIPE) {
			log_error("%s", err);
			goto cleanup;
		}
		pipe_closed = true;
	}
	if (pipe_closed)
		log_warn("the reader closed the output early (broken pipe): the rest of the report was not written");
	print_summary(ts.prof, o.hz);
	rc = 0;
cleanup:
	if (cmd.go_fd >= 0)
		close(cmd.go_fd);
	if (cmd.err_fd >= 0)
		close(cmd.err_fd);
	if (cmd.pid > 0) {
		kill(cmd.pid, SIGTERM);
		waitpid(cmd.pid, NULL, 0);
	}
	output_abort(&out);
	if (o.all)
		sysscan_free();
	collector_close(col);
	targets_free(&ts);
	profile_free(ts.prof);
	return rc;
}
