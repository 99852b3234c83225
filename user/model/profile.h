/* The profile model: symbolized samples, the one thing every view and
 * exporter consumes.  Nothing here knows about BPF or target memory.
 */
#ifndef LBP_PROFILE_H
#define LBP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile_stats.h"

enum frame_kind {
	FRAME_LUA,		/* Lua function (bytecode prototype) */
	FRAME_C,		/* lua_CFunction, printed as @0x... */
	FRAME_FF,		/* builtin fast function, [builtin#N] or its vmdef name */
	FRAME_HOST,		/* synthetic: the [host] pseudo frame */
	FRAME_UNKNOWN,		/* synthetic: a frame that could not be symbolized */
};

/* A symbolized frame.  Frames are interned by the profile: equal frames are
 * the same pointer, so exporters can key tables on the address or on id.
 */
struct frame_sym {
	uint32_t id;		/* 1-based, dense, assigned on interning */
	enum frame_kind kind;
	/* Name derived from the caller's bytecode, as lj_debug_funcname gives
	 * it ("work", "__index", "(for generator)"), or NULL when none. */
	const char *name;
	/* LuaJIT chunk name as stored ("@/abs/t.lua", "=stdin", source text
	 * for load(string)), or NULL for C and fast functions. */
	const char *chunk;
	int firstline;		/* -1 for builtin bytecode ([builtin:name]) */
	int line;		/* current line, -1 when unknown */
	uint64_t cfunc;		/* FRAME_C: the C function address */
	int ffid;		/* FRAME_FF: the fast function id */
	const char *ffname;	/* FRAME_FF: name from jit/vmdef.lua, or NULL */
};

#define PSAMPLE_HOST		(1u << 0)	/* no Lua ran: the [host] key */
#define PSAMPLE_TRUNCATED	(1u << 1)	/* the stack was cut at the bottom */

/* One aggregated sample class. */
struct sample {
	uint32_t pid, tid;
	int32_t vmstate;	/* g->vmstate: >= 1 trace number, -1 interp, ... */
	uint32_t flags;		/* PSAMPLE_* */
	const char *zone;	/* jit.zone top, NULL when the zone stack is empty */
	/* For vmstate >= 1: where the trace starts, as "chunk:line" in jit.p's
	 * chunk style (e.g. "t.lua:12"), or NULL when unknown. */
	const char *trace_start;
	uint32_t nframes;
	const struct frame_sym **frames;	/* frames[0] is the top (callee) */
	uint64_t count;
};

struct process_info {
	uint32_t pid;
	char comm[32];
};

struct profile {
	struct sample *samples;
	size_t nsamples, cap;
	uint64_t total;		/* sum of counts */
	unsigned hz;		/* sampling frequency */
	uint64_t start_ns;	/* CLOCK_REALTIME at the start */
	uint64_t duration_ns;
	struct profile_stats stats;
	struct process_info *procs;
	size_t nprocs;
	struct frame_table *frames;	/* interned frames */
	struct str_pool *strings;	/* interned strings */
	struct sample_index *index;	/* sample class -> samples[] */
};

struct profile *profile_new(unsigned hz);
void profile_free(struct profile *p);

/* Interns a string; the result lives as long as the profile. */
const char *profile_str(struct profile *p, const char *s);

/* Interns a frame (its strings are interned too); returns the stable copy. */
const struct frame_sym *profile_frame(struct profile *p, const struct frame_sym *f);

/* Number of interned frames; profile_frame_at(p, id) for id in 1..n. */
uint32_t profile_nframes(const struct profile *p);
const struct frame_sym *profile_frame_at(const struct profile *p, uint32_t id);

/* Adds the sample's count to its class; equal classes are merged.  The
 * frames must come from profile_frame() of the same profile. */
int profile_add(struct profile *p, const struct sample *s);

/* A section of a report: the whole profile (one process, not split by
 * thread), one process, or one thread. */
struct profile_section {
	bool all;
	bool per_thread;
	uint32_t pid, tid;
};

/* The sections the views print, sorted by pid (and tid): one for all when
 * the profile holds a single process and per_thread is off.  Returns the
 * count; *out is malloc'd. */
size_t profile_sections(const struct profile *p, bool per_thread, struct profile_section **out);

bool profile_section_has(const struct profile_section *sec, const struct sample *s);

/* "=== PID 12 (comm) ===" or "=== PID 12 TID 13 (comm) ===". */
void profile_section_title(const struct profile *p, const struct profile_section *sec,
			   char *buf, size_t len);

void profile_set_comm(struct profile *p, uint32_t pid, const char *comm);
const char *profile_comm(const struct profile *p, uint32_t pid);

#endif
