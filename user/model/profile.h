/* SPDX-License-Identifier: MIT */
/* The profile model: symbolized samples, the one thing every view and
 * exporter consumes.  Nothing here knows about BPF or target memory.
 */
#ifndef LBP_PROFILE_H
#define LBP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile_stats.h"

enum sym_kind {
	SYM_LUA,		/* Lua function (bytecode prototype) */
	SYM_C,		/* lua_CFunction: cname, else @0x... */
	SYM_FF,		/* builtin fast function: ffname, else [builtin#N] */
	SYM_HOST,		/* synthetic: the [host] pseudo frame */
	SYM_UNKNOWN,		/* synthetic: a frame that could not be symbolized */
	SYM_STATE,		/* synthetic: a thread state, "[waiting for a CPU]" (name) */
	SYM_NATIVE,		/* --native: machine code of a mapped file (cname, map_*) */
};

/* A symbolized frame.  Frames are interned by the profile: equal frames are
 * the same pointer, so exporters can key tables on the address or on id.
 */
struct frame_sym {
	uint32_t id;		/* 1-based, dense, assigned on interning */
	enum sym_kind kind;
	/* Name derived from the caller's bytecode, as lj_debug_funcname gives
	 * it ("work", "__index", "(for generator)"), or NULL when none. */
	const char *name;
	/* LuaJIT chunk name as stored ("@/abs/t.lua", "=stdin", source text
	 * for load(string)), or NULL for C and fast functions. */
	const char *chunk;
	int firstline;		/* -1 for builtin bytecode ([builtin:name]) */
	int line;		/* current line, -1 when unknown */
	uint64_t cfunc;		/* SYM_C: the C function address */
	int ffid;		/* SYM_FF: the fast function id */
	const char *ffname;	/* SYM_FF: "string.gsub", or NULL */
	/* SYM_C: the one name of the function, the same wherever it is
	 * called from ("ngx.say", an ELF symbol, "mod.so+0x1f0"), or NULL. */
	const char *cname;
	/* SYM_NATIVE: cname is the ELF symbol, else "file+0xOFFSET"; cfunc
	 * the function's (or the address's) run-time address.
	 * SYM_C, SYM_NATIVE: the file mapping that holds the function (for pprof's
	 * Mapping), map_file NULL when unknown.  map_build_id is lower-case
	 * hex, or NULL. */
	const char *map_file, *map_build_id;
	uint64_t map_start, map_limit, map_offset;
	/* SYM_C under --native: the C function's own ELF symbol when it
	 * differs from cname (ngx.say's ngx_http_lua_ngx_say), for pprof's
	 * system_name; else NULL. */
	const char *csym;
};

#define PSAMPLE_HOST		(1u << 0)	/* no Lua ran: the [host] key */
#define PSAMPLE_TRUNCATED	(1u << 1)	/* the stack was cut at the bottom */
#define PSAMPLE_OFFCPU		(1u << 2)	/* time off the CPU: blocked ... */
#define PSAMPLE_WAITING		(1u << 3)	/* ... or, with OFFCPU, runnable waiting for a CPU */

/* One aggregated sample class. */
struct sample {
	uint32_t pid, tid;
	int32_t vmstate;	/* g->vmstate: >= 1 trace number, -1 interp, ... */
	uint32_t flags;		/* PSAMPLE_* */
	const char *zone;	/* jit.zone top, NULL when the zone stack is empty */
	/* --group: the key of its outermost frame whose chunk path matches
	 * (model/group.h), NULL for none.  A function of the frames: not part
	 * of the sample class; set by profile_group before a report. */
	const char *group;
	/* nginx workers: the request the sample ran for, interned, as
	 * model/reqlabel.h encodes it (its phase, method, URI path, Host,
	 * server, location, escaped); NULL outside a request.  Part of the
	 * sample class. */
	const char *req;
	/* For vmstate >= 1: where the trace starts, as "chunk:line" in jit.p's
	 * chunk style (e.g. "t.lua:12"), or NULL when unknown. */
	const char *trace_start;
	/* For vmstate >= 1: the Lua functions the trace inlined without a
	 * snapshot of their own, "chunk:name" comma-separated: their time is
	 * counted in the frames around them.  NULL when none. */
	const char *inlined;
	uint32_t nframes;
	const struct frame_sym **frames;	/* frames[0] is the top (callee) */
	/* The weight, in the profile's unit (profile_unit_ns): samples, or
	 * nanoseconds for off-CPU and wall profiles. */
	uint64_t count;
	/* How many events it stands for: samples, or switches off the CPU.
	 * Equal to count in a CPU profile. */
	uint64_t events;
	/* profile_add only: CLOCK_MONOTONIC when it was taken, recorded in
	 * the profile's timeline if it keeps one; 0: no time. */
	uint64_t time_ns;
};

/* What a profile measures.  CPU profiles count samples; off-CPU and wall weigh
 * each stack by nanoseconds: off-CPU by the time threads were switched
 * out there, wall by that plus each on-CPU sample's period, so that a
 * share is a share of elapsed time. */
enum profile_event {
	PROFILE_CPU,
	PROFILE_OFFCPU,
	PROFILE_WALL,
	PROFILE_ALLOC,		/* counts samples, each alloc_every bytes */
};

/* The container a process runs in, from its cgroup and the files its
 * runtime keeps on the host (container/container.h); a NULL field is not
 * known.  Strings are interned by the profile. */
struct proc_container {
	const char *id;			/* 64 hex digits (Docker, containerd, CRI-O, Podman) */
	const char *name;
	const char *pod_uid, *pod_name, *pod_namespace;	/* Kubernetes */
	const char *labels;		/* --label-from: "key=value\n" lines */
};

/* The next of c->labels' "key=value" lines from *at (start at
 * c->labels), split into key and value; false after the last. */
bool proc_label_next(const char **at, char *key, size_t keylen, char *value, size_t valuelen);

struct process_info {
	uint32_t pid;
	char comm[32];
	uint32_t program;	/* the pid its program started in, 0: itself */
	struct proc_container ctr;
};

struct profile {
	struct sample *samples;
	size_t nsamples, cap;
	uint64_t total;		/* sum of counts */
	unsigned hz;		/* sampling frequency */
	enum profile_event event;	/* PROFILE_CPU unless set after profile_new */
	uint64_t alloc_every;	/* -e alloc: bytes a sample stands for; 0: CPU time */
	/* -e alloc: the share of the time the allocator probe was attached
	 * (0 or 1: all of it); a sample stands for alloc_every / alloc_duty
	 * bytes (profile_alloc_bytes). */
	double alloc_duty;
	/* Off-CPU: the share of switches out walked (0 or 1: all); their
	 * times and counts are already weighed by its inverse. */
	double offcpu_rate;
	uint64_t start_ns;	/* CLOCK_REALTIME at the start */
	uint64_t duration_ns;
	struct profile_stats stats;
	struct process_info *procs;
	size_t nprocs;
	struct frame_table *frames;	/* interned frames */
	struct str_pool *strings;	/* interned strings */
	struct sample_index *index;	/* sample class -> samples[] */
	struct timeline *timeline;	/* model/timeline.h; NULL unless kept */
};

struct profile *profile_new(unsigned hz);
/* An empty profile of the same kind: rate, event and their weighting. */
struct profile *profile_new_like(const struct profile *like);
/* -e alloc: the bytes one sample stands for, scaled by the probe's duty. */
uint64_t profile_alloc_bytes(const struct profile *p);
void profile_free(struct profile *p);

/* Interns a string; the result lives as long as the profile. */
const char *profile_str(struct profile *p, const char *s);

/* Interns a frame (its strings are interned too); returns the stable copy. */
const struct frame_sym *profile_frame(struct profile *p, const struct frame_sym *f);

/* Number of interned frames; profile_frame_at(p, id) for id in 1..n. */
uint32_t profile_nframes(const struct profile *p);
const struct frame_sym *profile_frame_at(const struct profile *p, uint32_t id);

/* Whether counts are nanoseconds (off-CPU and wall), not samples. */
static inline bool profile_unit_ns(const struct profile *p)
{
	return p->event == PROFILE_OFFCPU || p->event == PROFILE_WALL;
}

/* "cpu", "off-cpu", "wall" or "alloc". */
const char *profile_event_name(enum profile_event e);

/* Adds the sample's count to its class; equal classes are merged.  The
 * frames must come from profile_frame() of the same profile.  A sample
 * with a time_ns goes on the profile's timeline too, if it keeps one. */
int profile_add(struct profile *p, const struct sample *s);

/* How a report is cut into sections.  By default the processes of one
 * program (a process and the children it forked that run the same
 * executable: nginx's master and workers) are one section, and unrelated
 * programs get one each, whatever their names. */
enum section_by {
	SECTION_PROGRAM,	/* one per program (default) */
	SECTION_PROCESS,	/* one per pid (--per-process) */
	SECTION_THREAD,		/* one per pid and tid (--per-thread) */
};

/* A section of a report: the whole profile, one program, one process, or
 * one thread. */
struct profile_section {
	bool all;
	enum section_by by;
	uint32_t pid, tid;	/* SECTION_PROGRAM: the pid the program started in */
	uint32_t npids;		/* SECTION_PROGRAM: how many processes */
	uint32_t member;	/* SECTION_PROGRAM: the lowest of their pids */
};

/* The sections the views print, sorted by pid (and tid): one for all when
 * the profile holds a single program (SECTION_PROGRAM) or process
 * (SECTION_PROCESS).  Returns the count; *out is malloc'd. */
size_t profile_sections(const struct profile *p, enum section_by by,
			struct profile_section **out);

/* The pid that pid's program started in (profile_set_program), or pid. */
uint32_t profile_program_pid(const struct profile *p, uint32_t pid);

/* Records that pid belongs to the program started in root (sample/). */
void profile_set_program(struct profile *p, uint32_t pid, uint32_t root);

/* The comm of a program's processes (root may not be one of them). */
const char *profile_program_comm(const struct profile *p, uint32_t root);

bool profile_section_has(const struct profile *p, const struct profile_section *sec,
			 const struct sample *s);

/* "=== PID 12 (comm) ===", "=== PID 12 TID 13 (comm) ===", or for a
 * program of several processes "=== PID 12 (nginx), 3 processes ==="
 * where 12 is the pid the program started in.  A program seen in one
 * process only is headed by that process's own pid. */
void profile_section_title(const struct profile *p, const struct profile_section *sec,
			   char *buf, size_t len);

void profile_set_comm(struct profile *p, uint32_t pid, const char *comm);
const char *profile_comm(const struct profile *p, uint32_t pid);

/* Records pid's container (after profile_set_comm); its strings are
 * interned.  profile_container gives NULL when no field is known. */
void profile_set_container(struct profile *p, uint32_t pid, const struct proc_container *c);
const struct proc_container *profile_container(const struct profile *p, uint32_t pid);

#endif
