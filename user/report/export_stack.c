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

	if (f->kind != FRAME_LUA)
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

size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, min = 0x10000, c &= 0x07;
	} else {
		goto invalid;
	}
	if (len > n)
		goto invalid;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto invalid;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto invalid;
	*cp = c;
	return len;
invalid:
	*cp = 0xfffd;
	return 1;
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

static void keytab_rehash(struct keytab *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 256;
	uint32_t *slots = xrealloc(NULL, nslots * sizeof(*slots));

	memset(slots, 0, nslots * sizeof(*slots));
	for (uint32_t i = 0; i < t->n; i++) {
		size_t j = key_hash(t->keys[i], t->lens[i]) & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
}

uint32_t keytab_intern(struct keytab *t, const void *key, size_t len, bool *added)
{
	size_t j;
	char *copy;

	if ((t->n + 1) * 2 > t->nslots)
		keytab_rehash(t);
	j = key_hash(key, len) & (t->nslots - 1);
	while (t->slots[j]) {
		uint32_t i = t->slots[j] - 1;

		if (t->lens[i] == len && !memcmp(t->keys[i], key, len)) {
			if (added)
				*added = false;
			return i;
		}
		j = (j + 1) & (t->nslots - 1);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->keys = xrealloc(t->keys, t->cap * sizeof(*t->keys));
		t->lens = xrealloc(t->lens, t->cap * sizeof(*t->lens));
	}
	copy = xrealloc(NULL, len + 1);
	memcpy(copy, key, len);
	copy[len] = '\0';
	t->keys[t->n] = copy;
	t->lens[t->n] = len;
	t->slots[j] = ++t->n;
	if (added)
		*added = true;
	return t->n - 1;
}

void keytab_free(struct keytab *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->lens);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
