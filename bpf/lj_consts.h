/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* LuaJIT's own constants, under LuaJIT's names, shared by the BPF programs
 * and the user-space loader (as sampler.h is).  Each block names the
 * upstream file it follows; the values are the same in every LuaJIT 2.0
 * and 2.1 build this project reads (docs/luajit-internals.md).  Offsets,
 * which differ per build, are not here: they are rows of
 * user/luajit/layout.c.
 */
#ifndef LBP_LJ_CONSTS_H
#define LBP_LJ_CONSTS_H

/* -- Type tags: src/lj_obj.h ------------------------------------------------
 * A TValue's itype: in a non-GC64 build the upper word of the slot, in a
 * GC64 build the top 17 bits sign-extended.  A GC object's tag is ~its
 * GC type; below LJ_TNUMX a slot holds a double. */
#define LJ_TNIL		(~0u)
#define LJ_TFALSE	(~1u)
#define LJ_TTRUE	(~2u)
#define LJ_TLIGHTUD	(~3u)
#define LJ_TSTR		(~4u)	/* the first GC type */
#define LJ_TUPVAL	(~5u)
#define LJ_TTHREAD	(~6u)
#define LJ_TPROTO	(~7u)
#define LJ_TFUNC	(~8u)
#define LJ_TTRACE	(~9u)
#define LJ_TCDATA	(~10u)
#define LJ_TTAB		(~11u)
#define LJ_TUDATA	(~12u)	/* the last GC type */
#define LJ_TNUMX	(~13u)	/* LJ_TISNUM of GC64 and 32-bit builds */
/* LJ_TISNUM of 64-bit non-GC64 builds: itypes above it are tags, the rest
 * the upper words of doubles. */
#define LJ_TISNUM_64	0xfffeffffu

/* A GC64 TValue's GC pointer: its low 47 bits. */
#define LJ_GCVMASK	((1ull << 47) - 1)

/* GCHeader.gct holds the GC type, the tag's complement, as one byte. */
#define LJ_GCT(tag)	((unsigned char)~(tag))

/* -- GC marks (GCHeader.marked): src/lj_gc.h --------------------------------- */
#define LJ_GC_WHITE0	0x01
#define LJ_GC_WHITE1	0x02
#define LJ_GC_BLACK	0x04
#define LJ_GC_WHITES	(LJ_GC_WHITE0 | LJ_GC_WHITE1)

/* -- Frame links: src/lj_frame.h ---------------------------------------------
 * The low bits of a frame's link (its PC or delta slot) say what called
 * it; a Lua frame's link is the caller's PC itself. */
#define FRAME_LUA	0
#define FRAME_C		1
#define FRAME_CONT	2
#define FRAME_VARG	3
#define FRAME_LUAP	4
#define FRAME_CP	5
#define FRAME_PCALL	6
#define FRAME_PCALLH	7
#define FRAME_TYPE	3	/* link & FRAME_TYPE: the type, FRAME_LUA or a delta */
#define FRAME_P		4	/* the protected bit of a delta link */
#define FRAME_TYPEP	(FRAME_TYPE | FRAME_P)	/* the bits below a delta's bytes */

/* -- C frames: src/lj_frame.h ------------------------------------------------
 * L->cframe's flag bits; the rest is the C frame's address. */
#define CFRAME_RESUME		1
#define CFRAME_UNWIND_FF	2
#define CFRAME_RAWMASK		(~3ull)

#endif
