/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Types shared by the BPF sampler and the user-space loader.
 *
 * Everything here is plain data with fixed-width fields, so that the same
 * struct means the same bytes on both sides of the map.
 */
#ifndef LBP_SAMPLER_H
#define LBP_SAMPLER_H

#define LBP_MAX_FRAMES	256	/* Lua frames walked per sample, top first */
#define LBP_MAX_VMS	8	/* LuaJIT universes tracked per process */
#define LBP_MAX_ZONE	16	/* jit.zone stack slots inspected */
#define LBP_G_BLOCK	1024	/* global_State bytes read per sample, at most */
/* How far above the sampled stack pointer a VM activation's C frame may
 * lie and still belong to the sampled thread (threads' stacks are
 * megabytes apart; bpf/vmchoice.bpf.h, the loader sets the knob). */
#define LBP_CFRAME_MAX_DIST	(1u << 20)

/* Byte offsets into LuaJIT objects for one build variant.  The loader fills
 * this from its table of layouts (user/layout.c); BPF never hard-codes one.
 */
struct lj_offsets {
	__u8 gc64;		/* 8-byte GCRef/MRef and two-slot frames (LJ_FR2) */
	__u8 gct;		/* GCHeader.gct: the object type */
	__u16 sizeof_proto;	/* bytecode starts right after GCproto */
	/* global_State */
	__u16 g_vmstate;
	__u16 g_cur_L;
	__u16 g_mainthref;
	__u16 g_jit_base;
	__u16 g_trace;		/* &J->trace, relative to g */
	__u16 g_sizetrace;	/* &J->sizetrace, relative to g */
	/* lua_State */
	__u16 L_base;
	__u16 L_stack;
	__u16 L_stacksize;
	__u16 L_cframe;
	/* C frame of a VM activation (src/lj_frame.h) */
	__u16 cframe_pc;
	__u16 cframe_L;		/* CFRAME_OFS_L: the activation's lua_State */
	__u16 cframe_prev;	/* CFRAME_OFS_PREV: the enclosing activation's C frame */
	__u16 cframe_size;	/* CFRAME_SIZE: the VM's C frame, return address included */
	/* GCfunc */
	__u16 fn_ffid;
	__u16 fn_pc;
	__u16 fn_cfunc;
	/* GCproto */
	__u16 pt_sizebc;
	__u16 pt_chunkname;
	__u16 pt_firstline;
	__u16 pt_numline;
	__u16 pt_sizept;	/* the whole block (src/lj_parse.c fs_finish) */
	/* GCstr */
	__u16 str_sid;		/* string id (or hash, older builds) */
	__u16 str_len;
	__u16 str_data;		/* bytes start after the header */
	/* GCtab */
	__u16 tab_array;
	__u16 tab_asize;
	/* GCtrace */
	__u16 tr_nsnap;
	__u16 tr_snap;
	__u16 tr_snapmap;
	__u16 tr_szmcode;
	__u16 tr_mcode;
	__u16 tr_ir;		/* IRIns *, biased by REF_BIAS */
	__u16 tr_nsnapmap;
	/* SnapShot (src/lj_jit.h) */
	__u8 snap_mcofs;	/* offset of mcofs; 0: snapshots have none */
	__u8 snap_nent;
	/* StrInternState num, id: the walker's string epoch
	 * (bpf/walkcache.bpf.h, src/lj_obj.h); 0: none */
	__u16 g_strnum;
	/* The span of global_State read in one go per sample (each read of
	 * target memory costs a helper call): g_blk_len bytes from g_blk,
	 * covering vmstate .. jit_base, and the string epoch and J->trace,
	 * J->sizetrace when they fit in LBP_G_BLOCK (layout_bpf_offsets). */
	__u16 g_blk;
	__u16 g_blk_len;
	__u16 g2disp;		/* GG->dispatch - g: the interpreter's DISPATCH register */
};

/* One LuaJIT universe in a traced process. */
struct vm_slot {
	__u64 g;		/* global_State address in the target */
	__u64 zone_tab;		/* jit.zone's GCtab, 0 until the module is loaded */
	__u64 vm_lo, vm_hi;	/* interpreter code range (lj_vm_asm_begin ...) */
	__u64 obj_lo, obj_hi;	/* the executable mapping holding it (the VM's C code too) */
	struct lj_offsets off;
};

/* nginx request labels (bpf/reqlabel.bpf.h, docs/requests.md): the
 * offsets of one verified row of user/nginx/ngx_layout.c, 0 in `on` for a
 * process whose requests are not read.  ctx_index is the Lua module's
 * slot in r->ctx, -1 until the sampler finds it by its back pointer. */
#define REQ_BLOCK	2048	/* bytes of ngx_http_request_t read per sample, at most */
#define REQ_CTX_SCAN	256	/* r->ctx slots searched for the Lua module's */
struct ngx_offsets {
	__u16 on;
	__s16 ctx_index;
	__u16 L_exdata;		/* lua_State.exdata: the request */
	__u16 r_len;		/* bytes of the request read: past its last field used */
	__u16 r_ctx, r_srv_conf, r_loc_conf, r_host, r_start_sec, r_start_msec;
	__u16 r_uri, r_method_name;
	__u16 ctx_request, ctx_context;
	__u16 clcf_name, cscf_server_name;
};

/* Value of the procs map, keyed by tgid. */
struct proc_info {
	__u32 nvms;
	__u32 pad;
	struct vm_slot vm[LBP_MAX_VMS];
	struct ngx_offsets ngx;
};

/* A request's labels, copied once per request into the reqs map (an LRU)
 * under sample_key.req: a hash of the request's identity, its address and
 * start, so that a request whose memory a later one reuses gets labels of
 * its own.  Strings are raw target bytes, cut at their array's size. */
#define REQ_METHOD_MAX	16
#define REQ_URI_MAX	256
#define REQ_NAME_MAX	64
struct req_label {
	__u64 r;		/* the ngx_http_request_t */
	__u64 start_ms;		/* r->start_sec * 1000 + r->start_msec */
	__u16 method_len, uri_len, host_len, server_len, location_len;
	__u16 pad[3];
	char method[REQ_METHOD_MAX];
	char uri[REQ_URI_MAX];
	char host[REQ_NAME_MAX];
	char server[REQ_NAME_MAX];
	char location[REQ_NAME_MAX];
};

/* A walked frame: what the function is, where it was, and for Lua, what
 * identified its prototype at the sample instant.
 *
 * The function is resolved at the sample instant and recorded by what
 * outlives it: closures created per call (gmatch iterators, anonymous
 * functions) are often freed before user space reads them, their
 * prototypes and C functions are not.
 *
 * A prototype can die too before user space reads it, and its memory be
 * reused: sometimes with its header intact and its chunk name's string
 * replaced.  The fingerprint (the chunk name's string id and the
 * prototype's line span) tells user space whether the prototype it reads
 * is the one the sample saw.
 *
 * PCs follow LuaJIT's convention for saved PCs: they point just after the
 * instruction being executed.
 */
struct lua_frame {
	__u64 id;		/* FRAME_KIND_* in the top byte, the rest below */
	__u32 pc_off;		/* Lua: current PC - prototype address; 0: unknown */
	__u32 fp;		/* Lua: frame_fingerprint(); 0: not taken */
};

#define FRAME_KIND_SHIFT	56
#define FRAME_KIND_LUA		0ull	/* id: GCproto address */
#define FRAME_KIND_C		1ull	/* id: lua_CFunction address */
#define FRAME_KIND_FF		2ull	/* id: fast-function id */
/* id: the sampled user IP, in C code outside the VM that Lua called (an
 * FFI function, libm): the top frame, named from the ELF symbols. */
#define FRAME_KIND_NATIVE	3ull
#define FRAME_ID_MASK		((1ull << FRAME_KIND_SHIFT) - 1)
/* --native only: set in id on the frame a VM activation begins with (its
 * link is a C frame's, or an FFI callback's continuation).  Addresses are
 * below 2^47, so the bit is never part of one; user space clears it. */
#define FRAME_ENTRY		(1ull << 55)
/* FRAME_KIND_NATIVE: id is the address of the C function an FFI call of
 * the interpreter calls (its cdata), not the sampled IP. */
#define FRAME_CALLEE		(1ull << 54)

static inline __u32 frame_fingerprint(__u32 str_sid, __s32 firstline, __s32 numline)
{
	__u64 h = ((__u64)str_sid << 32 | (__u32)firstline) ^ ((__u64)(__u32)numline << 17);

	h *= 0x9e3779b97f4a7c15ull;
	h ^= h >> 32;
	return (__u32)h ? (__u32)h : 1;
}

#define STACK_TRUNCATED	(1u << 0)	/* walk stopped at LBP_MAX_FRAMES */
#define STACK_BAD_FRAME	(1u << 1)	/* walk stopped at a frame that failed validation */
#define STACK_READ_FAULT (1u << 2)	/* walk stopped at an unreadable slot */
#define STACK_NO_BASE	(1u << 3)	/* the top frame's base was stale and not found: no frames */

/* Value of the stacks map, keyed by a hash of the frames.
 *
 * A coroutine's frames are followed by its resumer's (stitched): frames
 * [0, nown) belong to the running coroutine, the rest to the threads that
 * resumed it, the nearest first.  jit.p shows only the first part. */
struct stack_trace {
	__u64 g;		/* the universe the frames belong to */
	__u32 nframes;
	__u32 flags;		/* STACK_* */
	__u32 nown;		/* frames of the running coroutine */
	__u32 nthreads;		/* resumers stitched below them */
	struct lua_frame frames[LBP_MAX_FRAMES];
};

#define PROTO_NEWS_STR	512	/* chunk name bytes captured, GCstr header included */
#define PROTO_NEWS_BLOCK 8192	/* prototype bytes captured (a power of two) */

/* A prototype a walk met for the first time (bpf/protos.bpf.h), sent to
 * user space through a ring buffer, with a copy of its memory taken at the
 * sample instant: the prototype's block (header, bytecode, constants'
 * references, line table, debug info: lj_parse allocates them as one) and
 * its chunk name's GCstr.  block_len is 0 when the block is larger than
 * PROTO_NEWS_BLOCK: user space then reads it from the process. */
struct proto_news {
	__u32 pid;		/* tgid */
	__u32 fp;		/* frame_fingerprint() the walk took */
	__u64 g;		/* the universe it belongs to */
	__u64 pt;		/* GCproto address */
	__u64 str;		/* its chunk name's GCstr */
	__u32 block_len;	/* bytes of block[] captured: the whole block, or 0 */
	__u32 str_len;		/* bytes of str_bytes[] captured */
	__u8 str_bytes[PROTO_NEWS_STR];
	__u8 block[PROTO_NEWS_BLOCK];	/* only block_len bytes are sent */
};

#define SAMPLE_HOST	(1u << 0)	/* thread ran no Lua: counted as [host] */
#define SAMPLE_NO_STACK	(1u << 1)	/* the stacks map was full: frames lost */
#define SAMPLE_OFFCPU	(1u << 2)	/* off-CPU time: the value is OFFCPU_VALUE */
#define SAMPLE_RUNNABLE	(1u << 3)	/* with SAMPLE_OFFCPU: preempted, waiting for a CPU */
#define SAMPLE_TIMED	(1u << 4)	/* -e wall's cpu-clock samples: the value is OFFCPU_VALUE,
					 * their count and the time their ticks stood for */
/* With SAMPLE_OFFCPU: kept with probability 2^-k by the automatic rate
 * (bpf/offcpu.bpf.h), so it stands for 2^k switches and their time. */
/* With a request (sample_key.req): its Lua phase at the sample instant,
 * ngx_http_lua_ctx_t.context, one bit of 16. */
#define SAMPLE_PHASE_AT	8
#define SAMPLE_PHASE(ph)	((__u32)(ph) << SAMPLE_PHASE_AT)
#define SAMPLE_PHASE_OF(flags)	(((flags) >> SAMPLE_PHASE_AT) & 0xffff)
#define SAMPLE_SHIFT_AT	24
#define SAMPLE_SHIFT(k)	((__u32)(k) << SAMPLE_SHIFT_AT)
#define SAMPLE_SHIFT_OF(flags)	(((flags) >> SAMPLE_SHIFT_AT) & 0x1f)
/* The automatic rate's window per CPU, and the most it halves it. */
#define OFFCPU_PACE_NS	100000000ull
#define OFFCPU_MAX_SHIFT	16

/* The counts map's value of an off-CPU key: the number of switches in the
 * top bits, their total nanoseconds below, so one atomic add keeps both.
 * 2^40 ns is 18 minutes per key between two drains; one longer block is
 * clamped to it. */
#define OFFCPU_NS_BITS	40
#define OFFCPU_NS_MAX	((1ull << OFFCPU_NS_BITS) - 1)
#define OFFCPU_VALUE(n, ns)	((__u64)(n) << OFFCPU_NS_BITS | ((ns) & OFFCPU_NS_MAX))
#define OFFCPU_COUNT(v)	((v) >> OFFCPU_NS_BITS)
#define OFFCPU_NS(v)	((v) & OFFCPU_NS_MAX)


/* Key of the counts map: one aggregated sample class. */
struct sample_key {
	__u32 pid;
	__u32 tid;
	__s32 vmstate;		/* g->vmstate at the sample instant */
	__u32 flags;		/* SAMPLE_* */
	__u64 zone;		/* GCstr of the jit.zone top, 0 for none */
	__u64 stack_id;		/* key into the stacks map, 0 for none */
	/* Timeline formats only (time_slot_ns set): bpf_ktime_get_ns() /
	 * time_slot_ns when the sample was taken (off-CPU: when the thread
	 * left the CPU), so that each keeps its time; else 0. */
	__u64 time_slot;
	/* nginx workers: the reqs map's key of the request the running
	 * coroutine serves (0: none, or one that did not verify); its Lua
	 * phase then is in flags (SAMPLE_PHASE). */
	__u64 req;
};

/* Value of the parked map, keyed by tid: a traced thread that is off the
 * CPU, its stack as it left and when. */
struct parked {
	struct sample_key key;
	__u64 since_ns;		/* bpf_ktime_get_ns(), CLOCK_MONOTONIC */
};

/* The kernel's counters, one per-CPU array slot each.  One row per counter,
 * expanded wherever counters are listed (as LuaJIT's BCDEF is): the enum
 * below, and in user/ the profile's fields, the drain's copy, the interval
 * deltas, the summary line and the loss totals (user/model/profile.h).
 * Columns: enum suffix, profile field, summary group (0 none, 1 "unwind:",
 * 2 "lost:", 3 the "walk:" line of -v), whether it counts as a lost
 * sample, summary label.  The summary line lists each group in this order. */
#define LBP_COUNTERS(_) \
	_(SAMPLES,        samples,        0, 0, "samples")	/* of traced processes */ \
	_(HOST,           host,           0, 0, "outside Lua")	/* no Lua activation */ \
	_(BAD_FRAME,      bad_frame,      1, 1, "bad frame")	/* walk stopped at an invalid frame */ \
	_(TRUNCATED,      truncated,      1, 0, "truncated")	/* deeper than LBP_MAX_FRAMES */ \
	_(READ_FAULT,     read_fault,     1, 1, "read fault")	/* bpf_probe_read_user failed */ \
	_(NO_BASE,        no_base,        1, 1, "no frame base")	/* L->base stale, no base found: STACK_NO_BASE */ \
	_(STACK_MAP_FULL, stack_map_full, 2, 1, "stack map full")	/* stacks map had no room */ \
	_(COUNT_MAP_FULL, count_map_full, 2, 1, "count map full")	/* counts map had no room */ \
	_(NO_VM,          no_vm,          2, 0, "no VM yet")	/* traced process without a known VM yet */ \
	_(PROTO_LOST,     proto_lost,     2, 0, "prototype news lost")	/* proto ring buffer full */ \
	_(NATIVE_LOST,    native_lost,    0, 0, "native stacks lost")	/* --native: ring full, Lua frames only (its own line) */ \
	_(BASE_REGS,      base_regs,      3, 0, "base from registers")	/* frame base from BASE/PC */ \
	_(BASE_JIT,       base_jit,       3, 0, "base from jit_base")	/* frame base from g->jit_base */ \
	_(BASE_L,         base_L,         3, 0, "base from L->base")	/* frame base from L->base */ \
	_(TRACE_PC,       trace_pc,       3, 0, "trace PC")	/* top PC from a trace snapshot */ \
	_(TRACE_INLINE,   trace_inline,   3, 0, "inlined frames")	/* rebuilt from a trace snapshot */ \
	_(TRACE_RETADDR,  trace_retaddr,  3, 0, "trace by return address")	/* helper called from a trace */ \
	_(BASE_RB,        base_rb,        3, 0, "base from RB")	/* in C code the VM called */ \
	_(STITCHED,       stitched,       3, 0, "stitched")	/* a coroutine's walk went on in its resumer */ \
	_(VM_DISPATCH,    vm_dispatch,    3, 0, "VM by dispatch")	/* VM found from r14 with its own reads only */ \
	_(WALK_CACHED,    walk_cached,    3, 0, "cached reads")	/* walker reads saved by its caches */ \
	_(REQ_LABEL,      req_label,      3, 0, "request labels")	/* a sample labelled with its nginx request */ \
	_(REQ_STALE,      req_stale,      3, 0, "requests not believed")	/* exdata whose request failed a check */ \
	/* Off-CPU (reported on the time summary line, user/model/profile_time.c): */ \
	_(SWITCH_OUT,     switch_out,     0, 0, "switches out")	/* a traced thread left the CPU */ \
	_(SWITCH_KEPT,    switch_kept,    0, 0, "kept")	/* ... and --off-cpu-rate kept it */ \
	_(SHORT_BLOCK,    short_block,    0, 0, "under --min-block")	/* back sooner: only counted */ \
	_(PARK_FULL,      park_full,      0, 0, "parked map full")	/* a switch-out lost: not remembered */ \
	_(PARK_STALE,     park_stale,     0, 0, "switch-in unseen")	/* a parked block replaced, never weighed */

/* --native (bpf/native.bpf.h): one CPU sample with a copy of its user
 * stack, sent instead of counted.  The key is the one the sample would
 * have been counted under; its Lua frames are in the stacks map. */
#define NATIVE_STACK_MAX	16384	/* bytes copied from the sampled SP up */
#define NATIVE_RING_BYTES	(32 * 1024 * 1024)	/* its ring buffer (power of 2): ~1600 samples */

/* The user registers --native unwinds from: the PC, the stack pointer
 * and r[], the callee-saved registers and the frame pointer, whose DWARF
 * numbers are NATIVE_REG0 on (arm64: x19..x30) or listed in
 * user/native/unwind.h (x86-64: rbp, rbx, r12..r15). */
#if defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#define NATIVE_NREGS	12	/* x19..x28, fp (x29), lr (x30) */
#define NATIVE_REG0	19
#else
#define NATIVE_NREGS	6	/* rbp, rbx, r12, r13, r14, r15 */
#endif
struct native_regs {
	__u64 ip, sp, r[NATIVE_NREGS];
};

struct native_sample {
	struct sample_key key;
	struct native_regs regs;	/* the thread's user registers */
	__u64 cframe;		/* the sampled thread's L->cframe (raw), 0: none */
	/* A coroutine resumed from Lua: its resumer's L->cframe, where its
	 * own chain (which ends in lj_vm_resume's frame) goes on; else 0. */
	__u64 cframe_resumer;
	__u32 stack_len;	/* bytes of stack[] valid, from regs.sp up */
	__u32 pad;
	__u8 stack[NATIVE_STACK_MAX];
};

enum lbp_counter {
#define LBP_COUNTER_ENUM(name, field, group, lost, label) CNT_##name,
	LBP_COUNTERS(LBP_COUNTER_ENUM)
#undef LBP_COUNTER_ENUM
	CNT__MAX
};

/* The counters map's value: one block per CPU (a per-CPU array of one
 * element), which user space reads per CPU, by field. */
struct counter_block {
	__u64 n[CNT__MAX];
};


/* Both sides of every map must mean the same bytes: the BPF objects and
 * user space compile these, so a field added on one side only, or a
 * padding hole one compiler fills differently, stops the build.  A
 * change to a struct above changes its line here. */
#define LBP_SIZE(type, n)	_Static_assert(sizeof(struct type) == (n), \
					       "struct " #type ": size differs")
#define LBP_AT(type, field, n)	_Static_assert(__builtin_offsetof(struct type, field) == (n), \
					       "struct " #type ": " #field " moved")
LBP_SIZE(lj_offsets, 82);
LBP_AT(lj_offsets, g_vmstate, 4);
LBP_AT(lj_offsets, L_base, 16);
LBP_AT(lj_offsets, tr_nsnapmap, 70);
LBP_AT(lj_offsets, snap_mcofs, 72);
LBP_AT(lj_offsets, g_strnum, 74);
LBP_AT(lj_offsets, g2disp, 80);
LBP_SIZE(vm_slot, 136);
LBP_AT(vm_slot, off, 48);
LBP_SIZE(proc_info, 8 + LBP_MAX_VMS * 136 + 32);
LBP_AT(proc_info, vm, 8);
LBP_AT(proc_info, ngx, 8 + LBP_MAX_VMS * 136);
LBP_SIZE(lua_frame, 16);
LBP_AT(lua_frame, pc_off, 8);
LBP_AT(lua_frame, fp, 12);
LBP_SIZE(stack_trace, 24 + LBP_MAX_FRAMES * 16);
LBP_AT(stack_trace, frames, 24);
LBP_SIZE(proto_news, 40 + PROTO_NEWS_STR + PROTO_NEWS_BLOCK);
LBP_AT(proto_news, str_bytes, 40);
LBP_AT(proto_news, block, 40 + PROTO_NEWS_STR);
LBP_SIZE(sample_key, 48);
LBP_AT(sample_key, vmstate, 8);
LBP_AT(sample_key, zone, 16);
LBP_AT(sample_key, stack_id, 24);
LBP_AT(sample_key, time_slot, 32);
LBP_AT(sample_key, req, 40);
LBP_SIZE(parked, 56);
LBP_AT(parked, since_ns, 48);
LBP_SIZE(native_regs, 16 + 8 * NATIVE_NREGS);
LBP_AT(native_sample, regs, 48);
LBP_AT(native_sample, cframe, 64 + 8 * NATIVE_NREGS);
LBP_AT(native_sample, stack_len, 80 + 8 * NATIVE_NREGS);
LBP_AT(native_sample, stack, 88 + 8 * NATIVE_NREGS);
LBP_SIZE(native_sample, 88 + 8 * NATIVE_NREGS + NATIVE_STACK_MAX);
/* Per-CPU values sit in 8-byte slots: the block must fill its own. */
LBP_SIZE(counter_block, 8 * CNT__MAX);
#undef LBP_SIZE
#undef LBP_AT

#endif
