/* SPDX-License-Identifier: MIT */
/* Names of a thread's stack slots, for heap reference paths: the Lua
 * function whose frame holds each slot and the local variable living
 * there at the frame's position ("main.lua:0 local users"), from the
 * frame links (src/lj_frame.h) and the prototype's varinfo.  A slot no
 * local names (a temporary, a C function's slot, a frame whose position
 * is unknown) gets no name. */
#ifndef LBP_HEAP_STACK_H
#define LBP_HEAP_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "heap/heap_obj.h"

#define HEAP_SLOT_NAME	96

/* names[i] for slot i of thread L counted from its stack's start, i < n:
 * "" where no local is known.  Reads are bounded; a frame link that makes
 * no sense ends the walk, leaving the slots below unnamed. */
void heap_stack_names(const struct heap_ctx *c, uint64_t L, char (*names)[HEAP_SLOT_NAME],
		      size_t n);

/* The position of the instruction before saved PC pc in prototype pt
 * (0 is the function header), or -1 when pc is not in its bytecode. */
int64_t heap_proto_pos(const struct heap_ctx *c, uint64_t pt, uint64_t pc);

/* Copies prototype pt's varinfo into vi (VARINFO_MAX bytes); its length,
 * 0 when it has none or it cannot be read. */
uint32_t heap_proto_varinfo(const struct heap_ctx *c, uint64_t pt, uint8_t *vi);

#endif
