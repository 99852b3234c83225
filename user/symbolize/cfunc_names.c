// SPDX-License-Identifier: MIT
/* C-function names: the VM's tables first, then ELF symbols, then the
 * file and link-time address.  A name from the tables is final; a fallback
 * is replaced when a later walk of the tables finds the function (a module
 * required after the first samples). */
#include "symbolize/cfunc_names.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/xalloc.h"
#include "base/log.h"
#include "symbolize/ffnames.h"
#include "symbolize/luanames.h"
#include "proc/elfinfo.h"
#include "proc/procmaps.h"

#define MAX_CNAME	256
#define MAX_BACKOFF	64	/* epochs between walks at most */
#define MAX_FILES	256	/* files remembered per process */

struct cfunc_entry {
	uint64_t addr;
	char *name;
	bool from_table;	/* final: the name Lua code uses */
	unsigned walk;		/* the table walk a fallback name was made after */
	const char *file, *build_id;	/* owned by the file table */
	uint64_t start, limit, offset;
};

/* A mapped file.  Its ELF is opened only while a name is looked up: a
 * profiler of many processes must not hold their files open. */
struct elf_slot {
	char *path;		/* as /proc/PID/maps gives it */
	uint64_t inode;
	char *build_id;
};

struct cfunc_names {
	pid_t pid;
	struct lua_names *ln;
	struct proc_maps maps;
	bool have_maps;
	struct cfunc_entry *entries;	/* by hashidx, keyed by address */
	uint32_t n, cap;
	struct hashidx idx;
	struct elf_slot files[MAX_FILES];
	int nfiles;
	/* Walk pacing: the next epoch a miss may walk, and the back-off. */
	unsigned epoch, next_walk, backoff;
	bool fft_chosen;
	enum fft_table fft;
};

struct cfunc_names *cfn_new(pid_t pid, struct mem_reader *mem, const struct lj_layout *lay,
			    uint64_t g)
{
	struct cfunc_names *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->pid = pid;
	c->ln = luanames_new(mem, lay, g);
	c->backoff = 1;
	/* The maps now, while the process surely lives: its functions stay
	 * nameable from the files after it exits. */
	c->have_maps = pid > 0 && !procmaps_read(pid, &c->maps);
	return c;
}

void cfn_free(struct cfunc_names *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++)
		free(c->entries[i].name);
	free(c->entries);
	hashidx_free(&c->idx);
	for (int i = 0; i < c->nfiles; i++) {
		free(c->files[i].path);
		free(c->files[i].build_id);
	}
	if (c->have_maps)
		procmaps_free(&c->maps);
	luanames_free(c->ln);
	free(c);
}

void cfn_next_epoch(struct cfunc_names *c)
{
	if (c)
		c->epoch++;
}

/* Walks the tables unless a walk was made too recently. */
static void walk_if_due(struct cfunc_names *c, bool found_last_time)
{
	uint64_t t0;
	int n;

	if (luanames_walks(c->ln) && c->epoch < c->next_walk)
		return;
	t0 = clock_ns(CLOCK_MONOTONIC);
	n = luanames_walk(c->ln);
	log_verbose("PID %d: %d function names from the VM's tables in %.1f ms (walk %u)",
		    (int)c->pid, n, (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e6,
		    luanames_walks(c->ln));
	c->backoff = found_last_time ? 1 : (c->backoff * 2 > MAX_BACKOFF ? MAX_BACKOFF : c->backoff * 2);
	c->next_walk = c->epoch + c->backoff;
}

/* Ids whose name in the VM's tables differs from table t's. */
static int disagreements(struct cfunc_names *c, enum fft_table t, int *agree)
{
	int bad = 0;

	*agree = 0;
	for (int id = 2; id < 256; id++) {
		const char *seen = luanames_ff(c->ln, id), *have = ffnames_table(t, id);

		if (!seen)
			continue;
		if (have && !strcmp(seen, have))
			++*agree;
		else
			bad++;
	}
	return bad;
}

/* Picks the family's table, with or without the JIT, that the fast
 * functions found in the VM's tables agree with. */
static void choose_table(struct cfunc_names *c, const struct lj_layout *lay)
{
	enum fft_table with = ffnames_default(lay), without = ffnames_nojit(with);
	int agree_with, agree_without, bad_with, bad_without;

	if (!luanames_walks(c->ln))
		walk_if_due(c, true);
	bad_with = disagreements(c, with, &agree_with);
	bad_without = disagreements(c, without, &agree_without);
	c->fft = bad_without < bad_with ? without : with;
	c->fft_chosen = agree_with || agree_without;
	if (c->fft_chosen)
		log_verbose("PID %d: fast-function ids %s the JIT (%d/%d names disagree)",
			    (int)c->pid, c->fft == with ? "with" : "without",
			    c->fft == with ? bad_with : bad_without, agree_with + bad_with);
}

const char *cfn_ffname(struct cfunc_names *c, const struct lj_layout *lay, int ffid)
{
	const char *name;

	if (!c)
		return ffnames_table(ffnames_default(lay), ffid);
	if (!c->fft_chosen)
		choose_table(c, lay);
	name = ffnames_table(c->fft_chosen ? c->fft : ffnames_default(lay), ffid);
	if (name)
		return name;
	name = luanames_ff(c->ln, ffid);
	if (!name) {
		walk_if_due(c, false);
		name = luanames_ff(c->ln, ffid);
	}
	return name;
}

/* ------------------------------------------------------------------------ */
/* Cache */

static uint64_t entry_hash(const void *ctx, uint32_t e)
{
	return hash_u64(((const struct cfunc_names *)ctx)->entries[e].addr, 0);
}

static bool entry_match(const void *ctx, uint32_t e, const void *key)
{
	return ((const struct cfunc_names *)ctx)->entries[e].addr == *(const uint64_t *)key;
}

static const struct hashidx_ops entry_ops = { entry_hash, entry_match };

/* The cache entry of the C function at addr; *fresh when just made. */
static struct cfunc_entry *cache_entry(struct cfunc_names *c, uint64_t addr, bool *fresh)
{
	uint32_t e;
	size_t hint;

	e = hashidx_find(&c->idx, &entry_ops, c, hash_u64(addr, 0), &addr, &hint);
	*fresh = e == HASHIDX_NONE;
	if (!*fresh)
		return &c->entries[e];
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->entries = xrealloc(c->entries, c->cap * sizeof(*c->entries));
	}
	hashidx_add(&c->idx, hint, c->n);
	memset(&c->entries[c->n], 0, sizeof(*c->entries));
	c->entries[c->n].addr = addr;
	return &c->entries[c->n++];
}

/* ------------------------------------------------------------------------ */
/* ELF fallback */

/* The mapping holding addr; the maps are read again once when it is in
 * none (a module loaded since). */
static const struct map_entry *map_of(struct cfunc_names *c, uint64_t addr)
{
	const struct map_entry *e = c->have_maps ? procmaps_find(&c->maps, addr) : NULL;
	struct proc_maps fresh;

	if (e || c->pid <= 0 || procmaps_read(c->pid, &fresh))
		return e;
	if (c->have_maps)
		procmaps_free(&c->maps);
	c->maps = fresh;
	c->have_maps = true;
	return procmaps_find(&c->maps, addr);
}

/* The ELF of a mapping, opened through map_files (the exact file, across
 * mount namespaces); NULL when unreadable (the process is gone). */
static struct elf_file *open_mapped(struct cfunc_names *c, const struct map_entry *e)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)c->pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	return elf_file_open(path);
}

/* The file table entry for a mapping's file (its build ID read once). */
static struct elf_slot *file_of(struct cfunc_names *c, const struct map_entry *e,
				struct elf_file *ef)
{
	char hex[129];
	struct elf_slot *f;

	for (int i = 0; i < c->nfiles; i++)
		if (c->files[i].inode == e->inode && !strcmp(c->files[i].path, e->path))
			return &c->files[i];
	if (c->nfiles == MAX_FILES)
		return NULL;
	f = &c->files[c->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(e->path);
	if (!f->path)
		return NULL;
	f->inode = e->inode;
	if (ef && !elf_build_id(ef, hex, sizeof(hex)))
		f->build_id = strdup(hex);
	c->nfiles++;
	return f;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ELF symbol, else "file+0xVADDR" (the link-time address, what addr2line
 * takes), else "file+0xOFFSET"; "[C]" outside any file mapping. */
static void name_from_file(struct cfunc_names *c, struct cfunc_entry *ce, char *name, size_t len)
{
	const struct map_entry *e = map_of(c, ce->addr);
	struct elf_file *ef;
	struct elf_slot *f;
	uint64_t off, vaddr;

	if (!e || !map_is_file(e)) {
		snprintf(name, len, "[C]");
		return;
	}
	ef = open_mapped(c, e);
	f = file_of(c, e, ef);
	if (!f) {
		elf_file_close(ef);
		snprintf(name, len, "[C]");
		return;
	}
	off = ce->addr - e->start + e->offset;
	ce->file = f->path;
	ce->build_id = f->build_id;
	ce->start = e->start;
	ce->limit = e->end;
	ce->offset = e->offset;
	if (ef && !elf_offset_to_vaddr(ef, off, &vaddr)) {
		if (elf_symbol_at(ef, vaddr, name, len))
			snprintf(name, len, "%s+0x%llx", base_name(f->path),
				 (unsigned long long)vaddr);
	} else {
		snprintf(name, len, "%s+0x%llx", base_name(f->path), (unsigned long long)off);
	}
	elf_file_close(ef);
}

/* ------------------------------------------------------------------------ */
/* Lookup */

static void entry_fill(struct cfunc_names *c, struct cfunc_entry *ce)
{
	const char *table = luanames_cfunc(c->ln, ce->addr);
	char name[MAX_CNAME];

	if (!table) {
		walk_if_due(c, false);
		table = luanames_cfunc(c->ln, ce->addr);
	}
	if (!ce->file) {
		name_from_file(c, ce, name, sizeof(name));
	} else if (!table) {
		ce->walk = luanames_walks(c->ln);
		return;		/* the fallback stands */
	}
	free(ce->name);
	ce->name = strdup(table ? table : name);
	ce->from_table = table != NULL;
	ce->walk = luanames_walks(c->ln);
}

void cfn_name(struct cfunc_names *c, struct frame_sym *f)
{
	struct cfunc_entry *ce;
	bool fresh;

	if (!c || !f->cfunc)
		return;
	ce = cache_entry(c, f->cfunc, &fresh);
	if (fresh)
		entry_fill(c, ce);
	else if (!ce->from_table && ce->walk != luanames_walks(c->ln)) {
		entry_fill(c, ce);	/* the tables were walked again since */
	} else if (!ce->from_table && c->epoch >= c->next_walk) {
		entry_fill(c, ce);
	}
	f->cname = ce->name;
	f->map_file = ce->file;
	f->map_build_id = ce->build_id;
	f->map_start = ce->start;
	f->map_limit = ce->limit;
	f->map_offset = ce->offset;
}

void cfn_name_frame(struct cfunc_names *c, const struct lj_layout *lay, struct frame_sym *f)
{
	if (f->kind == SYM_C) {
		cfn_name(c, f);
		if (f->cname)
			f->name = NULL;
	} else if (f->kind == SYM_FF) {
		if (!f->ffname)
			f->ffname = cfn_ffname(c, lay, f->ffid);
		/* A call through the FFI (a cdata's __call) is the C function
		 * it calls: named as the call site reads it from ffi.C
		 * (C.corohost_each), the name of its symbol, rather than
		 * "ffi.meta.__call" for every FFI call alike. */
		if (f->ffname && f->name && !strcmp(f->ffname, "ffi.meta.__call"))
			f->ffname = f->name;
		if (f->ffname)
			f->name = NULL;
	}
}
