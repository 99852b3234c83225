/* SPDX-License-Identifier: MIT */
/* The symbolizer's insides, shared by symbolize.c (the prototype cache,
 * chunk names, lines) and funcname.c (names from the caller's bytecode).
 * Nothing outside user/symbolize/ includes this. */
#ifndef LBP_SYMBOLIZER_INT_H
#define LBP_SYMBOLIZER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/hashidx.h"
#include "symbolize/symbolize.h"

struct cfunc_names;
struct lj_layout;
struct mem_reader;
struct vmdef;

#define MAX_NAME	256		/* a derived name, at most */

/* A call site's derived name, cached per prototype. */
struct site_name {
	uint32_t pos;
	char *name;		/* NULL when none is derivable */
};

struct proto_entry {
	uint64_t addr;
	/* What revalidation compares: memory reuse changes at least one. */
	uint64_t chunk_ptr;
	int32_t firstline, numline;
	uint32_t sizebc;
	uint32_t sizept;	/* the whole block, 0 when the layout has no such field */
	uint32_t epoch;		/* last epoch it was validated in */
	uint32_t used;		/* last epoch it named a frame */
	bool valid;
	char *chunk;
	uint32_t *bc;		/* lazily copied bytecode */
	void *lines;		/* lazily copied lineinfo (sizebc - 1 entries) */
	uint64_t k, lineinfo, uvinfo, varinfo;
	uint32_t sizekgc;
	uint8_t sizeuv;
	uint8_t marked;		/* GC mark bits when the header was read */
	uint32_t sid;		/* the chunk name's string id */
	uint32_t fp;		/* frame_fingerprint() of the header and chunk name */
	uint8_t *varinfo_copy, *uvinfo_copy;
	size_t varinfo_len, uvinfo_len;
	struct site_name *sites;
	uint32_t nsites;
	bool prefetched;	/* every part copied while it lived (prefetch.c) */
	/* The prototypes this address held before, newest first: samples
	 * taken then carry their fingerprints (symbolize.c entry_retire). */
	struct proto_entry *older;
};

/* sym_trace_inlined's answer for one trace, kept for one epoch: every
 * sample class (and --native sample) of a trace asks again. */
#define INLINED_CACHE	16
#define INLINED_TEXT	512
struct inlined_memo {
	uint64_t g;
	int traceno;		/* 0: empty */
	uint32_t epoch;
	int n;
	char text[INLINED_TEXT];
};

struct symbolizer {
	struct mem_reader *mem;
	const struct lj_layout *lay;
	const struct vmdef *vd;
	struct proto_entry **cache;	/* cached prototypes */
	uint32_t n, cap;
	uint32_t nolder;		/* predecessors kept (proto_entry.older) */
	struct hashidx idx;		/* over cache, by address */
	uint32_t epoch;
	uint64_t g;		/* global_State, 0 when unknown */
	bool frozen;		/* the target exited: its memory cannot change */
	/* Reading a copy taken while the prototype ran (sym_prefetch): it was
	 * complete then, even if it is its VM's newest object now. */
	bool captured;
	uint64_t unknown;
	char scratch[MAX_NAME];
	pid_t pid;			/* 0: C functions keep their address */
	struct cfunc_names *cfn;	/* made on first use, once g is known */
	struct inlined_memo inlined[INLINED_CACHE];
};

/* symbolize.c */

/* Reads the GCstr at str into buf (at most max bytes, NUL-terminated);
 * returns its length, or -1 when it is not a string of the object whose
 * GC mark bits are parent_marked. */
int64_t read_gcstr_into(struct symbolizer *s, uint64_t str, uint8_t parent_marked, char *buf,
			size_t max, uint32_t *sid);

/* The prototype at pt that a sample with fingerprint fp (0: none) saw,
 * cached, or NULL; marks it used in this epoch. */
struct proto_entry *proto_get(struct symbolizer *s, uint64_t pt, uint32_t fp);

/* The line of instruction pos of e (copying the line table on first use),
 * 0 for stripped bytecode, -1 when unknown. */
int line_at(struct symbolizer *s, struct proto_entry *e, int64_t pos);

/* The end of e's block when its header gives a plausible one, else 0. */
uint64_t proto_block_end(const struct symbolizer *s, const struct proto_entry *e);

/* Whether e's header is still in memory as it was read. */
bool proto_same(struct symbolizer *s, const struct proto_entry *e);

/* e's bytecode, copied on first use; NULL when unreadable or changed. */
const uint32_t *proto_bc(struct symbolizer *s, struct proto_entry *e);

/* Position of the instruction before a saved PC, or -1 when pc is not in
 * e's bytecode. */
int64_t pc_pos(const struct symbolizer *s, const struct proto_entry *e, uint64_t pc);

/* funcname.c */

/* lj_debug_funcname (src/lj_debug.c): the name under which the caller at
 * call site pc called its callee, or NULL. */
const char *call_site_name(struct symbolizer *s, struct proto_entry *caller, uint64_t pc);

/* Copies e's variable and upvalue names, if not yet done. */
void proto_debuginfo(struct symbolizer *s, struct proto_entry *e);

/* The name of e's local variable in slot at instruction pos, or NULL. */
const char *proto_local_name(struct symbolizer *s, struct proto_entry *e, uint32_t pos,
			     uint32_t slot);

/* The name of e's upvalue idx from its debug information, or NULL. */
const char *proto_upvalue_name(struct symbolizer *s, struct proto_entry *e, uint32_t idx);

/* Derives and caches the names of every call site of e (CALL-like
 * instructions), at most max of them; e's bytecode must be copied. */
void call_sites_all(struct symbolizer *s, struct proto_entry *e, uint32_t max);

#endif
