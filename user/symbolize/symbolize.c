// SPDX-License-Identifier: MIT
/* Frame symbolization: the prototype cache, chunk names and lines; names
 * from the caller's bytecode are in funcname.c. */
#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/cfunc_names.h"
#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/xalloc.h"
#include "luajit/layout.h"
#include "luajit/luaobj.h"
#include "proc/memory.h"
#include "luajit/vmdef.h"
#include "model/frame_fmt.h"
#include "symbolize/symbolizer_int.h"

#define MAX_CHUNKNAME	(64 * 1024)
#define MAX_SIZEBC	(1u << 24)
#define CACHE_LIMIT	(1u << 16)	/* prototypes kept before a flush */
#define CACHE_SWEEP	64		/* epochs a prototype is kept unused */
#define OLDER_MAX	64		/* dead predecessors kept per address */

struct symbolizer *sym_new(struct mem_reader *mem, const struct lj_layout *lay,
			   const struct vmdef *vd)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->mem = mem;
	s->lay = lay;
	s->vd = vd;
	s->epoch = 1;
	return s;
}

/* Frees what an entry owns, leaving the entry itself. */
static void entry_release(struct proto_entry *e)
{
	for (uint32_t i = 0; i < e->nsites; i++)
		free(e->sites[i].name);
	free(e->sites);
	free(e->chunk);
	free(e->bc);
	free(e->lines);
	free(e->varinfo_copy);
	free(e->uvinfo_copy);
	memset(e, 0, sizeof(*e));
}

static void entry_free(struct proto_entry *e)
{
	while (e) {
		struct proto_entry *older = e->older;

		entry_release(e);
		free(e);
		e = older;
	}
}

/* Keeps the prototype e held before another took its address: samples
 * taken before the reuse still carry its fingerprint.  At most OLDER_MAX
 * predecessors are kept, the newest first. */
static void entry_retire(struct symbolizer *s, struct proto_entry *e)
{
	struct proto_entry *old = xmalloc(sizeof(*old)), *p = old;

	s->nolder++;
	*old = *e;
	for (int depth = 1; p->older; depth++, p = p->older)
		if (depth == OLDER_MAX) {
			entry_free(p->older);
			p->older = NULL;
			break;
		}
	memset(e, 0, sizeof(*e));
	e->older = old;
}

static void cache_flush(struct symbolizer *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		entry_free(s->cache[i]);
	free(s->cache);
	s->cache = NULL;
	s->n = s->cap = 0;
	s->nolder = 0;
	hashidx_free(&s->idx);
}

void sym_free(struct symbolizer *s)
{
	if (!s)
		return;
	cache_flush(s);
	cfn_free(s->cfn);
	free(s);
}

static uint64_t cache_entry_hash(const void *ctx, uint32_t e)
{
	return hash_u64(((const struct symbolizer *)ctx)->cache[e]->addr, 0);
}

static bool cache_entry_match(const void *ctx, uint32_t e, const void *key)
{
	return ((const struct symbolizer *)ctx)->cache[e]->addr == *(const uint64_t *)key;
}

static const struct hashidx_ops cache_ops = { cache_entry_hash, cache_entry_match };

/* Frees the prototypes no drain used for CACHE_SWEEP epochs: with
 * prototype churn the cache holds the working set, not every address
 * ever sampled (flat memory in long runs). */
static void cache_sweep(struct symbolizer *s)
{
	uint32_t kept = 0, older = 0;

	hashidx_clear(&s->idx);
	for (uint32_t i = 0; i < s->n; i++) {
		struct proto_entry *e = s->cache[i];

		if (s->epoch - e->used >= CACHE_SWEEP) {
			entry_free(e);
			continue;
		}
		/* Predecessors too: the newest first, so the rest is older. */
		for (struct proto_entry **o = &e->older; *o; o = &(*o)->older) {
			if (s->epoch - (*o)->used >= CACHE_SWEEP) {
				entry_free(*o);
				*o = NULL;
				break;
			}
			older++;
		}
		s->cache[kept] = e;
		hashidx_put(&s->idx, &cache_ops, s, hash_u64(e->addr, 0), kept++);
	}
	s->n = kept;
	s->nolder = older;
}

/* The cached entry for addr, or NULL with *hint set for cache_add. */
static struct proto_entry *cache_find(struct symbolizer *s, uint64_t addr, size_t *hint)
{
	uint32_t e = hashidx_find(&s->idx, &cache_ops, s, hash_u64(addr, 0), &addr, hint);

	return e == HASHIDX_NONE ? NULL : s->cache[e];
}

static void cache_add(struct symbolizer *s, size_t hint, struct proto_entry *e)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->cache = xrealloc(s->cache, s->cap * sizeof(*s->cache));
	}
	hashidx_add(&s->idx, hint, s->n);
	s->cache[s->n++] = e;
}

void sym_next_epoch(struct symbolizer *s)
{
	s->epoch++;
	cfn_next_epoch(s->cfn);
	/* Bounded memory over long runs with prototype churn.  A frozen
	 * cache (the target exited) is all that is left: kept whole. */
	if (s->n + s->nolder > CACHE_LIMIT)
		cache_flush(s);
	else if (!s->frozen && s->epoch % CACHE_SWEEP == 0)
		cache_sweep(s);
}

void sym_set_vm(struct symbolizer *s, uint64_t g)
{
	s->g = g;
}

void sym_set_pid(struct symbolizer *s, pid_t pid)
{
	s->pid = pid;
}

/* One name per C or fast function, wherever it is called from. */
static void name_function(struct symbolizer *s, struct frame_sym *f)
{
	if (!s->cfn && s->pid > 0 && s->g && (f->kind == SYM_C || f->kind == SYM_FF))
		s->cfn = cfn_new(s->pid, s->mem, s->lay, s->g);
	cfn_name_frame(s->cfn, s->lay, f);
}

uint32_t sym_leaf(struct symbolizer *s, const struct lua_frame *frames, struct frame_sym *out,
		  uint32_t n)
{
	const char *ff;

	if (n < 2 || out[0].kind != SYM_NATIVE)
		return n;
	if (out[1].kind == SYM_LUA || out[1].kind == SYM_UNKNOWN)
		return n;	/* called from compiled code */
	ff = out[1].kind == SYM_FF ? cfn_ffname(s->cfn, s->lay, (int)(frames[1].id & FRAME_ID_MASK))
				     : NULL;
	if ((frames[0].id & FRAME_CALLEE) && ff && !strcmp(ff, "ffi.meta.__call")) {
		/* An FFI call of the interpreter: the C function its cdata
		 * calls, not its call site's name for it (which, for a tail
		 * call, is its caller's). */
		memmove(out + 1, out + 2, (n - 2) * sizeof(*out));
		return n - 1;
	}
	/* Inside a C function of the VM's tables (os.clock's clock): that
	 * function is the frame, as before. */
	memmove(out, out + 1, (n - 1) * sizeof(*out));
	return n - 1;
}

void sym_freeze(struct symbolizer *s)
{
	s->frozen = true;
}

uint64_t sym_unknown_count(const struct symbolizer *s)
{
	return s->unknown;
}

/* Whether a string referenced by an object is still that object's string,
 * as far as the GC's colours tell.  While the GC sweeps, a dead object is
 * "the other white" until its turn comes, and strings are swept first: a
 * dead prototype can still look whole while its chunk name's memory already
 * holds a new string, which is "the current white".  Two different whites
 * mean that; black (not swept yet) or equal whites do not. */
static bool same_white(uint8_t parent, uint8_t str)
{
	uint8_t a = parent & LJ_GC_WHITES, b = str & LJ_GC_WHITES;

	return !a || !b || a == b;
}

/* Reads the GCstr at str (at most max bytes of it) into buf (max + 1
 * bytes), and its string id into *sid when sid is not NULL: only if it is a
 * string of the same GC colour as the object referencing it
 * (parent_marked), and its header reads the same after its bytes.  Returns
 * the length, or -1. */
int64_t read_gcstr_into(struct symbolizer *s, uint64_t str, uint8_t parent_marked,
			       char *buf, size_t max, uint32_t *sid)
{
	const struct lj_layout *lay = s->lay;
	uint8_t h[32], again[32];
	uint32_t len;

	if (lay->str_data > sizeof(h) || mem_read(s->mem, str, h, lay->str_data) ||
	    h[lay->gct] != LJ_GCT(LJ_TSTR) || !same_white(parent_marked, h[lay->gct - 1]))
		return -1;
	memcpy(&len, h + lay->str_len, 4);
	if (len > max)
		len = (uint32_t)max;
	if (mem_read(s->mem, str + lay->str_data, buf, len) ||
	    mem_read(s->mem, str, again, lay->str_data) || memcmp(h, again, lay->str_data))
		return -1;
	buf[len] = '\0';
	if (sid)
		memcpy(sid, h + lay->str_sid, 4);
	return len;
}

static char *read_gcstr(struct symbolizer *s, uint64_t str, uint8_t parent_marked, size_t max,
			uint32_t *sid)
{
	uint32_t len;
	char *buf;

	if (mem_read(s->mem, str + s->lay->str_len, &len, 4))
		return NULL;
	if (len > max)
		len = (uint32_t)max;
	buf = malloc((size_t)len + 1);
	if (buf && read_gcstr_into(s, str, parent_marked, buf, len, sid) < 0) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/* Reads a prototype header into e (without the lazily loaded parts). */
static int proto_header(struct symbolizer *s, uint64_t pt, struct proto_entry *e)
{
	const struct lj_layout *lay = s->lay;
	uint8_t h[128];

	if (lay->sizeof_proto > sizeof(h) || mem_read(s->mem, pt, h, lay->sizeof_proto))
		return -1;
	if (h[lay->gct] != LJ_GCT(LJ_TPROTO))
		return -1;
	memset(e, 0, sizeof(*e));
	e->addr = pt;
	memcpy(&e->sizebc, h + lay->pt_sizebc, 4);
	memcpy(&e->firstline, h + lay->pt_firstline, 4);
	memcpy(&e->numline, h + lay->pt_numline, 4);
	memcpy(&e->sizept, h + lay->pt_sizept, 4);
	memcpy(&e->sizekgc, h + lay->pt_sizekgc, 4);
	e->sizeuv = h[lay->pt_sizeuv];
	e->marked = h[lay->gct - 1];	/* GCHeader: marked just before gct */
	if (lay->gc64) {
		memcpy(&e->chunk_ptr, h + lay->pt_chunkname, 8);
		memcpy(&e->k, h + lay->pt_k, 8);
		memcpy(&e->lineinfo, h + lay->pt_lineinfo, 8);
		memcpy(&e->uvinfo, h + lay->pt_uvinfo, 8);
		memcpy(&e->varinfo, h + lay->pt_varinfo, 8);
	} else {
		uint32_t v;

		memcpy(&v, h + lay->pt_chunkname, 4);
		e->chunk_ptr = v;
		memcpy(&v, h + lay->pt_k, 4);
		e->k = v;
		memcpy(&v, h + lay->pt_lineinfo, 4);
		e->lineinfo = v;
		memcpy(&v, h + lay->pt_uvinfo, 4);
		e->uvinfo = v;
		memcpy(&v, h + lay->pt_varinfo, 4);
		e->varinfo = v;
	}
	if (!e->sizebc || e->sizebc > MAX_SIZEBC || !e->chunk_ptr)
		return -1;
	/* Freed memory can pass for a prototype: the allocator's free-list
	 * links go over the GC header, and now and then a link's byte falls
	 * on gct == 7.  A live prototype has only white or black mark bits
	 * (never both whites), and its parts lie in its own block in
	 * lj_parse's order: bytecode, GC constants below k, then line info,
	 * upvalue names and variable info above it. */
	if ((e->marked & ~(LJ_GC_WHITES | LJ_GC_BLACK)) || (e->marked & LJ_GC_WHITES) == LJ_GC_WHITES)
		return -1;
	{
		uint64_t ref = lay->gc64 ? 8 : 4, bcend = pt + lay->sizeof_proto + 4ull * e->sizebc;
		uint64_t last = e->k;

		if (e->k < bcend + ref * e->sizekgc)
			return -1;
		if (e->lineinfo && e->lineinfo < last)
			return -1;
		last = e->lineinfo ? e->lineinfo : last;
		if (e->uvinfo && e->uvinfo < last)
			return -1;
		last = e->uvinfo ? e->uvinfo : last;
		if (e->varinfo && e->varinfo < last)
			return -1;
	}
	return 0;
}

/* Whether the prototype still is what e was read from.  A prototype can die
 * while its parts (chunk name, bytecode, lines, debug info) are read one
 * after the other, and their memory be reused by other objects: each part
 * is kept only if the header reads the same after it.  Freeing overwrites
 * the header (allocator links over the GC header), so a part read from a
 * dead prototype is dropped instead of being paired with another's name. */
bool proto_same(struct symbolizer *s, const struct proto_entry *e)
{
	struct proto_entry now;

	return !proto_header(s, e->addr, &now) && now.chunk_ptr == e->chunk_ptr &&
	       now.firstline == e->firstline && now.numline == e->numline &&
	       now.sizebc == e->sizebc && now.k == e->k && now.lineinfo == e->lineinfo &&
	       now.uvinfo == e->uvinfo && now.varinfo == e->varinfo &&
	       now.sizekgc == e->sizekgc && now.sizeuv == e->sizeuv;
}

/* Whether pt is the newest GC object of its VM.  LuaJIT's parser fills a
 * new prototype's header in steps (lj_parse.c fs_finish: chunk name first,
 * lines last) right after allocating it, and no other GC object is
 * allocated meanwhile: a prototype read then may pair its new chunk name
 * with the lines of the prototype that used that memory before. */
static bool proto_newest(struct symbolizer *s, uint64_t pt)
{
	uint64_t root = 0;

	return s->g && !layout_read_ref(s->mem, s->lay, s->g + s->lay->g_gc_root, &root) &&
	       (root & (s->lay->gc64 ? ~0ull : 0xffffffffull)) == pt;
}

/* Reads the chunk name (and with it the fingerprint) of the prototype
 * whose header e holds; e->chunk stays NULL when it may be another's: the
 * header must read the same after it, and the prototype must not be one
 * still under construction. */
static void proto_chunk(struct symbolizer *s, struct proto_entry *e)
{
	e->chunk = read_gcstr(s, e->chunk_ptr, e->marked, MAX_CHUNKNAME, &e->sid);
	if (e->chunk && (!proto_same(s, e) || (!s->captured && proto_newest(s, e->addr)))) {
		free(e->chunk);
		e->chunk = NULL;
	}
	e->fp = frame_fingerprint(e->sid, e->firstline, e->numline);
}

/* The prototype at pt that a sample saw, given its fingerprint fp (0 when
 * not taken); NULL when the memory no longer holds that prototype.  A
 * matching fingerprint needs no read; without one, the cache is
 * revalidated once per epoch. */
static struct proto_entry *proto_lookup(struct symbolizer *s, uint64_t pt, uint32_t fp)
{
	struct proto_entry *e, fresh;
	size_t hint;

	e = cache_find(s, pt, &hint);
	if (e && e->valid && fp && e->fp == fp)
		return e;
	/* A prototype read while it lived, whose memory another took since. */
	for (struct proto_entry *o = e && fp ? e->older : NULL; o; o = o->older)
		if (o->fp == fp)
			return o;
	if (e && (s->frozen || (e->epoch == s->epoch && !fp)))
		return e->valid && !fp ? e : NULL;
	if (proto_header(s, pt, &fresh)) {
		if (e) {
			/* Its samples still name it by their fingerprint. */
			if (e->valid && e->fp && e->chunk) {
				entry_retire(s, e);
				e->addr = pt;
			}
			e->valid = false;
			e->epoch = s->epoch;
		}
		return NULL;
	}
	/* An unchanged header is the cached prototype, unless the chunk name's
	 * string changed under it: with a fingerprint (which differs, or the
	 * cache would have answered), that is checked too. */
	if (e && e->valid && e->chunk_ptr == fresh.chunk_ptr && e->firstline == fresh.firstline &&
	    e->numline == fresh.numline && e->sizebc == fresh.sizebc) {
		uint32_t sid = 0;

		if (!fp) {
			e->epoch = s->epoch;
			return e;
		}
		if (!mem_read(s->mem, e->chunk_ptr + s->lay->str_sid, &sid, 4) && sid == e->sid) {
			e->epoch = s->epoch;
			return NULL;	/* the sample saw another prototype */
		}
	}
	/* New, or the memory now holds another prototype: rebuild. */
	if (!e) {
		e = xcalloc(1, sizeof(*e));
		cache_add(s, hint, e);
	} else if (e->valid && e->fp && e->chunk) {
		entry_retire(s, e);
	} else {
		struct proto_entry *older = e->older;

		e->older = NULL;
		entry_release(e);
		e->older = older;
	}
	fresh.older = e->older;
	*e = fresh;
	e->epoch = s->epoch;
	proto_chunk(s, e);
	e->valid = e->chunk != NULL;
	return e->valid && (!fp || e->fp == fp) ? e : NULL;
}

struct proto_entry *proto_get(struct symbolizer *s, uint64_t pt, uint32_t fp)
{
	struct proto_entry *e = proto_lookup(s, pt, fp);

	if (e)
		e->used = s->epoch;
	return e;
}

static uint64_t proto_bc_addr(const struct symbolizer *s, const struct proto_entry *e)
{
	return e->addr + s->lay->sizeof_proto;
}

const uint32_t *proto_bc(struct symbolizer *s, struct proto_entry *e)
{
	if (!e->bc) {
		e->bc = malloc((size_t)e->sizebc * 4);
		if (e->bc && (mem_read(s->mem, proto_bc_addr(s, e), e->bc, (size_t)e->sizebc * 4) ||
			      !proto_same(s, e))) {
			free(e->bc);
			e->bc = NULL;
		}
	}
	return e->bc;
}

/* Position of the instruction before a saved PC, or -1 when pc is not in
 * this prototype's bytecode. */
int64_t pc_pos(const struct symbolizer *s, const struct proto_entry *e, uint64_t pc)
{
	uint64_t bc = proto_bc_addr(s, e);

	if (!pc || pc <= bc || pc > bc + 4ull * e->sizebc || (pc - bc) & 3)
		return -1;
	return (int64_t)((pc - bc) / 4) - 1;
}

/* A line number, or -1 when garbage in the prototype puts it out of range
 * (computed wide: firstline + delta must not overflow). */
static int line_ok(int64_t line)
{
	return line < 0 || line > INT32_MAX ? -1 : (int)line;
}

int line_at(struct symbolizer *s, struct proto_entry *e, int64_t pos)
{
	int size;

	if (pos < 0)
		return -1;
	if (!e->lineinfo)
		return 0;		/* stripped bytecode */
	if (pos == e->sizebc)
		return line_ok((int64_t)e->firstline + e->numline);
	if (pos == 0)
		return e->firstline;
	size = e->numline < 256 ? 1 : e->numline < 65536 ? 2 : 4;
	/* Copied once: lines stay resolvable after the target exits. */
	if (!e->lines) {
		e->lines = malloc((size_t)(e->sizebc - 1) * size);
		if (e->lines && (mem_read(s->mem, e->lineinfo, e->lines,
					  (size_t)(e->sizebc - 1) * size) ||
				 !proto_same(s, e))) {
			free(e->lines);
			e->lines = NULL;
		}
		if (!e->lines)
			return -1;
	}
	if (size == 1)
		return line_ok((int64_t)e->firstline + ((const uint8_t *)e->lines)[pos - 1]);
	if (size == 2)
		return line_ok((int64_t)e->firstline + ((const uint16_t *)e->lines)[pos - 1]);
	return line_ok((int64_t)e->firstline + ((const uint32_t *)e->lines)[pos - 1]);
}

/* The current PC of a Lua frame, 0 when unknown. */
static uint64_t frame_pc(const struct lua_frame *f)
{
	return f->pc_off ? (f->id & FRAME_ID_MASK) + f->pc_off : 0;
}

void sym_stack(struct symbolizer *s, const struct lua_frame *frames, uint32_t n,
	       struct frame_sym *out)
{
	struct proto_entry *caller = NULL;

	/* Bottom-up, so each frame's caller is already resolved. */
	for (uint32_t i = n; i-- > 0;) {
		struct frame_sym *f = &out[i];
		struct proto_entry *pt = NULL;
		uint64_t id = frames[i].id & FRAME_ID_MASK;

		memset(f, 0, sizeof(*f));
		f->line = -1;
		switch (frames[i].id >> FRAME_KIND_SHIFT) {
		case FRAME_KIND_LUA:
			pt = proto_get(s, id, frames[i].fp);
			if (!pt) {
				f->kind = SYM_UNKNOWN;
				s->unknown++;
				break;
			}
			f->kind = SYM_LUA;
			f->chunk = pt->chunk;
			f->firstline = pt->firstline;
			f->line = line_at(s, pt, pc_pos(s, pt, frame_pc(&frames[i])));
			break;
		case FRAME_KIND_C:
			f->kind = SYM_C;
			f->cfunc = id;
			break;
		case FRAME_KIND_FF:
			f->kind = SYM_FF;
			f->ffid = (int)id;
			f->ffname = vmdef_ffname(s->vd, (int)id);
			break;
		case FRAME_KIND_NATIVE:	/* named by the caller (native_name) */
			f->kind = SYM_NATIVE;
			f->cfunc = id & ~FRAME_CALLEE;
			break;
		default:
			f->kind = SYM_UNKNOWN;
			s->unknown++;
		}
		/* The caller's PC is this frame's call site when the caller is Lua
		 * and called it from Lua (its PC is unknown otherwise). */
		if (f->kind != SYM_UNKNOWN && f->kind != SYM_NATIVE && caller && i + 1 < n)
			f->name = call_site_name(s, caller, frame_pc(&frames[i + 1]));
		name_function(s, f);
		caller = pt;
	}
}
