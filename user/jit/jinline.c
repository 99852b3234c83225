// SPDX-License-Identifier: MIT
/* Functions a trace inlined without a snapshot (jinline.h), from its IR
 * constants and snapshot map (src/lj_ir.h IRIns, src/lj_jit.h SnapEntry):
 * two reads of the trace, one bounds-checked decode. */
#include "jit/jinline.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "jit/jtrace.h"
#include "luajit/layout.h"
#include "proc/memory.h"

#define REF_BIAS	0x8000u	/* refs below are constants */
#define IR_SIZE		8
#define IR_T		4	/* IRIns.t: the type byte */
#define IR_O		5	/* IRIns.o: the opcode */
#define IR_OP_KGC	24	/* IR_KGC in src/lj_ir.h IRDEF */
#define IRT_FUNC	8	/* src/lj_ir.h IRTDEF */
#define IRT_TYPE	0x1f
#define SNAPE_FRAME	0x010000u

static uint64_t ld(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* The GCfunc of constant ref when it is a function KGC, else 0. */
static uint64_t kfunc(const struct lj_layout *lay, const uint8_t *kir, uint32_t nk, uint32_t ref)
{
	const uint8_t *ins;

	if (ref < nk || ref >= REF_BIAS || (lay->gc64 && ref + 1 >= REF_BIAS))
		return 0;
	ins = kir + (size_t)(ref - nk) * IR_SIZE;
	if (ins[IR_O] != IR_OP_KGC || (ins[IR_T] & IRT_TYPE) != IRT_FUNC)
		return 0;
	/* GC64 keeps the pointer in the instruction after it; else gcr
	 * overlaps op1 and op2. */
	return lay->gc64 ? ld(ins + IR_SIZE, 8) : ld(ins, 4);
}

/* Adds fn to out (once), marking it framed when asked. */
static size_t note_k(struct jinline_k *out, size_t n, size_t max, uint64_t fn, bool framed)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].fn == fn) {
			out[i].framed |= framed;
			return n;
		}
	if (n < max)
		out[n++] = (struct jinline_k){ .fn = fn, .framed = framed };
	return n;
}

/* Marks the functions snapshot s frames. */
static int frame_refs(const struct lj_layout *lay, const uint8_t *kir, uint32_t nk,
		      const uint8_t *s, const uint8_t *map, size_t nmap, struct jinline_k *out,
		      size_t *n, size_t max)
{
	uint64_t at = ld(s, 4), nent = s[lay->snap_nent];
	uint32_t prev = 0;

	if (at + nent > nmap)
		return -1;
	for (uint64_t e = 0; e < nent; e++) {
		uint32_t sn = (uint32_t)ld(map + (at + e) * 4, 4), slot = sn >> 24, ref = 0;
		uint64_t fn;

		if (slot == 0)
			ref = sn & 0xffff;
		else if ((sn & SNAPE_FRAME) && !lay->gc64)
			ref = sn & 0xffff;
		else if ((sn & SNAPE_FRAME) && e > 0 && (prev >> 24) == slot - 1)
			ref = prev & 0xffff;
		prev = sn;
		fn = ref ? kfunc(lay, kir, nk, ref) : 0;
		if (fn)
			*n = note_k(out, *n, max, fn, true);
	}
	return 0;
}

int jinline_parse(const struct lj_layout *lay, const uint8_t *kir, uint32_t nk,
		  const uint8_t *snaps, size_t nsnap, const uint8_t *map, size_t nmap,
		  struct jinline_k *out, size_t max)
{
	size_t n = 0;

	if (nk >= REF_BIAS || REF_BIAS - nk > JINLINE_KMAX || !lay->sizeof_snap ||
	    lay->snap_nent >= lay->sizeof_snap || lay->sizeof_snap < 4)
		return -1;
	for (size_t i = 0; i < nsnap; i++)
		if (frame_refs(lay, kir, nk, snaps + i * lay->sizeof_snap, map, nmap, out, &n, max))
			return -1;
	for (uint32_t ref = nk; ref < REF_BIAS; ref++) {
		uint64_t fn = kfunc(lay, kir, nk, ref);

		if (fn)
			n = note_k(out, n, max, fn, false);
	}
	return (int)n;
}

/* The prototype of Lua closure fn, 0 for a C or fast function. */
static uint64_t lua_proto(struct mem_reader *mem, const struct lj_layout *lay, uint64_t fn)
{
	uint8_t ffid = 1;
	uint64_t pc = 0;

	if (mem_read(mem, fn + lay->fn_ffid, &ffid, 1) || ffid != 0 ||
	    layout_read_ref(mem, lay, fn + lay->fn_pc, &pc) || pc <= lay->sizeof_proto)
		return 0;
	return pc - lay->sizeof_proto;
}

/* Whether pt is the start's or a framed function's prototype. */
static bool shown_proto(uint64_t pt, const struct jtrace *tr, const struct jinline_fn *framed,
			size_t nf)
{
	if (pt == tr->startpt)
		return true;
	for (size_t i = 0; i < nf; i++)
		if (framed[i].pt == pt)
			return true;
	return false;
}

/* Splits the decoded constants into framed Lua closures and the others. */
static int split(struct mem_reader *mem, const struct lj_layout *lay, const struct jtrace *tr,
		 const struct jinline_k *k, int nk, struct jinline_fn *out, size_t max,
		 struct jinline_fn *framed, size_t maxf, size_t *nframed)
{
	struct jinline_fn all[JINLINE_MAX], fr[JINLINE_MAX];
	size_t nf = 0, n = 0;

	for (int i = 0; i < nk; i++) {
		all[i] = (struct jinline_fn){ .fn = k[i].fn, .pt = lua_proto(mem, lay, k[i].fn) };
		if (k[i].framed && all[i].pt)
			fr[nf++] = all[i];
	}
	for (int i = 0; i < nk && n < max; i++)
		if (!k[i].framed && all[i].pt && !shown_proto(all[i].pt, tr, fr, nf))
			out[n++] = all[i];
	if (nframed) {
		*nframed = nf < maxf ? nf : maxf;
		if (framed)
			memcpy(framed, fr, *nframed * sizeof(*fr));
	}
	return (int)n;
}

int jinline_read(struct mem_reader *mem, const struct lj_layout *lay, const struct jtrace *tr,
		 struct jinline_fn *out, size_t max, struct jinline_fn *framed, size_t maxf,
		 size_t *nframed)
{
	struct jinline_k k[JINLINE_MAX];
	uint8_t *kir, *snaps, *map;
	size_t klen;
	int n = -1;

	if (nframed)
		*nframed = 0;
	if (!lay->tr_nk || !lay->tr_ir || !lay->sizeof_snap || !tr->ir || tr->nk >= REF_BIAS ||
	    REF_BIAS - tr->nk > JINLINE_KMAX || tr->nsnapmap > 65536 || tr->nsnap > 1024 ||
	    (tr->nsnap && (!tr->snap || !tr->snapmap)))
		return -1;
	klen = (size_t)(REF_BIAS - tr->nk) * IR_SIZE;
	kir = xmalloc(klen);
	snaps = xmalloc((size_t)tr->nsnap * lay->sizeof_snap + 1);
	map = xmalloc((size_t)tr->nsnapmap * 4 + 1);
	if (!mem_read(mem, tr->ir + (uint64_t)tr->nk * IR_SIZE, kir, klen) &&
	    (!tr->nsnap ||
	     (!mem_read(mem, tr->snap, snaps, (size_t)tr->nsnap * lay->sizeof_snap) &&
	      !mem_read(mem, tr->snapmap, map, (size_t)tr->nsnapmap * 4))))
		n = jinline_parse(lay, kir, tr->nk, snaps, tr->nsnap, map, tr->nsnapmap, k,
				  JINLINE_MAX);
	free(kir);
	free(snaps);
	free(map);
	if (n < 0)
		return -1;
	return split(mem, lay, tr, k, n, out, max, framed, maxf, nframed);
}
