// SPDX-License-Identifier: MIT
/* Names from the caller's bytecode, by LuaJIT's rules (src/lj_debug.c
 * lj_debug_funcname, lj_debug_slotname): a local variable, a global, a
 * field or method, an upvalue, or a metamethod. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "luajit/bcmode.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "luajit/varinfo.h"
#include "symbolize/symbolizer_int.h"

#define MAX_DEBUGINFO	VARINFO_MAX	/* uvinfo/varinfo bytes read at most */

/* Copies a debug-info block of e (NUL-terminated records of unknown total
 * size): as much as is readable, up to MAX_DEBUGINFO bytes, and no further
 * than the end of e's block when its header gives one. */
static uint8_t *copy_debuginfo(struct symbolizer *s, const struct proto_entry *e, uint64_t addr,
			       size_t *len)
{
	uint8_t *buf = malloc(MAX_DEBUGINFO);
	uint64_t end = proto_block_end(s, e);
	size_t n = 0, max = MAX_DEBUGINFO;

	if (!buf)
		return NULL;
	if (end > addr && end - addr < max)
		max = (size_t)(end - addr);
	while (n < max) {
		size_t chunk = 4096 - ((addr + n) & 4095);

		if (chunk > max - n)
			chunk = max - n;
		if (mem_read(s->mem, addr + n, buf + n, chunk))
			break;
		n += chunk;
	}
	*len = n;
	return buf;
}

/* A copy of a debug-info block, kept only if e's header reads the same
 * after it. */
static uint8_t *checked_copy(struct symbolizer *s, const struct proto_entry *e, uint64_t addr,
			     size_t *len)
{
	uint8_t *buf = copy_debuginfo(s, e, addr, len);

	if (buf && !proto_same(s, e)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

void proto_debuginfo(struct symbolizer *s, struct proto_entry *e)
{
	if (e->varinfo && !e->varinfo_copy)
		e->varinfo_copy = checked_copy(s, e, e->varinfo, &e->varinfo_len);
	if (e->uvinfo && !e->uvinfo_copy)
		e->uvinfo_copy = checked_copy(s, e, e->uvinfo, &e->uvinfo_len);
}

/* Name of the local variable in `slot` live at instruction pos. */
const char *proto_local_name(struct symbolizer *s, struct proto_entry *e, uint32_t pos,
			      uint32_t slot)
{
	if (!e->varinfo)
		return NULL;
	proto_debuginfo(s, e);
	if (!e->varinfo_copy)
		return NULL;
	return varinfo_local(e->varinfo_copy, e->varinfo_len, pos, slot);
}

const char *proto_upvalue_name(struct symbolizer *s, struct proto_entry *e, uint32_t idx)
{
	const uint8_t *p, *end;

	if (!e->uvinfo || idx >= e->sizeuv)
		return NULL;
	proto_debuginfo(s, e);
	if (!e->uvinfo_copy)
		return NULL;
	p = e->uvinfo_copy;
	end = p + e->uvinfo_len;
	/* sizeuv NUL-terminated names back to back. */
	for (; p < end; idx--) {
		const uint8_t *nul = memchr(p, 0, (size_t)(end - p));

		if (!nul)
			return NULL;
		if (idx == 0)
			return (const char *)p;
		p = nul + 1;
	}
	return NULL;
}

/* String constant d of the prototype (kgc grows downwards from k), read
 * now: its GC colour is compared with the prototype's colour now, not with
 * the one cached when its header was read (the GC flips whites between). */
static const char *const_string(struct symbolizer *s, struct proto_entry *e, uint32_t d)
{
	uint64_t ref = 0, ref_size = s->lay->gc64 ? 8 : 4;
	uint8_t marked = 0;

	if (d >= e->sizekgc || mem_read(s->mem, e->addr + s->lay->gct - 1, &marked, 1) ||
	    mem_read(s->mem, e->k - (d + 1) * ref_size, &ref, ref_size) ||
	    read_gcstr_into(s, ref, marked, s->scratch, sizeof(s->scratch) - 1, NULL) < 0)
		return NULL;
	return s->scratch;
}

/* lj_debug_slotname: where did the value in `slot` come from, scanning
 * backwards from instruction pos.  *from_k: the name is a constant string,
 * read from memory now (the debug info is a copy checked when taken). */
static const char *slot_name(struct symbolizer *s, struct proto_entry *e, const uint32_t *bc,
			     uint32_t pos, uint32_t slot, bool *from_k)
{
	const char *name;

restart:
	name = proto_local_name(s, e, pos, slot);
	if (name)
		return name;
	/* Instruction 0 is the function header: never part of the scan. */
	while (pos >= 2) {
		uint32_t ins = bc[--pos];
		uint8_t op = bc_op(ins), ra = bc_a(ins);
		enum bc_amode mode = bc_amode(s->lay, op);

		if (mode == BCM_BASE) {
			if (slot >= ra && (op != BC_KNIL || slot <= bc_d(ins)))
				return NULL;
		} else if (mode == BCM_DST && ra == slot) {
			switch (op) {
			case BC_MOV:
				slot = bc_d(ins);
				goto restart;
			case BC_GGET:
				*from_k = true;
				return const_string(s, e, bc_d(ins));
			case BC_TGETS:
				*from_k = true;
				return const_string(s, e, bc_c(ins));
			case BC_UGET:
				return proto_upvalue_name(s, e, bc_d(ins));
			default:
				return NULL;
			}
		}
	}
	return NULL;
}

/* lj_debug_funcname: the name under which the caller at call site pc
 * called its callee. */
const char *call_site_name(struct symbolizer *s, struct proto_entry *caller, uint64_t pc)
{
	int64_t pos = pc_pos(s, caller, pc);
	const uint32_t *bc;
	const char *name = NULL;
	bool from_k = false;
	enum bc_mm mm;
	uint32_t slot;

	if (pos < 0)
		return NULL;
	for (uint32_t i = 0; i < caller->nsites; i++)
		if (caller->sites[i].pos == pos)
			return caller->sites[i].name;
	bc = proto_bc(s, caller);
	if (!bc)
		return NULL;
	mm = bc_mm(bc_op(bc[pos]));
	if (mm == MM_CALL) {
		slot = bc_a(bc[pos]);
		if (bc_op(bc[pos]) == BC_ITERC)
			slot -= 3;
		name = slot_name(s, caller, bc, (uint32_t)pos, slot, &from_k);
		/* A constant string read from a prototype that died meanwhile
		 * may be another object's, and one that failed to read may
		 * read next time: neither used nor cached. */
		if (from_k && (!name || !proto_same(s, caller)))
			return NULL;
	} else if (mm != MM_NONE) {
		name = bc_mm_name(mm);
	}
	{
		struct site_name *sites = realloc(caller->sites,
						  (caller->nsites + 1) * sizeof(*sites));

		if (!sites)
			return NULL;
		caller->sites = sites;
		sites[caller->nsites].pos = (uint32_t)pos;
		sites[caller->nsites].name = name ? strdup(name) : NULL;
		return sites[caller->nsites++].name;
	}
}


void call_sites_all(struct symbolizer *s, struct proto_entry *e, uint32_t max)
{
	const uint32_t *bc = e->bc;
	uint64_t bc_addr = e->addr + s->lay->sizeof_proto;
	uint32_t n = 0;

	if (!bc)
		return;
	/* Instruction 0 is the function header; a saved PC points just
	 * after the instruction it stands for. */
	for (uint32_t pos = 1; pos < e->sizebc && n < max; pos++) {
		if (bc_mm(bc_op(bc[pos])) != MM_CALL)
			continue;
		call_site_name(s, e, bc_addr + 4ull * (pos + 1));
		n++;
	}
}
