// SPDX-License-Identifier: MIT
/* Finding blacklisted bytecode in target prototypes (src/lj_trace.c
 * blacklist_pc, src/lj_bc.h). */
#include "jit/jblack.h"

#include <string.h>

#include "luajit/layout.h"
#include "luajit/luaobj.h"
#include "proc/memory.h"

#define CHUNK_INS	1024	/* instructions read per block */
#define MAX_SIZEBC	(1u << 26)

/* FUNCF, IFUNCF, JFUNCF, FUNCV, IFUNCV, JFUNCV follow one another. */
static int is_func_header(const struct lj_layout *lay, uint8_t op)
{
	return op >= lay->bc_ifuncf - 1 && op <= lay->bc_ifuncf + 4;
}

const char *jblack_name(const struct lj_layout *lay, uint8_t op)
{
	switch (op) {
	case JBC_IFORL: return "FORL";
	case JBC_IITERL: return "ITERL";
	case JBC_ILOOP: return "LOOP";
	default: break;
	}
	if (op == lay->bc_ifuncf)
		return "FUNCF";
	if (op == lay->bc_ifuncf + 3)
		return "FUNCV";
	return NULL;
}

/* Whether pt is a prototype whose bytecode covers pos instructions. */
static int proto_ok(struct mem_reader *mem, const struct lj_layout *lay, uint64_t pt,
		    uint32_t pos)
{
	uint8_t hdr[16];
	uint32_t sizebc = 0;

	if (mem_read(mem, pt, hdr, sizeof(hdr)) || hdr[lay->gct] != LJ_GCT(LJ_TPROTO) ||
	    mem_read(mem, pt + lay->pt_sizebc, &sizebc, 4))
		return 0;
	return sizebc > pos && sizebc < MAX_SIZEBC;
}

uint64_t jblack_proto_of(struct mem_reader *mem, const struct lj_layout *lay, uint64_t pc,
			 uint32_t max_back)
{
	uint32_t ins[CHUNK_INS];
	uint32_t done = 0;

	if (!lay->bc_ifuncf || (pc & 3))
		return 0;
	while (done <= max_back) {
		uint32_t n = CHUNK_INS;
		uint64_t lo;

		if (pc < (uint64_t)(done + n) * 4)
			return 0;
		lo = pc - (uint64_t)(done + n - 1) * 4;
		if (mem_read(mem, lo, ins, sizeof(ins))) {
			/* Near the start of a mapping: fall back to single reads. */
			for (n = 0; n < CHUNK_INS && done + n <= max_back; n++) {
				uint32_t one;
				uint64_t at = pc - (uint64_t)(done + n) * 4;

				if (mem_read(mem, at, &one, 4))
					return 0;
				if (is_func_header(lay, (uint8_t)one) &&
				    proto_ok(mem, lay, at - lay->sizeof_proto, done + n))
					return at - lay->sizeof_proto;
			}
			return 0;
		}
		for (int i = CHUNK_INS - 1; i >= 0; i--) {
			uint32_t back = done + (uint32_t)(CHUNK_INS - 1 - i);
			uint64_t at = lo + (uint64_t)i * 4;

			if (back > max_back)
				return 0;
			if (is_func_header(lay, (uint8_t)ins[i]) &&
			    proto_ok(mem, lay, at - lay->sizeof_proto, back))
				return at - lay->sizeof_proto;
		}
		done += CHUNK_INS;
	}
	return 0;
}

int jblack_scan(struct mem_reader *mem, const struct lj_layout *lay, uint64_t pt,
		struct jblack_ins *out, int max)
{
	uint32_t ins[CHUNK_INS];
	uint32_t sizebc = 0;
	uint64_t bc = pt + lay->sizeof_proto;
	int found = 0;

	if (!proto_ok(mem, lay, pt, 0) || mem_read(mem, pt + lay->pt_sizebc, &sizebc, 4))
		return -1;
	for (uint32_t at = 0; at < sizebc; at += CHUNK_INS) {
		uint32_t n = sizebc - at < CHUNK_INS ? sizebc - at : CHUNK_INS;

		if (mem_read(mem, bc + (uint64_t)at * 4, ins, (size_t)n * 4))
			return -1;
		for (uint32_t i = 0; i < n; i++) {
			uint8_t op = (uint8_t)ins[i];

			if (!jblack_name(lay, op))
				continue;
			if (found < max)
				out[found] = (struct jblack_ins){
					bc + (uint64_t)(at + i) * 4, at + i, op };
			found++;
		}
	}
	return found;
}
