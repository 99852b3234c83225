/* SPDX-License-Identifier: MIT */
/* What `dump` found in one VM: every thread and coroutine with its frames
 * (function, chunk, current line) and, with --locals, each frame's named
 * locals as short texts; and what could not be read.  Built by the
 * command from target memory (heap/dump_thread.h) and the symbolizer,
 * written by report/dump_out.c.  Owns its strings. */
#ifndef LBP_DUMP_H
#define LBP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/hashidx.h"

/* What one dump may hold, whatever the target claims (a hostile 8 MB
 * target had 60 KB chunk names on deep coroutines): each cap counted in
 * dump_losses when hit.  Strings are interned, so a chunk name shared by
 * many frames is held once. */
#define DUMP_STACK_MAX		256		/* frames of one stack, from the top */
#define DUMP_NAME_MAX		1024		/* bytes of a name or value, then "..." */
#define DUMP_THREADS_MAX	(256u << 10)	/* coroutines kept */
#define DUMP_FRAMES_MAX		(1u << 20)	/* frames and locals kept, in all */
#define DUMP_BYTES_MAX		(32u << 20)	/* bytes of distinct strings kept */
#define DUMP_OUTPUT_MAX		(64ull << 20)	/* bytes written per VM */

struct dump_local {
	char *name, *value;
};

struct dump_frame {
	char *func;		/* "work", "coroutine.yield", "t.lua:12" (jit.p's 'f') */
	char *chunk;		/* "/abs/t.lua" ('@' dropped), NULL for C */
	int line;		/* current line, -1 unknown */
	int firstline;		/* where the function is defined, -1 for C */
	struct dump_local *locals;
	size_t nlocals, caplocals;
};

/* The nginx request a coroutine serves (user/nginx/ngx_request.h), its
 * strings raw target bytes: escaped on the way out. */
struct dump_request {
	const char *kind;	/* "request", "light thread", "timer", ... (static) */
	const char *phase;	/* "content", ... (static), NULL for none */
	uint64_t r;		/* the ngx_http_request_t: a light thread's names its request */
	char *method, *uri, *host, *server, *location;
	int64_t age_ms;		/* since the request started, -1 unknown */
};

struct dump_thread {
	uint64_t addr;		/* the lua_State */
	struct dump_request *req;	/* NULL: serves no request */
	const char *status;	/* "running", "suspended", "normal", "dead", "idle" */
	bool main, current, fresh, torn, cut;
	struct dump_frame *frames;	/* frames[0] is the top */
	size_t nframes, capframes;
};

/* Counts of what a dump could not read: first what the target did (it
 * runs meanwhile, or its heap is damaged), then what our own limits cut,
 * each said apart so a report never blames the process for a limit. */
struct dump_losses {
	uint64_t unreadable;	/* thread objects the walk listed that no longer read as one */
	uint64_t torn;		/* stacks whose frame links ended before the bottom */
	uint64_t unknown_frames;/* frames whose prototype did not validate */
	uint64_t bad_links;	/* heap links that ended a list of objects early */
	uint64_t cycles;	/* the heap's object list looped back: objects after it unseen */
	/* Our limits. */
	uint64_t cut;		/* stacks deeper than the frames kept per thread */
	bool walk_ended;	/* the heap walk's budget ran out: threads may be missing */
	char walk_why[96];
	char read_why[96];	/* what ended reading the stacks ("" if nothing did) */
	uint64_t not_read;	/* threads listed but not read once reading ended */
	uint64_t threads_dropped;	/* beyond DUMP_THREADS_MAX */
	uint64_t frames_dropped;	/* frames and locals beyond DUMP_FRAMES_MAX or DUMP_BYTES_MAX */
	uint64_t names_cut;	/* names and values cut to DUMP_NAME_MAX bytes */
	uint64_t unwritten;	/* threads not written: DUMP_OUTPUT_MAX reached */
};

struct dump {
	pid_t pid;
	const char *layout;	/* the LuaJIT variant's name */
	uint64_t g;
	struct dump_thread *threads;
	size_t n, cap;
	struct dump_losses loss;
	char *requests_refused;	/* why no coroutine has its request read, or NULL */
	/* The interned strings every frame and local points into. */
	char **strs;
	uint32_t nstrs, capstrs;
	struct hashidx idx;
	uint64_t str_bytes, items;
};

void dump_init(struct dump *d, pid_t pid, const char *layout, uint64_t g);

/* A new thread at the end (status: a static string); NULL (counted) past
 * DUMP_THREADS_MAX. */
struct dump_thread *dump_add_thread(struct dump *d, uint64_t addr, const char *status);

/* A new frame below t's last one; NULL (counted, t->cut set) past
 * DUMP_FRAMES_MAX or DUMP_BYTES_MAX. */
struct dump_frame *dump_add_frame(struct dump *d, struct dump_thread *t, const char *func,
				  const char *chunk, int line, int firstline);

/* f may be NULL (its frame was dropped): nothing is added. */
void dump_add_local(struct dump *d, struct dump_frame *f, const char *name, const char *value);

/* Gives t a request (kind and phase static, the strings copied). */
struct dump_request *dump_set_request(struct dump_thread *t, const char *kind, const char *phase,
				      uint64_t r, int64_t age_ms);
void dump_request_names(struct dump_request *q, const char *method, const char *uri,
			const char *host, const char *server, const char *location);

/* Orders threads for the report: the running one first, then the main
 * thread, then the others by status (normal, suspended, dead) and address. */
void dump_sort(struct dump *d);

/* Orders threads oldest request first (the one a stuck worker holds),
 * each light thread after its request's entry coroutine; threads with
 * no request after all of them, in dump_sort's order. */
void dump_sort_age(struct dump *d);

void dump_free(struct dump *d);

#endif
