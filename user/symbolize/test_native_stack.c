// SPDX-License-Identifier: MIT
/* --native's unwinder and interleaving, fed recorded inputs: this program's
 * own stack, copied with its registers at a known point (as the sampler
 * copies a target's), unwound by the CFI of this program and libc through
 * /proc/self; VM activations are laid into the copy by hand (a C frame
 * returning into a stand-in for the interpreter, and one returning into
 * C), and random stacks check that bad input ends an unwind cleanly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "base/unit.h"
#include "model/profile.h"
#include "symbolize/native_stack.h"
#include "native/nmods.h"
#include "proc/procmaps.h"

#define CF_SIZE	80	/* x64 CFRAME_SIZE with external unwinding */
#define CF_PREV	32	/* CFRAME_OFS_PREV */

static struct native_sample rec;
static uint64_t leaf3_ret;	/* leaf3's return address, to find its CFA */
static volatile int sink;

/* Stands in for the interpreter: only its address range is used. */
static __attribute__((noinline, noclone)) int vm_blob(int x)
{
	return x * 3 + sink;
}

#define CAPTURE(nr_)                                                           \
	__asm__ volatile("lea 0(%%rip), %%rax\n\tmov %%rax, %0\n\t"             \
			 "mov %%rsp, %1\n\tmov %%rbp, %2\n\tmov %%rbx, %3\n\t"  \
			 "mov %%r12, %4\n\tmov %%r13, %5\n\tmov %%r14, %6\n\t"  \
			 "mov %%r15, %7"                                        \
			 : "=m"((nr_).ip), "=m"((nr_).sp), "=m"((nr_).r[0]), "=m"((nr_).r[1]), \
			   "=m"((nr_).r[2]), "=m"((nr_).r[3]), "=m"((nr_).r[4]), "=m"((nr_).r[5]) \
			 : : "rax")

/* The copy reads the stack beyond this frame's objects, as the sampler
 * does: word by word, out of AddressSanitizer's sight. */
static __attribute__((noinline, no_sanitize_address)) void copy_stack(uint8_t *to, uint64_t from,
								     uint64_t len)
{
	for (uint64_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v = *(volatile uint64_t *)(uintptr_t)(from + i);

		__builtin_memcpy(to + i, &v, 8);
	}
}

/* Stands in for the C function an FFI call reached (nhost's physics_step):
 * only the CFI at its first instruction (CFA = SP + 8) is used. */
static __attribute__((noinline, noclone)) int physics_step(int x)
{
	return x + sink;
}

static __attribute__((noinline, noclone)) int leaf3(int x)
{
	volatile char pad[512];
	struct proc_maps maps = { 0 };
	const struct map_entry *e;
	uint64_t len = NATIVE_STACK_MAX;

	pad[x & 511] = (char)x;
	CAPTURE(rec.regs);
	leaf3_ret = (uint64_t)(uintptr_t)__builtin_return_address(0);
	/* Up to the stack's end, as the sampler's page-wise copy stops. */
	if (!procmaps_read(getpid(), &maps) && (e = procmaps_find(&maps, rec.regs.sp)) &&
	    e->end - rec.regs.sp < len)
		len = e->end - rec.regs.sp;
	procmaps_free(&maps);
	copy_stack(rec.stack, rec.regs.sp, len);
	rec.stack_len = (uint32_t)len;
	return pad[x & 511] + 1;
}

static __attribute__((noinline, noclone)) int leaf2(int x)
{
	return leaf3(x + 1) + sink + 1;
}

static __attribute__((noinline, noclone)) int leaf1(int x)
{
	return leaf2(x + 1) + sink + 2;
}

/* The stack as "a;b;c" (top first), native frames by symbol. */
static const char *names(const struct frame_sym **f, uint32_t n, struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sb_putc(sb, ';');
		if (f[i]->kind == SYM_NATIVE || f[i]->kind == SYM_C)
			sb_puts(sb, f[i]->cname ? f[i]->cname : "?");
		else if (f[i]->kind == SYM_UNKNOWN)
			sb_printf(sb, "[%s]", f[i]->name);
		else
			sb_puts(sb, f[i]->name ? f[i]->name : "?");
	}
	return sb->buf ? sb->buf : "";
}

static const struct frame_sym *lua(struct profile *p, const char *name)
{
	struct frame_sym f = { .kind = SYM_LUA, .name = name, .chunk = "@t.lua",
			       .firstline = 1, .line = -1 };

	return profile_frame(p, &f);
}

/* The address of the slot holding leaf3's return address: leaf3's CFA - 8. */
static uint64_t ret_slot(void)
{
	for (uint32_t off = 0; off + 8 <= rec.stack_len; off += 8) {
		uint64_t v;

		memcpy(&v, rec.stack + off, 8);
		if (v == leaf3_ret)
			return rec.regs.sp + off;
	}
	return 0;
}

static void put_word(uint64_t addr, uint64_t v)
{
	memcpy(rec.stack + (addr - rec.regs.sp), &v, 8);
}

static const struct frame_sym *ffi_call(struct profile *p, const char *cfunc)
{
	struct frame_sym f = { .kind = SYM_FF, .name = cfunc, .ffname = cfunc, .line = -1,
			       .firstline = -1 };

	return profile_frame(p, &f);
}

/* An FFI callback's activation inside an FFI call's: the sample in the
 * VM, the inner C frame returning into physics_step, which returns into
 * the VM, the outer C frame into leaf2.  As recorded on nhost (OpenResty's
 * LuaJIT): L->cframe already names the callback's C frame, the walker
 * still sees only the outer activation's frames (the FFI call, update).
 * slot: where leaf3's return address is. */
static void callback_entry(struct nmods *m, struct profile *p, const struct native_vm *vm,
			   uint64_t slot, struct strbuf *sb)
{
	const struct frame_sym *out[128], *lf[3];
	bool entry[3] = { false, true, false };
	struct native_in in = { .rec = &rec, .lua = lf, .entry = entry, .nlua = 2,
				.complete = true, .vms = vm, .nvms = 1 };
	uint64_t cf_out = slot + 8 - CF_SIZE, cf_in = cf_out - CF_SIZE - 16;
	enum native_end end;
	uint32_t n;
	const char *s;

	lf[0] = ffi_call(p, "physics_step");
	lf[1] = lua(p, "update");
	put_word(cf_in + CF_PREV, cf_out);
	put_word(cf_in + CF_SIZE - 8, (uint64_t)(uintptr_t)physics_step + 1);
	put_word(cf_in + CF_SIZE, vm->lo + 3);
	put_word(cf_out + CF_PREV, 0);
	rec.cframe = cf_in;
	rec.regs.ip = vm->lo + 1;
	n = native_merge(m, p, &in, out, 128, &end);
	s = names(out, n, sb);
	CHECK("callback entered: its activation has no Lua frame yet",
	      !strncmp(s, "physics_step;update;leaf2;leaf1;main;", 37));
	if (strncmp(s, "physics_step;update;leaf2;", 26))
		printf("  got %s\n", s);

	/* A walk cut short lost frames at the bottom, not the top: its
	 * frames go from the innermost activation on. */
	in.complete = false;
	n = native_merge(m, p, &in, out, 128, &end);
	s = names(out, n, sb);
	CHECK("callback, walk cut short: frames from the innermost activation",
	      !strncmp(s, "physics_step;update;physics_step;leaf2;", 39));

	/* Linked: on_hit begins the callback's activation. */
	lf[0] = lua(p, "on_hit");
	lf[1] = ffi_call(p, "physics_step");
	lf[2] = lua(p, "update");
	entry[0] = true, entry[1] = false, entry[2] = true;
	in.nlua = 3;
	in.complete = true;
	n = native_merge(m, p, &in, out, 128, &end);
	s = names(out, n, sb);
	CHECK("callback: on_hit;physics_step;update, each at its activation",
	      !strncmp(s, "on_hit;physics_step;update;leaf2;leaf1;main;", 44));
	if (strncmp(s, "on_hit;physics_step;update;leaf2;", 33))
		printf("  got %s\n", s);
}

/* A sample in the interpreter with no C frame linked, SP at a whole C frame
 * that returns into leaf2 (as lj_vm_pcall before it sets L->cframe). */
static void frame_at_sp(struct nmods *m, struct profile *p, const struct native_vm *vm,
			uint64_t slot, struct strbuf *sb)
{
	static struct native_sample r;
	const struct frame_sym *out[128];
	struct native_in in = { .rec = &r, .vms = vm, .nvms = 1 };
	uint64_t cf = slot + 8 - CF_SIZE;
	enum native_end end;
	uint32_t n;

	r = rec;
	r.regs.sp = cf;
	r.regs.ip = vm->lo + 1;
	r.cframe = 0;
	memcpy(r.stack, rec.stack + (cf - rec.regs.sp), rec.stack_len - (cf - rec.regs.sp));
	r.stack_len = rec.stack_len - (uint32_t)(cf - rec.regs.sp);
	n = native_merge(m, p, &in, out, 128, &end);
	CHECK("edge: the C frame at SP, its caller leaf2",
	      !strncmp(names(out, n, sb), "leaf2;leaf1;main;", 17) && end == NATIVE_BOTTOM);
}

static void fuzz(struct nmods *m, struct profile *p, const struct native_vm *vm)
{
	static struct native_sample r;
	const struct frame_sym *out[64], *lf[4];
	bool entry[4];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int ok = 1;

	for (int i = 0; i < 4; i++)
		lf[i] = lua(p, "fz");
	for (int it = 0; it < 3000 && ok; it++) {
		struct native_in in = { .rec = &r, .lua = lf, .entry = entry, .vms = vm, .nvms = 1 };
		enum native_end end;
		uint32_t n;

		for (size_t k = 0; k < 512; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* Words that point into the copy, into code, or nowhere. */
			switch (x & 3) {
			case 0: ((uint64_t *)r.stack)[k] = rec.regs.sp + (x >> 40) % 4096; break;
			case 1: ((uint64_t *)r.stack)[k] = vm->lo + (x >> 40) % 64; break;
			case 2: ((uint64_t *)r.stack)[k] = (uint64_t)(uintptr_t)leaf2 + (x >> 40) % 64; break;
			default: ((uint64_t *)r.stack)[k] = x; break;
			}
		}
		r.regs = rec.regs;
		r.regs.ip = ((uint64_t *)r.stack)[it % 512];
		r.stack_len = (uint32_t)((x >> 20) % 4097);
		r.cframe = it & 1 ? rec.regs.sp + (x >> 30) % 4096 : 0;
		in.nlua = (uint32_t)(x >> 50) % 5;
		for (int i = 0; i < 4; i++)
			entry[i] = (x >> (10 + i)) & 1;
		n = native_merge(m, p, &in, out, 64, &end);
		ok = n <= 64;
	}
	CHECK("fuzz: 3000 random stacks end cleanly", ok);
}

int main(void)
{
	struct nmods *m = nmods_new(getpid());
	struct profile *p = profile_new(99);
	const struct frame_sym *out[128], *lf[2];
	bool entry[2] = { true, true };
	struct native_vm vm = { (uint64_t)(uintptr_t)vm_blob, (uint64_t)(uintptr_t)vm_blob + 16,
				CF_PREV, CF_SIZE, 0 };
	struct native_in in = { .rec = &rec, .lua = lf, .entry = entry, .nlua = 2, .vms = &vm,
				.nvms = 1 };
	struct strbuf sb = STRBUF_INIT;
	enum native_end end;
	uint64_t slot, cf2, cf1;
	uint32_t n;
	const char *s;

	sink = leaf1(1) + vm_blob(0);
	{
		uint8_t code[16];

		CHECK("nmods_code: the bytes mapped at an address, from its file",
		      nmods_code(m, (uint64_t)(uintptr_t)vm_blob, code, sizeof(code)) ==
			      sizeof(code) &&
		      !memcmp(code, (const void *)(uintptr_t)vm_blob, sizeof(code)));
	}
	lf[0] = lua(p, "lua_inner");
	lf[1] = lua(p, "lua_outer");

	/* Plain C: CFI all the way to the thread's first frame. */
	n = native_merge(m, p, &in, out, 128, &end);
	s = names(out, n, &sb);
	CHECK("cfi: leaf3;leaf2;leaf1;main from the copy", !strncmp(s, "leaf3;leaf2;leaf1;main;", 23));
	CHECK("cfi: unwound to the bottom", end == NATIVE_BOTTOM);
	CHECK("cfi: without a VM activation, the Lua frames come last",
	      strstr(s, "_start;lua_inner;lua_outer") != NULL);
	if (end != NATIVE_BOTTOM || strncmp(s, "leaf3;leaf2;leaf1;main;", 23))
		printf("  got %s\n", s);

	/* A copy cut short: the frames it holds, then why it stopped. */
	rec.stack_len = 64;
	n = native_merge(m, p, &in, out, 128, &end);
	s = names(out, n, &sb);
	CHECK_STR("cut: leaf3, the Lua frames, then the cause", s,
		  "leaf3;lua_inner;lua_outer;[native: stack copy ended]");
	CHECK("cut: not the bottom", end == NATIVE_CUT);

	/* Two VM activations laid into the copy: the sample in the
	 * interpreter; the inner C frame returns into the interpreter, the
	 * outer into leaf2 (where leaf3's return address is). */
	sink = leaf1(1);
	slot = ret_slot();
	CHECK("fixture: leaf3's return address is in the copy", slot != 0);
	if (!slot)
		UNIT_EXIT();
	cf2 = slot + 8 - CF_SIZE;
	cf1 = cf2 - CF_SIZE - 64;
	CHECK("fixture: leaf3's frame holds both C frames", cf1 >= rec.regs.sp + 64);
	put_word(cf1 + CF_PREV, cf2);
	put_word(cf1 + CF_SIZE - 8, vm.lo + 2);
	put_word(cf2 + CF_PREV, 0);
	rec.cframe = cf1;
	rec.regs.ip = vm.lo + 1;
	/* rec.regs.sp stays below cf1: the interpreter's own frame. */
	n = native_merge(m, p, &in, out, 128, &end);
	s = names(out, n, &sb);
	CHECK("vm: each activation's Lua frames, then the C caller",
	      !strncmp(s, "lua_inner;lua_outer;leaf2;leaf1;main;", 37));
	CHECK("vm: unwound to the bottom", end == NATIVE_BOTTOM);
	if (strncmp(s, "lua_inner;lua_outer;leaf2;", 26))
		printf("  got %s\n", s);

	/* One activation for two Lua frames: both go at its place. */
	entry[0] = false;
	put_word(cf1 + CF_PREV, 0);
	rec.cframe = cf2;
	n = native_merge(m, p, &in, out, 128, &end);
	s = names(out, n, &sb);
	CHECK("vm: frames without an entry mark stay in their activation",
	      !strncmp(s, "lua_inner;lua_outer;leaf2;leaf1;main;", 37));

	/* No C frame for an activation: the Lua frames, then the cause (no
	 * return address at SP either). */
	rec.cframe = 0;
	put_word(rec.regs.sp + CF_SIZE - 8, 0);
	n = native_merge(m, p, &in, out, 128, &end);
	s = names(out, n, &sb);
	CHECK_STR("vm: no C frame", s, "lua_inner;lua_outer;[native: no C frame]");

	/* The outermost activation past saveregs, L->cframe not set yet:
	 * its C frame is at SP. */
	frame_at_sp(m, p, &vm, slot, &sb);

	callback_entry(m, p, &vm, slot, &sb);
	fuzz(m, p, &vm);
	sb_free(&sb);
	profile_free(p);
	nmods_free(m);
	UNIT_EXIT();
}
