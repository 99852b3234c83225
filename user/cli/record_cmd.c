// SPDX-License-Identifier: MIT
/* luabpfprof's default command, record (and top, its live form): the
 * options become a session (user/session/) and its consumer: a report
 * rendered once at the end, the live table, or the continuous agent
 * shipping each interval. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "cli/options.h"
#include "cli/check_cmd.h"
#include "cli/diff_cmd.h"
#include "cli/dump_cmd.h"
#include "cli/heap_cmd.h"
#include "cli/launch.h"
#include "cli/top_cmd.h"
#include "model/group.h"
#include "model/reqlabel.h"
#include "model/profile.h"
#include "model/profile_time.h"
#include "model/timeline.h"
#include "report/export.h"
#include "report/otlp.h"
#include "report/inlined_notes.h"
#include "report/jpmode.h"
#include "report/output.h"
#include "report/view_jit.h"
#include "report/view_jitp.h"
#include "report/view_tree.h"
#include "sample/jitwatch.h"
#include "sample/targets.h"
#include "session/session.h"
#include "ship/agent.h"
#include "cli/record_cmd.h"

#define PROGRESS_NS	1000000000ull	/* on a terminal: one line, rewritten */
/* Without a terminal (a log, CI): a line every few seconds, once a run
 * lasts long enough to wonder whether it is stuck. */
#define LOG_PROGRESS_AFTER_S	10.0
#define LOG_PROGRESS_NS		5000000000ull

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

/* Off-CPU and wall profiles: where the time went, for the whole profile
 * or each thread. */
static void print_time_split(const struct profile *p, bool per_thread)
{
	struct strbuf sb = STRBUF_INIT;
	struct time_split t;
	struct profile_section *secs = NULL;
	size_t n = per_thread ? profile_sections(p, SECTION_THREAD, &secs) : 0;

	for (size_t i = 0; i < n; i++) {
		profile_time_split(p, secs[i].pid, secs[i].tid, &t);
		sb_truncate(&sb, 0);
		profile_time_summary(p, &t, &sb);
		fprintf(stderr, "luabpfprof: PID %u TID %u: %s\n", secs[i].pid, secs[i].tid,
			sb_str(&sb));
	}
	free(secs);
	profile_time_split(p, 0, 0, &t);
	sb_truncate(&sb, 0);
	profile_time_summary(p, &t, &sb);
	fprintf(stderr, "luabpfprof: %s\n", sb_str(&sb));
	sb_free(&sb);
}

static void print_summary(const struct profile *p, unsigned hz, bool per_thread)
{
	struct strbuf sb = STRBUF_INIT;

	/* On stderr with the summary, whatever the format: the text report
	 * stays jit.p's byte for byte, and folded stacks have no place for
	 * it. */
	inlined_notes_write(stderr, p, "luabpfprof: ");

	if (profile_unit_ns(p))
		print_time_split(p, per_thread);
	if (p->timeline) {
		timeline_summary(p->timeline, &sb);
		fprintf(stderr, "%s\n", sb_str(&sb));
		sb_truncate(&sb, 0);
	}
	/* Before the summary, which stays the last line. */
	if (log_is_verbose) {
		profile_stats_walk(&p->stats, &sb);
		fprintf(stderr, "%s\n", sb_str(&sb));
		sb_truncate(&sb, 0);
	}
	if (profile_unit_ns(p))
		profile_stats_summary_switches(&p->stats, (double)p->duration_ns / 1e9,
					       p->event == PROFILE_WALL ? hz : 0, &sb);
	else
		profile_stats_summary(&p->stats, (double)p->duration_ns / 1e9, hz, &sb);
	fprintf(stderr, "%s\n", sb_str(&sb));
	if (p->alloc_every) {
		sb_truncate(&sb, 0);
		profile_alloc_summary(p, &sb);
		fprintf(stderr, "%s\n", sb_str(&sb));
	}
	sb_free(&sb);
}

static int render(FILE *out, const struct profile *p, const struct options *o,
		  const struct jp_mode *jp, enum out_format fmt, struct session *sess,
		  const struct jw_result *jit)
{
	char title[128];
	struct export_opts eo = {
		.title = title,
		.scope = jp->user_scope ? jp->user_scope : 'F',
		.pathstrip = !jp->full_path,
		.vmstate_frames = o->vmstate_frames,
		.zone_frames = o->zone_frames,
		.group_frames = o->group || o->by,
		.icicle = o->icicle,
		.per_process = o->per_process,
		.jit = jit,
		.service = o->service,
		.labels = o->labels, .nlabels = o->nlabels,
	};
	struct view_jitp_opts vo = {
		.open_source = session_open_source, .ctx = sess, .per_thread = o->per_thread,
		.per_process = o->per_process,
	};
	struct view_tree_opts to;
	char err[200];

	snprintf(title, sizeof(title), "luabpfprof: %s%s%s%s, %.1f s at %u Hz",
		 p->nprocs == 1 ? p->procs[0].comm : "several processes",
		 p->event == PROFILE_CPU ? "" : ", ",
		 p->event == PROFILE_OFFCPU ? "off-CPU time" :
		 p->event == PROFILE_WALL ? "wall-clock time" : "",
		 p->nprocs == 1 ? "" : "", (double)p->duration_ns / 1e9, p->hz);

	switch (fmt) {
	case FMT_FOLDED:
		return export_folded(out, p, &eo);
	case FMT_SVG:
		return export_svg(out, p, &eo);
	case FMT_PPROF:
		return export_pprof(out, p, &eo);
	case FMT_OTLP:
		return export_otlp(out, p, &eo);
	case FMT_SPEEDSCOPE:
		return export_speedscope(out, p, &eo);
	case FMT_CHROME:
		return export_chrome(out, p, &eo);
	case FMT_SPEEDSCOPE_EVENTED:
		return export_speedscope_evented(out, p, &eo);
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

/* ==== The one-shot report: a session consumer ==== */

struct oneshot {
	const struct options *o;
	const struct jp_mode *jp;
	enum out_format fmt;
	struct output *out;
	enum { PROGRESS_NONE, PROGRESS_TTY, PROGRESS_LOG } progress;
	uint64_t next_progress;
	pid_t child;
	int rc;
	struct jitwatch *jw;	/* --jit */
};

/* Exit status when --fail-if-interpreted finds hot code interpreted. */
#define EXIT_JIT_GATE	3

static void oneshot_tick(void *ctx, struct session *s, const struct session_clock *c)
{
	struct oneshot *os = ctx;
	const struct profile_stats *st = &c->prof->stats;
	uint64_t start = c->now_ns - (uint64_t)(c->elapsed_s * 1e9);

	if (os->jw)
		jitwatch_poll(os->jw, session_targets(s));
	if (os->progress == PROGRESS_NONE)
		return;
	if (!os->next_progress)
		os->next_progress = os->progress == PROGRESS_TTY ? start + PROGRESS_NS :
				    start + (uint64_t)(LOG_PROGRESS_AFTER_S * 1e9);
	if (c->now_ns < os->next_progress)
		return;
	fprintf(stderr, "%s[%6.1fs] %llu samples, %.0f/s, %llu dropped%s",
		os->progress == PROGRESS_TTY ? "\r" : "", c->elapsed_s,
		(unsigned long long)st->samples,
		c->elapsed_s > 0 ? (double)st->samples / c->elapsed_s : 0.0,
		(unsigned long long)profile_stats_lost(st),
		os->progress == PROGRESS_TTY ? " " : "\n");
	os->next_progress = c->now_ns + (os->progress == PROGRESS_TTY ? PROGRESS_NS :
					  LOG_PROGRESS_NS);
}

static void oneshot_ended(void *ctx, struct session *s, enum session_end why)
{
	struct oneshot *os = ctx;
	struct targets *ts = session_targets(s);

	if (why == SESSION_TARGETS_EXITED && os->child <= 0) {
		for (int i = 0; i < targets_count(ts); i++) {
			struct target *t = targets_at(ts, i);

			log_info("PID %d (%s) exited; reporting what was collected",
				 (int)target_pid(t), target_comm(t));
		}
	}
	if (os->progress == PROGRESS_TTY && os->next_progress)
		fputc('\n', stderr);
}

/* --jit: the JIT health report into out (the text report, or stderr
 * beside another format); the gate's verdict on stderr.  Returns 0, 1
 * when writing failed, or EXIT_JIT_GATE. */
static int jit_report(struct oneshot *os, const struct jw_result *r, const struct profile *p,
		      FILE *out)
{
	struct view_jit_opts vo;
	int rc;

	view_jit_opts_init(&vo);
	vo.hot_pct = os->o->jit_hot;
	vo.fail_interp_pct = os->o->fail_interp;
	rc = view_jit_write(out, stderr, p, r, &vo);
	if (rc < 0)
		return 1;
	return rc ? EXIT_JIT_GATE : 0;
}

/* Renders the whole run.  A failed write is reported by output_commit,
 * which knows its errno.  A reader that stops early (| head) is not an
 * error: say so, keep the summary and exit 0. */
static int oneshot_finished(void *ctx, struct session *s, struct profile *p)
{
	struct oneshot *os = ctx;
	const struct options *o = os->o;
	char err[256];
	bool pipe_closed = false;
	int jit_rc = 0;
	/* Read while the targets live: traces and blacklists die with them. */
	const struct jw_result *jit = os->jw ? jitwatch_finish(os->jw, session_targets(s)) : NULL;

	if (o->group)
		profile_group_spec(p, o->group);
	if (o->by)
		profile_by(p, (enum req_field)o->by_field, o->group != NULL);
	if (render(os->out->f, p, o, os->jp, os->fmt, s, jit) && !ferror(os->out->f)) {
		log_error("writing %s failed: %s", o->output ? o->output : "the report",
			  strerror(errno));
		return os->rc = 1;
	}
	if (os->jw)
		jit_rc = jit_report(os, jit, p, os->fmt == FMT_TEXT ? os->out->f : stderr);
	if (output_commit(os->out, err, sizeof(err))) {
		if (errno != EPIPE) {
			log_error("%s", err);
			return os->rc = 1;
		}
		pipe_closed = true;
	}
	if (pipe_closed)
		log_warn("the reader closed the output early (broken pipe): the rest of the report was not written");
	print_summary(p, o->event == PROFILE_ALLOC ? 0 : o->hz, o->per_thread);
	return os->rc = jit_rc;
}

static void session_config_from(const struct options *o, volatile sig_atomic_t *stop,
				struct session_config *c)
{
	*c = (struct session_config){
		.hz = o->hz, .event = o->event, .min_block_ns = o->min_block_ns,
		.offcpu_rate = o->offcpu_rate,
		.alloc_duty = o->event == PROFILE_ALLOC && !o->alloc_exact ? o->alloc_duty : 1,
		.max_stacks = o->max_stacks, .max_counts = o->max_counts,
		.max_frames = o->max_frames, .lua_only = o->lua_only, .keep_root = o->keep_root,
		.native = o->native,
		/* The --jp views keep jit.p's meaning: the running coroutine only. */
		.no_stitch = o->no_stitch || (o->fmt == FMT_TEXT && !o->tree && !o->continuous),
		.pids = o->pids, .npids = o->npids, .all = o->all, .label_from = o->label_from,
		.duration_s = o->duration,
		.every_s = o->top ? o->top_delay : o->continuous ? o->every : 0,
		.stop = stop, .alloc_every = o->event == PROFILE_ALLOC ? options_alloc_every(o) : 0,
		.time_slot_ns = out_format_timeline(o->fmt) ? TIMELINE_SLOT_NS : 0,
		.uri_template = o->uri_template_mode,
	};
}

static void agent_config_from(const struct options *o, volatile sig_atomic_t *stop,
			      struct agent_config *c)
{
	*c = (struct agent_config){
		.what = o->all ? "all LuaJIT processes" : "the given processes",
		.every_s = o->every, .hz = o->hz,
		.out_dir = o->out_dir, .retain_count = o->retain_count,
		.retain_bytes = o->retain_bytes, .push_url = o->push_url,
		.push_api = o->push_api, .service = o->service, .labels = o->labels,
		.nlabels = o->nlabels, .tenant = o->tenant,
		.auth_token_file = o->auth_token_file, .basic_auth_file = o->basic_auth_file,
		.spool_dir = o->spool_dir, .spool_bytes = o->spool_bytes, .log_file = o->log_file,
		.heap = o->heap, .split_wall = o->event_split, .stop = stop,
		.group = o->group,
	};
}

/* Runs the session into the agent until stopped. */
static int run_agent(const struct options *o, struct session *s, volatile sig_atomic_t *stop)
{
	struct agent_config ac;
	struct session_consumer sc;
	struct agent *a;
	int rc;

	agent_config_from(o, stop, &ac);
	a = agent_open(&ac);
	if (!a)
		return 1;
	agent_consumer(a, &sc);
	rc = session_run(s, &sc) ? 1 : 0;
	agent_close(a, rc == 0);
	return rc;
}

static int check_capabilities(void)
{
	const char *missing = missing_capability();

	if (missing && geteuid() != 0) {
		log_error("permission denied: luabpfprof needs root (or CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE)");
		return -1;
	}
	if (missing) {
		log_error("permission denied: running as root without %s (dropped by a container or setpriv?); luabpfprof needs CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE",
			  missing);
		return -1;
	}
	return 0;
}

int record_cmd_run(const struct options *o, volatile sig_atomic_t *stop)
{
	struct jp_mode jp = o->jp_mode;
	struct session_config scfg;
	struct session *sess = NULL;
	struct output out = { 0 };
	enum out_format fmt = o->fmt;
	char err[256];
	struct launched cmd = LAUNCHED_NONE;
	int rc = 1, status;

	if (check_capabilities() || (o->top && top_cmd_check_terminal()))
		return 1;
	if (output_open(&out, o->output, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	session_config_from(o, stop, &scfg);
	options_warn_alloc_exact(o);
	sess = session_open(&scfg, err, sizeof(err));
	if (!sess) {
		log_error("%s", err);
		goto cleanup;
	}
	if (o->command && (rc = launch_start(sess, o->command, o->top, &cmd)) != 0)
		goto cleanup;
	rc = 1;
	if (o->top) {
		rc = top_cmd_run(o, sess, stop);
	} else if (o->continuous) {
		rc = run_agent(o, sess, stop);
	} else {
		struct oneshot os = {
			.o = o, .jp = &jp, .fmt = fmt, .out = &out, .child = cmd.pid, .rc = 1,
			.jw = o->jit ? jitwatch_new() : NULL,
		};
		struct session_consumer sc = {
			.ctx = &os, .tick = oneshot_tick, .ended = oneshot_ended,
			.finished = oneshot_finished,
		};

		if (isatty(STDERR_FILENO))
			os.progress = o->duration == 0 || o->duration > 2 ? PROGRESS_TTY : PROGRESS_NONE;
		else
			os.progress = o->duration == 0 || o->duration > LOG_PROGRESS_AFTER_S ?
				      PROGRESS_LOG : PROGRESS_NONE;
		session_run(sess, &sc);
		rc = os.rc;
		jitwatch_free(os.jw);
	}
cleanup:
	/* A command that ended by itself passes its status on. */
	status = launch_end(&cmd, sess);
	if (rc == 0 && status >= 0)
		rc = launch_exit_code(status);
	output_abort(&out);
	session_close(sess);
	return rc;
}
