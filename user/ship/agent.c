// SPDX-License-Identifier: MIT
/* Continuous mode: the consumer of a session's back-to-back interval
 * profiles, one delta profile per process (or per --service) each, to
 * rolling files and/or an HTTP backend.
 *
 * The session drains the kernel maps with delete semantics and cuts a
 * fresh profile at each interval boundary, so a sample is counted in
 * exactly one interval and no time falls between two.
 */
#define _GNU_SOURCE
#include "ship/agent.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/strbuf.h"
#include "model/group.h"
#include "model/profile.h"
#include "model/profile_split.h"
#include "report/service_name.h"
#include "report/export.h"
#include "report/heap_profile.h"
#include "report/otlp.h"
#include "sample/targets.h"
#include "session/session.h"
#include "ship/push.h"
#include "ship/shipper.h"
#include "ship/naming.h"
#include "ship/sink_files.h"
#include "ship/spool.h"
#include "heap/heap_walk.h"

#define FLUSH_TIMEOUT_S	10.0		/* delivery time left at shutdown */
#define CONNECT_TIMEOUT_S 5
#define REQUEST_TIMEOUT_S 15
#define MAX_BACKOFF_S	30.0
#define SECRET_MAX	4096
#define HEAP_MIN_SECS	0.05		/* a heap walk gets at least this */

struct agent {
	struct agent_config c;
	struct sink_files *files;
	struct shipper *shipper;
	enum push_api api;
	struct push_label labels[NAMING_MAX_BASE];	/* --label ones */
	int nlabels;
	struct otlp_request *otlp;	/* --push-api otlp: this interval's request */
	char host[256];			/* host.name */
	char *label_copy[32];
	uint64_t intervals, profiles, samples;
	uint64_t bpf_ns, bpf_cnt, cpu_us;	/* at the last cut, for overhead */
	bool costs_taken;			/* bpf_ns .. cpu_us hold a baseline */
	bool curl_ready;
	struct strbuf gz;
};

/* Set by SIGHUP (logrotate), cleared by the next tick that reopens the
 * log: a signal handler can only leave a flag. */
static volatile sig_atomic_t reopen_log;

static void on_sighup(int sig)
{
	(void)sig;
	reopen_log = 1;
}

static uint64_t own_cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* stderr goes to the log file from here on (base/log.h). */
static int open_log(const char *path)
{
	return log_to_file(path);
}

static int parse_labels(struct agent *a)
{
	char err[256];

	for (int i = 0; i < a->c.nlabels; i++) {
		char *kv;

		if (push_label_check(a->c.labels[i], err, sizeof(err))) {
			log_error("%s", err);
			return -1;
		}
		kv = strdup(a->c.labels[i]);
		if (!kv)
			return -1;
		a->label_copy[i] = kv;
		*strchr(kv, '=') = '\0';
		a->labels[a->nlabels].name = kv;
		a->labels[a->nlabels++].value = kv + strlen(kv) + 1;
	}
	return 0;
}

static int read_secret(const char *path, const char *what, char *buf)
{
	char err[300];
	struct stat st;

	if (push_read_secret(path, buf, SECRET_MAX, err, sizeof(err))) {
		log_error("%s: %s", what, err);
		return -1;
	}
	if (!stat(path, &st) && (st.st_mode & 077))
		log_warn("%s: %s is readable by other users", what, path);
	return 0;
}

static int open_push(struct agent *a)
{
	const struct agent_config *o = &a->c;
	char bearer[SECRET_MAX], basic[SECRET_MAX], err[300];
	struct push_client_opts po = {
		.url = o->push_url, .tenant = o->tenant,
		.connect_timeout_s = CONNECT_TIMEOUT_S, .timeout_s = REQUEST_TIMEOUT_S,
	};
	struct push_client *client;
	struct spool *spool;
	struct strbuf dest = STRBUF_INIT;
	double backoff = o->every_s < MAX_BACKOFF_S ? o->every_s : MAX_BACKOFF_S;

	push_api_parse(o->push_api ? o->push_api : "ingest", &a->api);	/* checked by the options */
	if (o->auth_token_file && o->basic_auth_file) {
		log_error("give only one of --auth-token-file and --basic-auth-file");
		return -1;
	}
	if (o->auth_token_file) {
		if (read_secret(o->auth_token_file, "--auth-token-file", bearer))
			return -1;
		po.bearer = bearer;
	}
	if (o->basic_auth_file) {
		if (read_secret(o->basic_auth_file, "--basic-auth-file", basic))
			return -1;
		if (!strchr(basic, ':')) {
			log_error("--basic-auth-file: %s must hold user:password", o->basic_auth_file);
			return -1;
		}
		po.basic = basic;
	}
	client = push_client_new(&po, err, sizeof(err));
	memset(bearer, 0, sizeof(bearer));
	memset(basic, 0, sizeof(basic));
	if (!client) {
		log_error("%s", err);
		return -1;
	}
	/* The spool is keyed by where its requests go: what was spooled for
	 * one backend or tenant is never replayed to another. */
	sb_printf(&dest, "%s %s tenant=%s", o->push_api ? o->push_api : "ingest", o->push_url,
		  o->tenant ? o->tenant : "");
	spool = spool_open(o->spool_dir, dest.buf, o->spool_bytes, err, sizeof(err));
	sb_free(&dest);
	if (!spool) {
		log_error("%s", err);
		push_client_free(client);
		return -1;
	}
	a->shipper = shipper_start(client, spool, o->push_url, backoff, err, sizeof(err));
	if (!a->shipper) {
		log_error("%s", err);
		return -1;
	}
	return 0;
}

/* Hands the encoded profile in a->gz to the sinks. */
static void deliver(struct agent *a, const struct push_meta *m, const char *stem,
		    uint64_t start_ns)
{
	struct push_req req;

	if (a->files)
		sink_files_write(a->files, start_ns, stem, a->gz.buf, a->gz.len);
	if (a->shipper && !a->otlp) {
		if (push_build(a->api, m, a->gz.buf, a->gz.len, &req)) {
			log_error("cannot build the request for %s", m->service);
			return;
		}
		shipper_enqueue(a->shipper, &req);
		push_req_free(&req);
	}
	a->profiles++;
}

/* The backend's profile type of a profile, and the file name's mark:
 * "" for CPU (as before there were others), "-off_cpu", "-wall". */
static enum push_type type_of(const struct profile *p, const char **mark)
{
	switch (p->event) {
	case PROFILE_OFFCPU:
		*mark = "-off_cpu";
		return PUSH_TYPE_OFFCPU;
	case PROFILE_WALL:
		*mark = "-wall";
		return PUSH_TYPE_WALL;
	case PROFILE_CPU:
	case PROFILE_ALLOC:	/* refused with --continuous (cli/options_combine.c) */
		break;
	}
	*mark = "";
	return PUSH_TYPE_CPU;
}

/* The OTLP resource a process's profiles go under. */
static void resource_of(const struct agent *a, const struct naming *n, const char *comm,
			uint32_t pid, const struct proc_container *ctr, struct otlp_resource *res)
{
	memset(res, 0, sizeof(*res));
	res->service = n->service;
	res->pid = pid;
	res->comm = pid ? comm : NULL;
	res->host = a->host[0] ? a->host : NULL;
	res->ctr = ctr;
}

/* Encodes one profile and hands it to the sinks.  pid 0: the profile
 * of every process under one --service. */
static void ship(struct agent *a, const struct profile *p, uint32_t pid)
{
	struct export_opts eo = { .scope = 'F', .pathstrip = true };
	const struct proc_container *ctr = pid ? profile_container(p, pid) : NULL;
	const char *mark, *comm = profile_comm(p, pid);
	enum push_type type = type_of(p, &mark);
	struct naming n;
	struct naming_in in = {
		.service = a->c.service, .comm = comm, .pid = pid, .ctr = ctr,
		.labels = a->labels, .nlabels = a->nlabels, .mark = mark,
	};
	struct push_meta m = {
		.type = type, .service = n.service, .labels = n.labels,
		.from_ns = p->start_ns, .until_ns = p->start_ns + p->duration_ns, .hz = p->hz,
	};
	struct otlp_resource res;

	naming_fill(&n, &in);
	m.nlabels = n.nlabels;
	sb_reset(&a->gz);
	if ((a->files || !a->otlp) && pprof_encode(p, &eo, &a->gz)) {
		log_error("cannot encode the profile of %s", n.service);
		return;
	}
	if (a->otlp) {
		resource_of(a, &n, comm, pid, ctr, &res);
		otlp_add_profile(a->otlp, &res, p, &eo);
	}
	deliver(a, &m, n.stem, p->start_ns);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --heap: each target's heap as it is at the interval's end, idle or not,
 * as service "<service>.heap" with a pid label.  The heaps share a
 * quarter of the interval, each its part of what is left: a target whose
 * heap claims more gets a partial profile, and the next interval of every
 * process still starts on time. */
static void ship_heaps(struct agent *a, struct session *sess, const struct profile *p)
{
	struct targets *ts = session_targets(sess);
	uint64_t at = p->start_ns + p->duration_ns;
	double until = mono_s() + a->c.every_s / 4;

	for (int i = 0; ts && i < targets_count(ts) && !(a->c.stop && *a->c.stop); i++) {
		struct target *t = targets_at(ts, i);
		char why[160];
		pid_t pid = target_pid(t);
		const struct proc_container *ctr = profile_container(p, (uint32_t)pid);
		struct naming n;
		struct naming_in in = {
			.service = a->c.service, .comm = target_comm(t), .pid = (uint32_t)pid,
			.ctr = ctr, .labels = a->labels, .nlabels = a->nlabels, .mark = "-heap",
			.suffix = ".heap",
		};
		struct push_meta m = {
			.service = n.service, .labels = n.labels,
			.from_ns = at, .until_ns = at, .hz = p->hz,
		};
		struct otlp_resource res;
		struct mem_reader *mem = NULL;
		struct symbolizer *sym;
		const struct lj_vm *vm = target_vm_at(t, 0, &sym, &mem);
		struct heap_limits lim;
		double share = (until - mono_s()) / (targets_count(ts) - i);
		int rc;

		/* The first VM: a host with several ships its main one. */
		if (target_exited(t) || !vm || !mem)
			continue;
		naming_fill(&n, &in);
		m.nlabels = n.nlabels;
		resource_of(a, &n, target_comm(t), (uint32_t)pid, ctr, &res);
		sb_reset(&a->gz);
		heap_limits_for(pid, share > HEAP_MIN_SECS ? share : HEAP_MIN_SECS, a->c.stop, &lim);
		rc = heap_profile(mem, vm, &lim, a->files || !a->otlp ? &a->gz : NULL, a->otlp, &res,
				  why, sizeof(why));
		if (rc < 0) {
			log_verbose("PID %d: no heap profile: %s", (int)pid, why);
			continue;
		}
		if (rc > 0)
			log_verbose("PID %d: partial heap profile: %s", (int)pid, why);
		deliver(a, &m, n.stem, at);
	}
}

/* --push-api otlp: the interval's profiles go as one request. */
static void flush_otlp(struct agent *a)
{
	struct strbuf body = STRBUF_INIT;
	struct push_req req;

	if (!a->otlp || !otlp_request_profiles(a->otlp))
		return;
	otlp_request_encode(a->otlp, &body);
	otlp_request_free(a->otlp);
	a->otlp = otlp_request_new();
	if (push_build(PUSH_API_OTLP, NULL, body.buf, body.len, &req))
		log_error("cannot build the OTLP request");
	else
		shipper_enqueue(a->shipper, &req);
	push_req_free(&req);
	sb_free(&body);
}

static void ship_interval(struct agent *a, struct profile *p)
{
	uint32_t *pids;
	size_t npids;

	/* A fixed --service names the processes' profiles merged. */
	if (a->c.service && !service_is_template(a->c.service)) {
		if (p->total)
			ship(a, p, 0);
		return;
	}
	npids = profile_pids(p, &pids);
	for (size_t i = 0; i < npids; i++) {
		struct profile *one = profile_of_pid(p, pids[i]);

		if (!one) {
			log_error("out of memory splitting the profile of PID %u", pids[i]);
			continue;
		}
		ship(a, one, pids[i]);
		profile_free(one);
	}
	free(pids);
}

/* -e cpu,off-cpu: the CPU and the off-CPU half of a wall interval, each
 * a profile type of its own. */
static void ship_halves(struct agent *a, struct profile *p)
{
	static const enum profile_event halves[] = { PROFILE_CPU, PROFILE_OFFCPU };

	for (size_t i = 0; i < sizeof(halves) / sizeof(halves[0]); i++) {
		struct profile *half = profile_of_event(p, halves[i]);

		if (!half) {
			log_error("out of memory splitting the %s profile", profile_event_name(halves[i]));
			continue;
		}
		if (half->total)
			ship_interval(a, half);
		profile_free(half);
	}
}

/* Samples and switches out: a wall profile's total is nanoseconds. */
static uint64_t profile_events(const struct profile *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++)
		n += p->samples[i].events;
	return n;
}

/* A finished interval: ship it, say what it cost. */
static int on_interval(void *ctx, struct session *sess, struct profile *p)
{
	struct agent *a = ctx;
	uint64_t run_ns = 0, run_cnt = 0, cpu = own_cpu_us(), before = a->profiles;
	uint64_t events = profile_events(p);
	const struct profile_stats *st = &p->stats;
	struct strbuf lost = STRBUF_INIT;

	a->intervals++;
	a->samples += events;
	if (a->c.group)
		profile_group_spec(p, a->c.group);
	if (a->c.split_wall)
		ship_halves(a, p);
	else
		ship_interval(a, p);
	if (a->c.heap)
		ship_heaps(a, sess, p);
	flush_otlp(a);
	session_prog_stats(sess, &run_ns, &run_cnt);
	profile_stats_lost_list(st, &lost);
	log_verbose("interval %llu (%.1f s): %llu samples (kernel: %llu) in %llu profile(s); lost %llu (%s); CPU: BPF %.1f ms in %llu runs, agent %.1f ms",
		    (unsigned long long)a->intervals, (double)p->duration_ns / 1e9,
		    (unsigned long long)events, (unsigned long long)st->samples,
		    (unsigned long long)(a->profiles - before),
		    (unsigned long long)profile_stats_lost(st), sb_str(&lost),
		    (double)(run_ns - a->bpf_ns) / 1e6, (unsigned long long)(run_cnt - a->bpf_cnt),
		    (double)(cpu - a->cpu_us) / 1e3);
	sb_free(&lost);
	if (st->stack_map_full || st->count_map_full)
		log_warn("interval %llu: %llu samples lost to full BPF maps; raise --max-stacks/--max-counts",
			 (unsigned long long)a->intervals,
			 (unsigned long long)(st->stack_map_full + st->count_map_full));
	a->bpf_ns = run_ns;
	a->bpf_cnt = run_cnt;
	a->cpu_us = cpu;
	return 0;
}

/* The first tick sets the overhead baseline; SIGHUP reopens the log. */
static void on_tick(void *ctx, struct session *sess, const struct session_clock *clk)
{
	struct agent *a = ctx;

	(void)clk;
	if (!a->costs_taken) {
		session_prog_stats(sess, &a->bpf_ns, &a->bpf_cnt);
		a->cpu_us = own_cpu_us();
		a->costs_taken = true;
	}
	if (reopen_log && a->c.log_file) {
		reopen_log = 0;
		open_log(a->c.log_file);
	}
}

static void on_end(void *ctx, struct session *sess, enum session_end why)
{
	(void)ctx;
	(void)sess;
	if (why == SESSION_TARGETS_EXITED || why == SESSION_CHILD_EXITED)
		log_warn("continuous: every profiled process exited");
}

static void describe(const struct agent *a)
{
	const struct agent_config *o = &a->c;
	struct strbuf s = STRBUF_INIT;

	sb_printf(&s, "continuous: %s, every %g s at %u Hz; ", o->what, o->every_s, o->hz);
	if (o->out_dir)
		sb_printf(&s, "files in %s%s", o->out_dir, o->push_url ? ", " : "");
	if (o->push_url)
		sb_printf(&s, "push to %s (%s)%s%s", o->push_url, o->push_api,
			  o->spool_dir ? ", spool " : "", o->spool_dir ? o->spool_dir : "");
	log_info("%s", sb_str(&s));
	sb_free(&s);
}

struct agent *agent_open(const struct agent_config *c)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct sigaction sa;
	char err[300];

	if (!a)
		return NULL;
	a->c = *c;
	a->gz = (struct strbuf)STRBUF_INIT;
	if (c->log_file && open_log(c->log_file))
		goto fail;
	log_set_timestamps(true);
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		log_error("cannot initialise libcurl");
		goto fail;
	}
	a->curl_ready = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sighup;
	sigaction(SIGHUP, &sa, NULL);
	if (parse_labels(a))
		goto fail;
	if (c->out_dir) {
		a->files = sink_files_open(c->out_dir, c->retain_count, c->retain_bytes, err,
					   sizeof(err));
		if (!a->files) {
			log_error("%s", err);
			goto fail;
		}
	}
	if (c->push_url && open_push(a))
		goto fail;
	if (a->shipper && a->api == PUSH_API_OTLP)
		a->otlp = otlp_request_new();
	gethostname(a->host, sizeof(a->host) - 1);
	describe(a);
	return a;
fail:
	agent_close(a, false);
	return NULL;
}

void agent_consumer(struct agent *a, struct session_consumer *out)
{
	memset(out, 0, sizeof(*out));
	out->ctx = a;
	out->tick = on_tick;
	out->ended = on_end;
	out->finished = on_interval;
}

void agent_close(struct agent *a, bool ok)
{
	struct shipper_stats ss = { 0 };

	if (!a)
		return;
	if (a->shipper)
		shipper_stop(a->shipper, FLUSH_TIMEOUT_S, &ss);
	if (ok) {
		struct strbuf s = STRBUF_INIT;

		sb_printf(&s, "continuous: %llu interval(s), %llu profile(s), %llu samples",
			  (unsigned long long)a->intervals, (unsigned long long)a->profiles,
			  (unsigned long long)a->samples);
		if (a->c.push_url)
			sb_printf(&s, "; push: %llu delivered, %llu refused, %llu dropped (spool full), %llu not delivered%s",
				  (unsigned long long)ss.delivered, (unsigned long long)ss.rejected,
				  (unsigned long long)ss.dropped, (unsigned long long)ss.queued,
				  ss.queued && a->c.spool_dir ? " (kept in the spool)" : "");
		log_info("%s", sb_str(&s));
		sb_free(&s);
	}
	sink_files_close(a->files);
	otlp_request_free(a->otlp);
	for (int i = 0; i < a->c.nlabels; i++)
		free(a->label_copy[i]);
	sb_free(&a->gz);
	if (a->curl_ready)
		curl_global_cleanup();
	free(a);
}
