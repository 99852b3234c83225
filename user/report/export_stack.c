// SPDX-License-Identifier: MIT
/* The exported stack shape and the small tables every exporter uses. */
#include "report/export_stack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/frame_fmt.h"
#include "base/hashfn.h"
#include "base/xalloc.h"

int export_opts_norm(struct export_opts *out, const struct export_opts *in)
{
	static const struct export_opts defaults = { .scope = 'F', .pathstrip = true };

	*out = in ? *in : defaults;
	if (!out->scope)
		out->scope = 'F';
	if (out->scope != 'f' && out->scope != 'F' && out->scope != 'l') {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int export_finish(FILE *out)
{
	errno = 0;
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

enum vm_class vm_class_of(int32_t vmstate)
{
	/* lj_profile.c profile_trigger: EXIT, RECORD, OPT and ASM are all 'J'. */
	if (vmstate >= 0)
		return VM_COMPILED;
	switch (vmstate) {
	case -1: return VM_INTERP;
	case -2: return VM_C;
	case -3: return VM_GC;
	default: return VM_JIT;
	}
}

char vm_class_letter(enum vm_class c)
{
	return "NICGJ"[c < VM_NCLASS ? c : VM_JIT];
}

const char *vm_class_name(enum vm_class c)
{
	static const char *const names[VM_NCLASS] = {
		"Compiled", "Interpreted", "C code", "Garbage Collector", "JIT Compiler",
	};

	return names[c < VM_NCLASS ? c : VM_JIT];
}

static void xstack_push(struct xstack *st, enum xframe_kind kind,
			const struct frame_sym *sym)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 32;
		st->f = xrealloc(st->f, st->cap * sizeof(*st->f));
	}
	st->f[st->n].kind = kind;
	st->f[st->n].sym = sym;
	st->n++;
}

void xstack_build(struct xstack *st, const struct sample *s,
		  const struct export_opts *o, unsigned flags)
{
	bool host = s->flags & PSAMPLE_HOST;

	st->n = 0;
	if (flags & XS_PROCESS)
		xstack_push(st, XF_COMM, NULL);
	if (flags & XS_PID)
		xstack_push(st, XF_PID, NULL);
	if (o->zone_frames && !host)
		xstack_push(st, XF_ZONE, NULL);
	if (o->group_frames && !host)
		xstack_push(st, XF_GROUP, NULL);
	if (s->flags & PSAMPLE_TRUNCATED)
		xstack_push(st, XF_TRUNCATED, NULL);
	for (uint32_t i = s->nframes; i > 0; i--)
		if (s->frames[i - 1])
			xstack_push(st, XF_FRAME, s->frames[i - 1]);
	if (host && !s->nframes)
		xstack_push(st, XF_HOST, NULL);
	else if (!s->nframes)
		xstack_push(st, XF_EMPTY, NULL);
	/* A host sample ran no Lua, so it has no VM state worth a frame.  GC
	 * and JIT compiler time always get one: it is not the function's own
	 * time, and would hide in it otherwise. */
	if (!host && (o->vmstate_frames || vm_class_of(s->vmstate) == VM_GC ||
		      vm_class_of(s->vmstate) == VM_JIT))
		xstack_push(st, XF_VMSTATE, NULL);
}

void xstack_free(struct xstack *st)
{
	free(st->f);
	st->f = NULL;
	st->n = st->cap = 0;
}

void xframe_put(struct strbuf *sb, const struct xframe *f, const struct profile *p,
		const struct sample *s, const struct export_opts *o)
{
	switch (f->kind) {
	case XF_FRAME:
		frame_put(sb, f->sym, o->scope, o->pathstrip);
		break;
	case XF_COMM:
		sb_puts(sb, profile_comm(p, s->pid));
		break;
	case XF_PID:
		sb_printf(sb, "%u", o->per_process ? s->pid : profile_program_pid(p, s->pid));
		break;
	case XF_ZONE:
		sb_puts(sb, "[zone:");
		sb_puts(sb, s->zone ? s->zone : "(none)");
		sb_putc(sb, ']');
		break;
	case XF_GROUP:
		sb_puts(sb, "[group:");
		sb_puts(sb, s->group ? s->group : "(other)");
		sb_putc(sb, ']');
		break;
	case XF_TRUNCATED:
		sb_puts(sb, LABEL_TRUNCATED);
		break;
	case XF_EMPTY:
		sb_puts(sb, LABEL_EMPTY);
		break;
	case XF_HOST:
		sb_puts(sb, "[host]");
		break;
	case XF_VMSTATE:
		sb_putc(sb, '[');
		sb_puts(sb, vm_class_name(vm_class_of(s->vmstate)));
		sb_putc(sb, ']');
		break;
	}
}

bool export_multi_pid(const struct profile *p)
{
	for (size_t i = 1; i < p->nsamples; i++)
		if (p->samples[i].pid != p->samples[0].pid)
			return true;
	return false;
}

unsigned export_process_flags(const struct profile *p, const struct export_opts *o)
{
	uint32_t *keys;
	size_t n = 0;
	bool shared = false;

	if (o->per_process)
		return XS_PROCESS | (export_multi_pid(p) ? XS_PID : 0);
	keys = xcalloc(p->nsamples + 1, sizeof(*keys));
	for (size_t i = 0; i < p->nsamples && !shared; i++) {
		uint32_t key = profile_program_pid(p, p->samples[i].pid);
		const char *comm = profile_program_comm(p, key);
		size_t j = 0;

		while (j < n && keys[j] != key)
			j++;
		if (j < n)
			continue;
		for (j = 0; j < n && !shared; j++)
			shared = !strcmp(profile_program_comm(p, keys[j]), comm);
		keys[n++] = key;
	}
	free(keys);
	return XS_PROCESS | (shared ? XS_PID : 0);
}

/* lj_debug_shortname's form for chunks loaded from a string. */
static void put_string_chunk(struct strbuf *sb, const char *src)
{
	size_t len = strcspn(src, "\r\n"), max = 45, cut = 0;
	const unsigned char *u = (const unsigned char *)src;

	while (cut < len && cut < max) {
		uint32_t cp;

		cut += utf8_next(u + cut, len - cut, &cp);
	}
	sb_puts(sb, "[string \"");
	sb_putn(sb, src, cut);
	if (cut < strlen(src))
		sb_puts(sb, "...");
	sb_puts(sb, "\"]");
}

void export_chunk_file(struct strbuf *sb, const struct frame_sym *f)
{
	const char *chunk = f->chunk;

	if (f->kind != SYM_LUA)
		return;
	if (!chunk)
		chunk = "?";
	if (f->firstline == -1) {
		sb_puts(sb, "[builtin:");
		sb_puts(sb, chunk);
		sb_putc(sb, ']');
	} else if (*chunk == '@' || *chunk == '=') {
		sb_puts(sb, chunk + 1);
	} else {
		put_string_chunk(sb, chunk);
	}
}

void utf8_put_valid(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0;

	while (i < n) {
		uint32_t cp;
		size_t len = utf8_next(u + i, n - i, &cp);

		if (cp == 0xfffd && len == 1) {
			sb_putn(sb, s + start, i - start);
			sb_puts(sb, "\xef\xbf\xbd");
			start = i + 1;
		}
		i += len;
	}
	sb_putn(sb, s + start, n - start);
}

static uint64_t key_hash(const void *key, size_t len)
{
	return hash_bytes(key, len, 0);
}

struct keytab_key {
	const void *bytes;
	size_t len;
};

static uint64_t keytab_entry_hash(const void *ctx, uint32_t e)
{
	const struct keytab *t = ctx;

	return key_hash(t->keys[e], t->lens[e]);
}

static bool keytab_entry_match(const void *ctx, uint32_t e, const void *key)
{
	const struct keytab *t = ctx;
	const struct keytab_key *k = key;

	return t->lens[e] == k->len && !memcmp(t->keys[e], k->bytes, k->len);
}

static const struct hashidx_ops keytab_ops = { keytab_entry_hash, keytab_entry_match };

uint32_t keytab_intern(struct keytab *t, const void *key, size_t len, bool *added)
{
	struct keytab_key k = { key, len };
	uint32_t e;
	size_t hint;
	char *copy;

	e = hashidx_find(&t->idx, &keytab_ops, t, key_hash(key, len), &k, &hint);
	if (added)
		*added = e == HASHIDX_NONE;
	if (e != HASHIDX_NONE)
		return e;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->keys = xrealloc(t->keys, t->cap * sizeof(*t->keys));
		t->lens = xrealloc(t->lens, t->cap * sizeof(*t->lens));
	}
	copy = xmalloc(len + 1);
	memcpy(copy, key, len);
	copy[len] = '\0';
	hashidx_add(&t->idx, hint, t->n);
	t->keys[t->n] = copy;
	t->lens[t->n] = len;
	return t->n++;
}

void keytab_free(struct keytab *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->lens);
	hashidx_free(&t->idx);
	memset(t, 0, sizeof(*t));
}
