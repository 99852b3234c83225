/* Continuous mode: back-to-back intervals, one delta profile per process
 * (or per --service) each, to rolling files and/or an HTTP backend.
 *
 * The kernel maps are drained with delete semantics, so every drain is a
 * delta.  At an interval boundary the collector is drained into the
 * interval's profile and ts->prof is swapped for a fresh one: a sample is
 * counted in exactly one interval and no time falls between two.
 */
#define _GNU_SOURCE
#include "ship/agent.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "sample/collector.h"
#include "report/export.h"
#include "base/log.h"
#include "cli/options.h"
#include "model/profile.h"
#include "model/profile_split.h"
#include "ship/push.h"
#include "ship/shipper.h"
#include "ship/sink_files.h"
#include "ship/spool.h"
#include "base/strbuf.h"
#include "sample/sysscan.h"
#include "sample/targets.h"

#define TICK_NS		100000000ull	/* loop period */
#define DRAIN_NS	200000000ull	/* as in main.c: symbolize soon after sampling */
#define FLUSH_TIMEOUT_S	10.0		/* delivery time left at shutdown */
#define CONNECT_TIMEOUT_S 5
#define REQUEST_TIMEOUT_S 15
#define MAX_BACKOFF_S	30.0
#define SECRET_MAX	4096

struct agent {
	const struct options *o;
	struct targets *ts;
	struct collector *col;
	struct sink_files *files;
	struct shipper *shipper;
	enum push_api api;
	struct push_label labels[34];	/* --label ones, then pid */
	int nlabels;
	char *label_copy[32];
	struct profile_stats prev;	/* cumulative kernel counters at the last cut */
	uint64_t start_mono, start_real;	/* of the current interval */
	uint64_t intervals, profiles, samples;
	uint64_t bpf_ns, bpf_cnt, cpu_us;	/* at the last cut, for overhead */
	struct strbuf gz;
};

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

	for (int i = 0; i < a->o->nlabels; i++) {
		char *kv;

		if (push_label_check(a->o->labels[i], err, sizeof(err))) {
			log_error("%s", err);
			return -1;
		}
		kv = strdup(a->o->labels[i]);
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
	const struct options *o = a->o;
	char bearer[SECRET_MAX], basic[SECRET_MAX], err[300];
	struct push_client_opts po = {
		.url = o->push_url, .tenant = o->tenant,
		.connect_timeout_s = CONNECT_TIMEOUT_S, .timeout_s = REQUEST_TIMEOUT_S,
	};
	struct push_client *client;
	struct spool *spool;
	double backoff = o->every < MAX_BACKOFF_S ? o->every : MAX_BACKOFF_S;

	a->api = o->push_api_id;	/* checked by the option table */
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
	spool = spool_open(o->spool_dir, o->spool_bytes, err, sizeof(err));
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

/* Encodes one profile and hands it to the sinks. */
static void ship(struct agent *a, const struct profile *p, const char *service, uint32_t pid)
{
	struct export_opts eo = { .scope = 'F', .pathstrip = true };
	struct push_label labels[34];
	char pidstr[16], stem[128];
	struct push_meta m = {
		.service = service, .labels = labels, .nlabels = a->nlabels,
		.from_ns = p->start_ns, .until_ns = p->start_ns + p->duration_ns, .hz = p->hz,
	};
	struct push_req req;

	sb_reset(&a->gz);
	if (pprof_encode(p, &eo, &a->gz)) {
		log_error("cannot encode the profile of %s", service);
		return;
	}
	memcpy(labels, a->labels, (size_t)a->nlabels * sizeof(*labels));
	if (pid) {
		snprintf(pidstr, sizeof(pidstr), "%u", pid);
		labels[m.nlabels].name = "pid";
		labels[m.nlabels++].value = pidstr;
		snprintf(stem, sizeof(stem), "%s-%u", service, pid);
	} else {
		snprintf(stem, sizeof(stem), "%s", service);
	}
	if (a->files)
		sink_files_write(a->files, p->start_ns, stem, a->gz.buf, a->gz.len);
	if (a->shipper) {
		if (push_build(a->api, &m, a->gz.buf, a->gz.len, &req)) {
			log_error("cannot build the request for %s", service);
			return;
		}
		shipper_enqueue(a->shipper, &req);
		push_req_free(&req);
	}
	a->profiles++;
}

/* The cumulative kernel counters at this drain, as the interval's delta. */
static void stats_delta(struct agent *a, struct profile_stats *st)
{
	struct profile_stats cur = *st;

#define DELTA(f) st->f = cur.f >= a->prev.f ? cur.f - a->prev.f : 0
	DELTA(samples);
	DELTA(host);
	DELTA(no_vm);
	DELTA(bad_frame);
	DELTA(truncated);
	DELTA(read_fault);
	DELTA(stack_map_full);
	DELTA(count_map_full);
	DELTA(sym_unknown);
	DELTA(base_regs);
	DELTA(base_jit);
	DELTA(base_L);
	DELTA(trace_pc);
#undef DELTA
	st->stack_lost = cur.stack_lost;	/* counted per profile already */
	a->prev = cur;
}

static void ship_interval(struct agent *a, struct profile *p)
{
	char service[64];
	uint32_t *pids;
	size_t npids;

	if (a->o->service) {
		push_service_name(a->o->service, service, sizeof(service));
		if (p->total)
			ship(a, p, service, 0);
		return;
	}
	npids = profile_pids(p, &pids);
	for (size_t i = 0; i < npids; i++) {
		struct profile *one = profile_of_pid(p, pids[i]);

		if (!one) {
			log_error("out of memory splitting the profile of PID %u", pids[i]);
			continue;
		}
		push_service_name(profile_comm(p, pids[i]), service, sizeof(service));
		ship(a, one, service, pids[i]);
		profile_free(one);
	}
	free(pids);
}

/* Ends the current interval at now: drain, swap in a fresh profile, ship. */
static void cut(struct agent *a, uint64_t now_mono)
{
	struct targets *ts = a->ts;
	struct profile *p, *fresh;
	uint64_t run_ns = 0, run_cnt = 0, cpu = own_cpu_us(), before = a->profiles;
	const struct profile_stats *st;

	targets_drain(ts);
	p = ts->prof;
	fresh = profile_new(p->hz);
	if (!fresh) {
		log_error("out of memory: interval %llu merged into the next",
			  (unsigned long long)a->intervals + 1);
		return;
	}
	for (int i = 0; i < ts->n; i++)
		profile_set_comm(fresh, (uint32_t)ts->t[i].pid, ts->t[i].comm);
	p->duration_ns = now_mono - a->start_mono;
	fresh->start_ns = p->start_ns + p->duration_ns;
	ts->prof = fresh;
	a->start_mono = now_mono;
	stats_delta(a, &p->stats);
	a->intervals++;
	a->samples += p->total;
	ship_interval(a, p);

	st = &p->stats;
	collector_prog_stats(a->col, &run_ns, &run_cnt);
	log_verbose("interval %llu (%.1f s): %llu samples (kernel: %llu) in %llu profile(s); lost %llu (%llu bad frame, %llu read fault, %llu stack map full, %llu count map full); CPU: BPF %.1f ms in %llu runs, agent %.1f ms",
		    (unsigned long long)a->intervals, (double)p->duration_ns / 1e9,
		    (unsigned long long)p->total, (unsigned long long)st->samples,
		    (unsigned long long)(a->profiles - before),
		    (unsigned long long)(st->bad_frame + st->read_fault + st->stack_map_full +
					 st->count_map_full),
		    (unsigned long long)st->bad_frame, (unsigned long long)st->read_fault,
		    (unsigned long long)st->stack_map_full, (unsigned long long)st->count_map_full,
		    (double)(run_ns - a->bpf_ns) / 1e6, (unsigned long long)(run_cnt - a->bpf_cnt),
		    (double)(cpu - a->cpu_us) / 1e3);
	if (st->stack_map_full || st->count_map_full)
		log_warn("interval %llu: %llu samples lost to full BPF maps; raise --max-stacks/--max-counts",
			 (unsigned long long)a->intervals,
			 (unsigned long long)(st->stack_map_full + st->count_map_full));
	a->bpf_ns = run_ns;
	a->bpf_cnt = run_cnt;
	a->cpu_us = cpu;
	profile_free(p);
}

static void describe(const struct agent *a)
{
	const struct options *o = a->o;
	struct strbuf s = STRBUF_INIT;

	sb_printf(&s, "continuous: %s, every %g s at %u Hz; ",
		  o->all ? "all LuaJIT processes" : "the given processes", o->every, a->ts->prof->hz);
	if (o->out_dir)
		sb_printf(&s, "files in %s%s", o->out_dir, o->push_url ? ", " : "");
	if (o->push_url)
		sb_printf(&s, "push to %s (%s)%s%s", o->push_url, o->push_api,
			  o->spool_dir ? ", spool " : "", o->spool_dir ? o->spool_dir : "");
	log_info("%s", sb_str(&s));
	sb_free(&s);
}

/* Samples until stopped, cutting intervals on the way. */
static void run_loop(struct agent *a, volatile sig_atomic_t *stop)
{
	const struct options *o = a->o;
	uint64_t every = (uint64_t)(o->every * 1e9), start = a->start_mono;
	uint64_t next_cut = start + every, next_drain = start + DRAIN_NS;
	struct timespec tick = { 0, TICK_NS };

	for (;;) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);

		if (*stop || (o->duration > 0 && (double)(now - start) / 1e9 >= o->duration))
			break;
		if (reopen_log && o->log_file) {
			reopen_log = 0;
			open_log(o->log_file);
		}
		if (o->all)
			sysscan_poll(a->ts, now);
		if (!targets_poll(a->ts, now) && !o->all) {
			log_warn("continuous: every profiled process exited");
			break;
		}
		if (now >= next_cut) {
			cut(a, now);
			while (next_cut <= now)
				next_cut += every;
			next_drain = now + DRAIN_NS;
		} else if (now >= next_drain) {
			targets_drain(a->ts);
			next_drain = now + DRAIN_NS;
		}
		nanosleep(&tick, NULL);
	}
	cut(a, clock_ns(CLOCK_MONOTONIC));
}

int agent_run(const struct options *o, struct targets *ts, struct collector *col,
	      volatile sig_atomic_t *stop)
{
	struct agent a = { .o = o, .ts = ts, .col = col, .gz = STRBUF_INIT };
	struct shipper_stats ss = { 0 };
	struct sigaction sa;
	char err[300];
	int rc = 1;

	if (o->log_file && open_log(o->log_file))
		return 1;
	log_set_timestamps(true);
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		log_error("cannot initialise libcurl");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sighup;
	sigaction(SIGHUP, &sa, NULL);
	if (parse_labels(&a))
		goto cleanup;
	if (o->out_dir) {
		a.files = sink_files_open(o->out_dir, o->retain_count, o->retain_bytes, err,
					  sizeof(err));
		if (!a.files) {
			log_error("%s", err);
			goto cleanup;
		}
	}
	if (o->push_url && open_push(&a))
		goto cleanup;
	describe(&a);
	/* The first interval starts now; what was drained before is dropped
	 * with the old stats baseline. */
	targets_drain(ts);
	a.prev = ts->prof->stats;
	ts->prof->stats = (struct profile_stats){ 0 };
	{
		struct profile *fresh = profile_new(ts->prof->hz);

		if (!fresh)
			goto cleanup;
		for (int i = 0; i < ts->n; i++)
			profile_set_comm(fresh, (uint32_t)ts->t[i].pid, ts->t[i].comm);
		profile_free(ts->prof);
		ts->prof = fresh;
	}
	a.start_mono = clock_ns(CLOCK_MONOTONIC);
	ts->prof->start_ns = clock_ns(CLOCK_REALTIME);
	collector_prog_stats(col, &a.bpf_ns, &a.bpf_cnt);
	a.cpu_us = own_cpu_us();
	run_loop(&a, stop);
	rc = 0;
cleanup:
	if (a.shipper) {
		shipper_stop(a.shipper, FLUSH_TIMEOUT_S, &ss);
		a.shipper = NULL;
	}
	if (rc == 0) {
		struct strbuf s = STRBUF_INIT;

		sb_printf(&s, "continuous: %llu interval(s), %llu profile(s), %llu samples",
			  (unsigned long long)a.intervals, (unsigned long long)a.profiles,
			  (unsigned long long)a.samples);
		if (o->push_url)
			sb_printf(&s, "; push: %llu delivered, %llu refused, %llu dropped (spool full), %llu not delivered%s",
				  (unsigned long long)ss.delivered, (unsigned long long)ss.rejected,
				  (unsigned long long)ss.dropped, (unsigned long long)ss.queued,
				  ss.queued && o->spool_dir ? " (kept in the spool)" : "");
		log_info("%s", sb_str(&s));
		sb_free(&s);
	}
	sink_files_close(a.files);
	for (int i = 0; i < o->nlabels; i++)
		free(a.label_copy[i]);
	sb_free(&a.gz);
	if (o->all)
		sysscan_free();
	curl_global_cleanup();
	return rc;
}
