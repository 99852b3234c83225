/* SPDX-License-Identifier: MIT */
/* Local variable names from a prototype's debug information: the varinfo
 * block the parser writes after the bytecode (src/lj_parse.c
 * fs_fixup_var), read as lj_debug.c's lj_debug_varname does.  Pure: the
 * caller copies the block from the target.  Used to name a frame's slots
 * (heap paths: "main.lua:0 local users") and a call's callee. */
#ifndef LBP_VARINFO_H
#define LBP_VARINFO_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of varinfo worth copying at most. */
#define VARINFO_MAX	(64 * 1024)

/* The name of the local variable living in slot at bytecode position pos
 * (0 is the function header), or NULL.  vi holds len bytes of varinfo; a
 * name returned points into vi, or is one of the for loop's hidden
 * variables ("(for index)" ...). */
const char *varinfo_local(const uint8_t *vi, size_t len, uint32_t pos, uint32_t slot);

#endif
