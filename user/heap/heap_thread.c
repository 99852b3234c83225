// SPDX-License-Identifier: MIT
/* Coroutines (lua_State, src/lj_state.c): the state and its stack, as
 * lj_state_free frees them. */
#include "heap/heap_obj.h"

#include "luajit/layout.h"

#define MAX_STACK	(1u << 20)	/* LUAI_MAXSTACK plus extra, generously */

int heap_thread_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	const struct lj_layout *lay = c->lay;
	uint32_t stacksize = heap_u32_at(hdr, lay->L_stacksize);
	uint64_t stack = heap_ref_at(c, hdr, lay->L_stack);

	if (stacksize > MAX_STACK || (stacksize && !heap_ptr_ok(c, stack)))
		return -1;
	o->bytes = lay->sizeof_L;
	o->bytes_a = (uint64_t)stacksize * 8;
	o->at_a = stacksize ? stack : 0;
	return 0;
}
