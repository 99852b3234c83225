/* SPDX-License-Identifier: MIT */
/* Continuous mode (--continuous): the consumer of a session's interval
 * profiles.  Each interval is cut into one delta profile per process (or
 * per --service) and handed to the sinks (rolling files, HTTP push).
 * CPU, off-CPU and wall profiles each go as their own profile type. */
#ifndef LBP_AGENT_H
#define LBP_AGENT_H

#include <signal.h>
#include <stdbool.h>

struct agent;
struct session_consumer;

struct agent_config {
	const char *what;		/* "all LuaJIT processes", for the start line */
	double every_s;			/* interval length */
	unsigned hz;
	const char *log_file;		/* stderr goes there; SIGHUP reopens it */
	/* Naming: one service per process comm unless service is given. */
	const char *service;
	int nlabels;
	const char *const *labels;	/* "k=v" */
	/* Rolling pprof files, when out_dir is given. */
	const char *out_dir;
	unsigned retain_count;
	unsigned long long retain_bytes;
	/* Pushes, when push_url is given, with a spool when spool_dir is. */
	const char *push_url;
	const char *push_api;		/* "ingest", "push" or "parca" */
	const char *tenant;
	const char *auth_token_file;
	const char *basic_auth_file;
	unsigned long long spool_bytes;
	const char *spool_dir;
	/* --heap: also a heap profile of each process, each interval, all
	 * of them within a quarter of the interval; *stop (SIGINT, SIGTERM)
	 * ends a walk at its next read. */
	bool heap;
	volatile sig_atomic_t *stop;
	/* -e cpu,off-cpu: the session collects a wall profile and each
	 * interval ships its CPU and off-CPU halves as two profile types. */
	bool split_wall;
	/* --group: each sample's group label (model/group.h), or NULL. */
	const char *group;
};

/* Opens the log, the sinks and the push client; NULL (reported) on error. */
struct agent *agent_open(const struct agent_config *c);

/* The agent as a session consumer (session_run). */
void agent_consumer(struct agent *a, struct session_consumer *out);

/* Flushes what is left to deliver (ok: the run went through, say what
 * was shipped) and frees the agent. */
void agent_close(struct agent *a, bool ok);

#endif
