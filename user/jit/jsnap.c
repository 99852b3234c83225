// SPDX-License-Identifier: MIT
/* Reading a trace's snapshots (src/lj_jit.h SnapShot, src/lj_snap.c) out
 * of target memory: two reads, then a bounds-checked decode. */
#include "jit/jsnap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "luajit/arch.h"
#include "jit/jtrace.h"
#include "luajit/layout.h"
#include "proc/memory.h"

static uint64_t ld(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

int jsnap_parse(const struct lj_layout *lay, const uint8_t *snaps, size_t nsnap,
		const uint8_t *map, size_t nmap, struct jexit *out, size_t max)
{
	size_t pcw = lay->gc64 ? 2 : 1, n = 0;

	if (!lay->sizeof_snap || !lay->snap_count || lay->snap_count >= lay->sizeof_snap ||
	    lay->snap_nent >= lay->sizeof_snap || lay->sizeof_snap < 4 || nsnap > JSNAP_MAX ||
	    lay->snap_mcofs + 2u > lay->sizeof_snap)
		return -1;
	for (size_t i = 0; i < nsnap && n < max; i++) {
		const uint8_t *s = snaps + i * lay->sizeof_snap;
		uint64_t at = ld(s, 4) + (uint64_t)s[lay->snap_nent], pc;

		if (at + pcw > nmap)
			return -1;
		pc = ld(map + at * 4, (int)(4 * pcw));
		if (lay->gc64)
			pc >>= 8;
		if (!pc)
			return -1;
		out[n++] = (struct jexit){ .exitno = (uint16_t)i, .count = s[lay->snap_count],
					   .pc = pc,
					   .mcofs = lay->snap_mcofs ? (uint16_t)ld(s + lay->snap_mcofs, 2) : 0 };
	}
	return (int)n;
}

int jsnap_read(struct mem_reader *mem, const struct lj_layout *lay, const struct jtrace *tr,
	       struct jexit *out, size_t max)
{
	uint8_t *snaps, *map;
	int n = -1;

	if (!tr->nsnap)
		return 0;
	if (!lay->sizeof_snap || tr->nsnap > JSNAP_MAX || tr->nsnapmap > JSNAP_MAP_MAX ||
	    !tr->snap || !tr->snapmap)
		return -1;
	snaps = xmalloc((size_t)tr->nsnap * lay->sizeof_snap);
	map = xmalloc((size_t)tr->nsnapmap * 4 + 1);
	if (!mem_read(mem, tr->snap, snaps, (size_t)tr->nsnap * lay->sizeof_snap) &&
	    !mem_read(mem, tr->snapmap, map, (size_t)tr->nsnapmap * 4))
		n = jsnap_parse(lay, snaps, tr->nsnap, map, tr->nsnapmap, out, max);
	free(snaps);
	free(map);
	return n;
}

/* ==== Side traces' parents ==== */

/* An exit with a side trace linked (or its count saturated otherwise). */
struct cand {
	uint16_t family;	/* its trace's root, or the trace itself */
	uint16_t trace, exitno;
	bool claimed;
	uint64_t pc;
	size_t owner;		/* its trace's index in all[] */
};

long jsnap_x64_jump_to(const uint8_t *code, size_t len, uint64_t addr, uint64_t target)
{
	for (size_t p = 0; p + 5 <= len; p++) {
		int32_t rel;

		if (code[p] == 0xe9) {
			memcpy(&rel, code + p + 1, 4);
			if (addr + p + 5 + (uint64_t)(int64_t)rel == target)
				return (long)p;
		} else if (code[p] == 0x0f && p + 6 <= len && (code[p + 1] & 0xf0) == 0x80) {
			memcpy(&rel, code + p + 2, 4);
			if (addr + p + 6 + (uint64_t)(int64_t)rel == target)
				return (long)p;
		}
	}
	return -1;
}

/* A 2's complement field of bits bits, in words, as bytes. */
static int64_t a64_words(uint32_t field, int bits)
{
	return ((int64_t)((uint64_t)field << (64 - bits)) >> (64 - bits)) * 4;
}

/* Whether the A64 instruction ins at addr branches to target: b (imm26),
 * b.cond and cbz/cbnz (imm19), tbz/tbnz (imm14), the branches
 * lj_asm_patchexit retargets (Arm ARM C4.1.3; src/lj_target_arm64.h). */
static bool a64_branches_to(uint32_t ins, uint64_t addr, uint64_t target)
{
	int64_t d;

	if ((ins & 0xfc000000u) == 0x14000000u)
		d = a64_words(ins & 0x03ffffffu, 26);
	else if ((ins & 0xff000000u) == 0x54000000u || (ins & 0x7e000000u) == 0x34000000u)
		d = a64_words((ins >> 5) & 0x7ffffu, 19);
	else if ((ins & 0x7e000000u) == 0x36000000u)
		d = a64_words((ins >> 5) & 0x3fffu, 14);
	else
		return false;
	return addr + (uint64_t)d == target;
}

long jsnap_a64_jump_to(const uint8_t *code, size_t len, uint64_t addr, uint64_t target)
{
	for (size_t p = 0; p + 4 <= len; p += 4)
		if (a64_branches_to((uint32_t)ld(code + p, 4), addr + p, target))
			return (long)p;
	return -1;
}

#define A64_NOP		0xd503201fu

int jsnap_a64_stub_exit_to(const uint8_t *stubs, size_t len, uint64_t addr, int nstubs,
			   uint64_t target)
{
	size_t p = 0;

	while (p + 4 <= len && ld(stubs + p, 4) == A64_NOP)
		p += 4;
	/* str lr, [sp]; then bl ->vm_exit_handler, or ldr lr, [gl, ...]
	 * (top nibble 0xf) and blr lr; movz w0, traceno. */
	if (p + 8 <= len && ld(stubs + p + 4, 4) >> 28 == 0xf)
		p += 4;
	p += 12;
	for (int e = 0; e < nstubs && p + 4 <= len; e++, p += 4) {
		uint32_t ins = (uint32_t)ld(stubs + p, 4);

		if ((ins & 0xfc000000u) == 0x14000000u && a64_branches_to(ins, addr + p, target))
			return e;
	}
	return -1;
}

int jsnap_exit_at(const struct jsnap_trace *t, uint32_t ofs)
{
	int e = -1;

	if (!t->has_mcofs)
		return -1;
	for (int i = 0; i < t->nexits && t->exits[i].mcofs <= ofs; i++)
		e = t->exits[i].exitno;
	return e;
}

int jsnap_exit_jumping_to(const struct jsnap_trace *t, const uint8_t *code, size_t body,
			  size_t len, uint64_t target)
{
	long at;
	int e;

	if (ARCH_EXIT_STUBS_AFTER_CODE && len > body) {
		e = jsnap_a64_stub_exit_to(code + body, len - body, t->mcode + body,
					   t->nexits + 1, target);
		if (e >= 0)
			return e;
	}
	at = ARCH_CODE_JUMP_TO(code, body, t->mcode, target);
	if (at < 0)
		return JSNAP_NO_JUMP;
	e = jsnap_exit_at(t, (uint32_t)at >> ARCH_MCODE_UNIT_SHIFT);
	return e >= 0 ? e : JSNAP_JUMP_ANY_EXIT;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->trace != y->trace ? (x->trace < y->trace ? -1 : 1) :
				      (x->exitno < y->exitno ? -1 : x->exitno > y->exitno);
}

/* The first candidate not below (family, pc). */
static size_t cand_lower(const struct cand *c, size_t nc, uint16_t family, uint64_t pc)
{
	size_t lo = 0, hi = nc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].family < family || (c[mid].family == family && c[mid].pc < pc))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Candidates in fit[0..nfit) (indices into c) still free: how many, the
 * last. */
static size_t free_fits(const struct cand *c, const size_t *fit, size_t nfit, size_t *last)
{
	size_t k = 0;

	for (size_t j = 0; j < nfit; j++)
		if (!c[fit[j]].claimed) {
			k++;
			*last = fit[j];
		}
	return k;
}

/* The candidates of side trace all[i] in c[lo..hi): not its own exits,
 * and where jumps can tell, in a trace whose code jumps to it. */
static size_t *side_fits(const struct cand *c, size_t lo, size_t hi,
			 const struct jsnap_trace *all, size_t i, jsnap_jumps_fn jumps,
			 void *ctx, size_t *nfit)
{
	size_t *fit = xcalloc(hi - lo + 1, sizeof(*fit)), n = 0, njump = 0;

	for (size_t j = lo; j < hi; j++)
		if (c[j].trace != all[i].traceno)
			fit[n++] = j;
	if (jumps && n > 1 && all[i].mcode) {
		for (size_t j = 0; j < n; j++) {
			int r = jumps(ctx, c[fit[j]].owner, all[i].mcode);

			if (r == JSNAP_JUMP_ANY_EXIT || (r >= 0 && r == c[fit[j]].exitno))
				fit[njump++] = fit[j];
		}
		/* None: the code could not be read; keep every choice. */
		if (njump)
			n = njump;
	}
	*nfit = n;
	return fit;
}

void jsnap_parents(const struct lj_layout *lay, const struct jsnap_trace *all, size_t n,
		   jsnap_jumps_fn jumps, void *ctx, struct jsnap_link *out)
{
	struct cand *c;
	size_t nc = 0, total = 0, **fit, *nfit;
	bool changed = true;

	for (size_t i = 0; i < n; i++) {
		out[i] = (struct jsnap_link){ .found = JSNAP_NO_PARENT };
		total += (size_t)(all[i].nexits > 0 ? all[i].nexits : 0);
	}
	if (!lay->snapcount_done)
		return;
	c = xcalloc(total + 1, sizeof(*c));
	fit = xcalloc(n + 1, sizeof(*fit));
	nfit = xcalloc(n + 1, sizeof(*nfit));
	for (size_t i = 0; i < n; i++)
		for (int e = 0; e < all[i].nexits; e++)
			if (all[i].exits[e].count == lay->snapcount_done)
				c[nc++] = (struct cand){
					.family = all[i].root ? all[i].root : all[i].traceno,
					.trace = all[i].traceno, .exitno = all[i].exits[e].exitno,
					.pc = all[i].exits[e].pc, .owner = i };
	qsort(c, nc, sizeof(*c), cand_cmp);
	for (size_t i = 0; i < n; i++) {
		size_t lo, hi;

		if (!all[i].root)
			continue;
		lo = cand_lower(c, nc, all[i].root, all[i].startpc);
		for (hi = lo; hi < nc && c[hi].family == all[i].root && c[hi].pc == all[i].startpc;
		     hi++)
			;
		fit[i] = side_fits(c, lo, hi, all, i, jumps, ctx, &nfit[i]);
	}
	while (changed) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			size_t last = 0;

			if (!all[i].root || out[i].found == JSNAP_PARENT ||
			    free_fits(c, fit[i], nfit[i], &last) != 1)
				continue;
			c[last].claimed = true;
			out[i] = (struct jsnap_link){ .parent = c[last].trace,
						      .exitno = c[last].exitno,
						      .found = JSNAP_PARENT };
			changed = true;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (all[i].root && out[i].found != JSNAP_PARENT && nfit[i])
			out[i].found = JSNAP_PARENT_AMBIGUOUS;
		free(fit[i]);
	}
	free(c);
	free(fit);
	free(nfit);
}
