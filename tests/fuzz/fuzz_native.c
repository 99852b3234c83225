// SPDX-License-Identifier: MIT
/* libFuzzer target: --native's unwinder and interleaving on a copied stack
 * of the input's choosing (user/symbolize/native_stack.c, native/unwind.c).
 * The input is the sample: registers, the C frame chain's heads, the Lua
 * frames' entry marks, and the stack bytes.  Words of the input are bent
 * into addresses this process maps (its own code, which has CFI, and a
 * stand-in for the interpreter), so that unwinds go somewhere: every CFI
 * rule then reads the copy the input made.  The modules are this
 * process's own, read through /proc/self like a target's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/profile.h"
#include "symbolize/native_stack.h"
#include "native/nmods.h"

#define NLUA	6

static struct nmods *mods;
static struct profile *prof;
static const struct frame_sym *lua[NLUA];
static struct native_sample rec;
static volatile int sink;

static __attribute__((noinline)) int vm_blob(int x)
{
	return x * 7 + sink;
}

static __attribute__((noinline)) int code_blob(int x)
{
	return vm_blob(x + 1) + sink;
}

static void setup(void)
{
	static const char *names[NLUA] = { "a", "b", "c", "d", "e", "f" };

	mods = nmods_new(getpid());
	prof = profile_new(99);
	for (int i = 0; i < NLUA; i++) {
		struct frame_sym f = { .kind = i == 2 ? SYM_C : SYM_LUA, .name = names[i],
				       .chunk = "@f.lua", .firstline = 1, .line = -1,
				       .cfunc = (uint64_t)(uintptr_t)code_blob };

		lua[i] = profile_frame(prof, &f);
	}
}

/* A word of the input, bent by its low bits into a useful address. */
static uint64_t bend(uint64_t w, uint64_t sp)
{
	switch (w & 3) {
	case 0: return sp + ((w >> 2) % (NATIVE_STACK_MAX + 64));
	case 1: return (uint64_t)(uintptr_t)vm_blob + ((w >> 2) % 48);
	case 2: return (uint64_t)(uintptr_t)code_blob + ((w >> 2) % 64);
	default: return w >> 2;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct frame_sym *out[96];
	struct native_vm vm = { (uint64_t)(uintptr_t)vm_blob, (uint64_t)(uintptr_t)vm_blob + 24,
				32, (uint16_t)(size & 1 ? 96 : 80), 0 };
	bool entry[NLUA];
	struct native_in in = { .rec = &rec, .lua = lua, .entry = entry, .vms = &vm, .nvms = 1 };
	uint64_t head[8] = { 0 }, sp = 0x7ffd00001000ull;
	enum native_end end;
	size_t n;

	if (!mods)
		setup();
	memcpy(head, data, size < sizeof(head) ? size : sizeof(head));
	data += size < sizeof(head) ? size : sizeof(head);
	size -= size < sizeof(head) ? size : sizeof(head);
	memset(&rec.regs, 0, sizeof(rec.regs));
	rec.regs.sp = sp;
	rec.regs.ip = bend(head[0], sp);
	rec.regs.r[0] = bend(head[1], sp);	/* rbp (x19 on arm64) */
	rec.regs.r[1] = bend(head[2], sp);	/* rbx (x20) */
	rec.cframe = bend(head[3], sp);
	rec.cframe_resumer = head[4] & 1 ? bend(head[4] >> 1, sp) : 0;
	in.nlua = (uint32_t)(head[5] % (NLUA + 1));
	for (int i = 0; i < NLUA; i++)
		entry[i] = (head[5] >> (8 + i)) & 1;
	/* The stack: the rest of the input, its words bent likewise. */
	n = size < NATIVE_STACK_MAX ? size : NATIVE_STACK_MAX;
	memset(rec.stack, 0, sizeof(rec.stack));
	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, data + i, 8);
		w = bend(w, sp);
		memcpy(rec.stack + i, &w, 8);
	}
	rec.stack_len = (uint32_t)(head[6] & 1 ? n : (head[6] >> 1) % (NATIVE_STACK_MAX + 1));
	n = native_merge(mods, prof, &in, out, 96, &end);
	if (n > 96)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!out[i])
			abort();
	return 0;
}
