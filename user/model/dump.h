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

struct dump_local {
	char *name, *value;
};

struct dump_frame {
	char *func;		/* "work", "coroutine.yield", "t.lua:12" (jit.p's 'f') */
	char *chunk;		/* "/abs/t.lua" ('@' dropped), NULL for C */
	int line;		/* current line, -1 unknown */
	int firstline;		/* where the function is defined, -1 for C */
	struct dump_local *locals;
	size_t nlocals;
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
	size_t nframes;
};

/* Counts of what a dump could not read (the target runs meanwhile). */
struct dump_losses {
	uint64_t unreadable;	/* thread objects the walk listed that no longer read as one */
	uint64_t torn;		/* stacks whose frame links ended before the bottom */
	uint64_t cut;		/* stacks deeper than the frames kept */
	uint64_t unknown_frames;/* frames whose prototype did not validate */
	uint64_t bad_links;	/* heap links that ended a list of objects early */
	bool walk_ended;	/* the heap walk's budget ran out: threads may be missing */
	char walk_why[96];
};

struct dump {
	pid_t pid;
	const char *layout;	/* the LuaJIT variant's name */
	uint64_t g;
	struct dump_thread *threads;
	size_t n, cap;
	struct dump_losses loss;
	char *requests_refused;	/* why no coroutine has its request read, or NULL */
};

void dump_init(struct dump *d, pid_t pid, const char *layout, uint64_t g);

/* A new thread at the end (status: a static string). */
struct dump_thread *dump_add_thread(struct dump *d, uint64_t addr, const char *status);

/* A new frame below t's last one. */
struct dump_frame *dump_add_frame(struct dump_thread *t, const char *func, const char *chunk,
				  int line, int firstline);

void dump_add_local(struct dump_frame *f, const char *name, const char *value);

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
