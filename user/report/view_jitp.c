// SPDX-License-Identifier: MIT
/* The jit.p report from a profile: prof_cb's keys, prof_top's listing and
 * prof_annotate's source excerpts (jit/p.lua). */
#include "report/view_jitp.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/frame_fmt.h"
#include "report/export_stack.h"
#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/strbuf.h"
#include "base/textsafe.h"
#include "base/xalloc.h"

/* A string-keyed counter table: jit.p's count1, or one count2[k1]. */
struct key_entry {
	char *key;
	uint64_t count;
	bool nonfile;		/* annotate: the key names no source file */
	struct keymap *sub;	/* second-level counts, or NULL */
};

struct keymap {
	struct key_entry *entries;	/* insertion order */
	size_t n, cap;
	struct hashidx idx;		/* over entries, by key */
};

static void keymap_free(struct keymap *km)
{
	if (!km)
		return;
	for (size_t i = 0; i < km->n; i++) {
		free(km->entries[i].key);
		keymap_free(km->entries[i].sub);
		free(km->entries[i].sub);
	}
	free(km->entries);
	hashidx_free(&km->idx);
	memset(km, 0, sizeof(*km));
}

static uint64_t key_hash(const char *key)
{
	return hash_bytes(key, strlen(key), 0);
}

static uint64_t keymap_entry_hash(const void *ctx, uint32_t e)
{
	return key_hash(((const struct keymap *)ctx)->entries[e].key);
}

static bool keymap_entry_match(const void *ctx, uint32_t e, const void *key)
{
	return !strcmp(((const struct keymap *)ctx)->entries[e].key, key);
}

static const struct hashidx_ops keymap_ops = { keymap_entry_hash, keymap_entry_match };

/* Adds count to key's entry; the pointer is valid until the next add. */
static struct key_entry *keymap_add(struct keymap *km, const char *key, uint64_t count)
{
	struct key_entry *e;
	uint32_t found;
	size_t hint;

	found = hashidx_find(&km->idx, &keymap_ops, km, key_hash(key), key, &hint);
	if (found != HASHIDX_NONE) {
		e = &km->entries[found];
		e->count += count;
		return e;
	}
	if (km->n == km->cap) {
		km->cap = km->cap ? km->cap * 2 : 32;
		km->entries = xrealloc(km->entries, km->cap * sizeof(*km->entries));
	}
	hashidx_add(&km->idx, hint, (uint32_t)km->n);
	e = &km->entries[km->n++];
	memset(e, 0, sizeof(*e));
	e->key = xstrdup(key);
	e->count = count;
	return e;
}

/* jit.p sorts by count only, leaving ties to table order; the key breaks
 * them here so that the output is deterministic. */
static int entry_cmp(const void *a, const void *b)
{
	const struct key_entry *x = *(const struct key_entry *const *)a;
	const struct key_entry *y = *(const struct key_entry *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

static struct key_entry **keymap_sorted(const struct keymap *km)
{
	struct key_entry **v = xcalloc(km->n, sizeof(*v));

	for (size_t i = 0; i < km->n; i++)
		v[i] = &km->entries[i];
	qsort(v, km->n, sizeof(*v), entry_cmp);
	return v;
}

/* floor(v*100/total + 0.5) in doubles, as jit.p computes it. */
static long long percent(uint64_t v, uint64_t total)
{
	return (long long)((double)v * 100.0 / (double)total + 0.5);
}

static const char *vmstate_name(int32_t st)
{
	switch (st) {
	case -1: return "Interpreted";
	case -2: return "C code";
	case -3: return "Garbage Collector";
	default: return st >= 0 ? "Compiled" : "JIT Compiler";
	}
}

/* --vmstate-detail: the compiler's phases and the trace being run. */
static void put_vmstate_detail(struct strbuf *sb, const struct sample *s)
{
	switch (s->vmstate) {
	case -4: sb_puts(sb, "JIT Compiler (trace exit)"); return;
	case -5: sb_puts(sb, "JIT Compiler (record)"); return;
	case -6: sb_puts(sb, "JIT Compiler (optimize)"); return;
	case -7: sb_puts(sb, "JIT Compiler (assemble)"); return;
	}
	if (s->vmstate < 1) {
		sb_puts(sb, vmstate_name(s->vmstate));
		return;
	}
	sb_printf(sb, "Compiled trace %d", (int)s->vmstate);
	if (s->trace_start)
		sb_printf(sb, " (%s)", s->trace_start);
}

static void put_state_key(struct strbuf *sb, const struct sample *s, const struct jp_mode *m)
{
	if (s->flags & PSAMPLE_HOST)
		sb_puts(sb, "[host]");
	else if (m->states == 'z')
		sb_puts(sb, s->zone ? s->zone : "(none)");
	else if (m->states == 'g')	/* --group */
		sb_puts(sb, s->group ? s->group : "(other)");
	else if (m->vmstate_detail)
		put_vmstate_detail(sb, s);
	else
		sb_puts(sb, vmstate_name(s->vmstate));
}

static void put_stack_key(struct strbuf *sb, const struct sample *s, const char *fmt, int depth)
{
	if (s->flags & PSAMPLE_HOST)
		sb_puts(sb, "[host]");
	else if (!s->nframes)
		sb_puts(sb, LABEL_EMPTY);
	else
		stack_dump(sb, s->frames, s->nframes, fmt, depth);
}

/* The position of the first " < " or " > ", as (.-) [<>] (.*) finds it. */
static const char *find_split(const char *s)
{
	for (; *s; s++)
		if (s[0] == ' ' && (s[1] == '<' || s[1] == '>') && s[2] == ' ')
			return s;
	return NULL;
}

struct section {
	struct keymap count1;
	uint64_t total;
};

/* prof_cb for one sample class. */
static void section_add(struct section *sec, const struct sample *s, const struct jp_mode *m,
			struct strbuf *stack, struct strbuf *stack2, struct strbuf *state)
{
	const char *k1 = NULL, *k2 = NULL, *ks = NULL, *ks2 = NULL, *kst = NULL;
	struct key_entry *e;

	sec->total += s->count;
	sb_reset(stack);
	sb_reset(stack2);
	sb_reset(state);
	if (m->states) {
		put_state_key(state, s, m);
		kst = sb_str(state);
	}
	if (m->has_fmt) {
		put_stack_key(stack, s, m->fmt, m->depth);
		ks = sb_str(stack);
		if (m->split == JP_SPLIT_STACK) {
			const char *sep = find_split(ks);

			if (sep) {
				sb_puts(stack2, sep + 3);
				sb_truncate(stack, (size_t)(sep - ks));
				ks = sb_str(stack);
				ks2 = sb_str(stack2);
			}
		} else if (m->split == JP_SPLIT_LINE) {
			put_stack_key(stack2, s, "l", 1);
			ks2 = sb_str(stack2);
		}
	}
	if (m->split == JP_SPLIT_STATE) {
		k1 = kst;
		k2 = kst ? ks : NULL;
	} else if (ks) {
		k1 = ks;
		k2 = ks2 ? ks2 : kst;
	}
	if (!k1)
		return;
	e = keymap_add(&sec->count1, k1, s->count);
	/* Annotations group keys by file; only Lua frames name one. */
	if (!s->nframes || s->frames[0]->kind != SYM_LUA)
		e->nonfile = true;
	if (k2) {
		if (!e->sub)
			e->sub = xcalloc(1, sizeof(*e->sub));
		keymap_add(e->sub, k2, s->count);
	}
}

/* prof_top: the listing, nested once for the second key. */
static void write_top(FILE *out, const struct keymap *km, uint64_t total,
		      const char *indent, const struct jp_mode *m)
{
	struct key_entry **v = keymap_sorted(km);
	const char *indent2 = m->split == JP_SPLIT_LINE || m->split == JP_SPLIT_STATE ? "  -- " :
			      m->depth < 0 ? "  -> " : "  <- ";

	for (size_t i = 0; i < km->n; i++) {
		const struct key_entry *e = v[i];
		long long pct = percent(e->count, total);

		if (pct < m->min)
			break;
		if (m->graph) {
			text_fput(out, e->key);
			fprintf(out, " %llu\n", (unsigned long long)e->count);
		} else {
			if (m->raw)
				fprintf(out, "%s%5llu  ", indent, (unsigned long long)e->count);
			else
				fprintf(out, "%s%2lld%%  ", indent, pct);
			text_fput(out, e->key);
			fputc('\n', out);
		}
		if (e->sub && !*indent)
			write_top(out, e->sub, e->count, indent2, m);
	}
	free(v);
}

/* Lines beyond this are not kept: a garbled line number must not make us
 * allocate gigabytes, and no source file is that long. */
#define ANN_MAX_LINE	(1u << 24)

/* One annotated file: the shown value per line, -1 when not hot. */
struct ann_file {
	char *name;
	bool nonfile;
	long long *hot;
	size_t nlines;		/* entries in hot[] */
};

static int ann_file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ann_file *)a)->name, ((const struct ann_file *)b)->name);
}

static long long ann_hot(const struct ann_file *f, size_t line)
{
	return line < f->nlines ? f->hot[line] : -1;
}

static void ann_set(struct ann_file *f, size_t line, long long val)
{
	if (line > ANN_MAX_LINE)
		return;
	if (line >= f->nlines) {
		size_t n = line + 1;

		f->hot = xrealloc(f->hot, n * sizeof(*f->hot));
		for (size_t i = f->nlines; i < n; i++)
			f->hot[i] = -1;
		f->nlines = n;
	}
	f->hot[line] = val;
}

/* Splits "file:123" like ^(.*):(%d+)$; the line is 0 without a match. */
static size_t split_file_line(const char *key, size_t *line)
{
	size_t len = strlen(key), i = len;
	size_t val = 0, mul = 1;

	while (i > 0 && key[i - 1] >= '0' && key[i - 1] <= '9')
		i--;
	*line = 0;
	if (i == len || i == 0 || key[i - 1] != ':')
		return len;
	if (len - i > 9) {
		*line = ANN_MAX_LINE + 1;	/* cannot be a real line */
		return i - 1;
	}
	for (size_t j = len; j > i; j--, mul *= 10)
		val += (size_t)(key[j - 1] - '0') * mul;
	*line = val;
	return i - 1;
}

static FILE *default_open(const char *path, void *ctx)
{
	(void)ctx;
	return fopen(path, "r");
}

/* The lines of one opened file, excerpted or complete. */
static void annotate_lines(FILE *out, FILE *src, const struct ann_file *f, int ann,
			   const char *fmtv, const char *fmtn, int width)
{
	char *line = NULL;
	size_t cap = 0, n = 1, show = 0;
	ssize_t len;

	if (ann) {
		for (int i = 1; i <= ann; i++) {
			if (ann_hot(f, (size_t)i) >= 0) {
				/* jit.p stores true here and later fails on
				 * show+ann; the line number is what it meant. */
				show = (size_t)i;
				fputs("@@ 1 @@\n", out);
				break;
			}
		}
	}
	for (; (len = getline(&line, &cap, src)) >= 0; n++) {
		long long v = ann_hot(f, n);

		if (len > 0 && line[len - 1] == '\n')
			len--;
		if (len > 0 && line[0] == 27) {
			fputs("[Cannot annotate bytecode file]\n", out);
			break;
		}
		if (ann) {
			long long v2 = ann_hot(f, n + (size_t)ann);

			if (show) {
				if (v2 >= 0)
					show = n + (size_t)ann;
				else if (v >= 0)
					show = n;
				else if (show + (size_t)ann < n)
					show = 0;
			} else if (v2 >= 0) {
				show = n + (size_t)ann;
				fprintf(out, "@@ %zu @@\n", n);
			}
			if (!show)
				continue;
		}
		if (v >= 0)
			fprintf(out, fmtv, width, v);
		else
			fprintf(out, fmtn, width, "");
		/* The file is the target's: its bytes, not its escapes. */
		text_fput_lines(out, line, (size_t)len);
		fputc('\n', out);
	}
	free(line);
}

/* prof_annotate, except that a file that cannot be shown does not end the
 * report: the remaining files still follow. */
static void write_annotate(FILE *out, const struct keymap *km, uint64_t total,
			   const struct jp_mode *m, const struct view_jitp_opts *opts)
{
	struct ann_file *files = NULL;
	size_t nfiles = 0;
	uint64_t maxcount = 0;
	const char *fmtv, *fmtn;
	int width = 0;

	for (size_t i = 0; i < km->n; i++) {
		const struct key_entry *e = &km->entries[i];
		long long pct = percent(e->count, total);
		struct ann_file *f = NULL;
		size_t line, namelen;

		if (e->count > maxcount)
			maxcount = e->count;
		if (pct < m->min)
			continue;
		namelen = split_file_line(e->key, &line);
		for (size_t j = 0; j < nfiles && !f; j++)
			if (strlen(files[j].name) == namelen &&
			    !strncmp(files[j].name, e->key, namelen))
				f = &files[j];
		if (!f) {
			files = xrealloc(files, (nfiles + 1) * sizeof(*files));
			f = &files[nfiles++];
			memset(f, 0, sizeof(*f));
			f->name = xmalloc(namelen + 1);
			memcpy(f->name, e->key, namelen);
			f->name[namelen] = '\0';
		}
		f->nonfile |= e->nonfile;
		ann_set(f, line, m->raw ? (long long)e->count : pct);
	}
	qsort(files, nfiles, sizeof(*files), ann_file_cmp);
	if (m->raw) {
		uint64_t pow10 = 1;

		/* max(5, ceil(log10(maxcount))) */
		while (pow10 < maxcount) {
			pow10 *= 10;
			width++;
		}
		if (width < 5)
			width = 5;
		fmtv = "%*lld | ";
		fmtn = "%*s | ";
	} else {
		width = 3;
		fmtv = " %*lld%% | ";
		fmtn = "%*s   | ";
	}

	for (size_t i = 0; i < nfiles; i++) {
		struct ann_file *f = &files[i];
		FILE *src;

		if (f->nonfile || f->name[0] == '(' || f->name[0] == '[') {
			fputs("\n====== ", out);
			text_fput(out, f->name);
			fputs(" ======\n[Cannot annotate non-file]\n", out);
			continue;
		}
		errno = 0;
		src = opts && opts->open_source ? opts->open_source(f->name, opts->ctx)
						: default_open(f->name, NULL);
		if (!src) {
			int e = errno ? errno : ENOENT;

			fputs("====== ERROR: ", out);
			text_fput(out, f->name);
			fputs(": ", out);
			text_fput(out, f->name);
			fprintf(out, ": %s\n", strerror(e));
			continue;
		}
		fputs("\n====== ", out);
		text_fput(out, f->name);
		fputs(" ======\n", out);
		annotate_lines(out, src, f, m->ann, fmtv, fmtn, width);
		fclose(src);
	}
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].name);
		free(files[i].hot);
	}
	free(files);
}

static void write_section(FILE *out, const struct profile *p, const struct jp_mode *m,
			  const struct view_jitp_opts *opts, const struct profile_section *want)
{
	struct strbuf stack = STRBUF_INIT, stack2 = STRBUF_INIT, state = STRBUF_INIT;
	struct section sec;

	memset(&sec, 0, sizeof(sec));
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];

		if (profile_section_has(p, want, s) && s->count)
			section_add(&sec, s, m, &stack, &stack2, &state);
	}
	if (!sec.total) {
		if (!m->graph)
			fputs("[No samples collected]\n", out);
	} else if (m->ann != JP_ANN_NONE) {
		write_annotate(out, &sec.count1, sec.total, m, opts);
	} else {
		write_top(out, &sec.count1, sec.total, "", m);
	}
	keymap_free(&sec.count1);
	sb_free(&stack);
	sb_free(&stack2);
	sb_free(&state);
}

int view_jitp_write_opts(FILE *out, const struct profile *p, const struct jp_mode *m,
			 const struct view_jitp_opts *opts)
{
	struct profile_section *secs;
	size_t n = profile_sections(p, opts && opts->per_thread ? SECTION_THREAD :
				    opts && opts->per_process ? SECTION_PROCESS : SECTION_PROGRAM,
				    &secs);
	char title[128];

	for (size_t i = 0; i < n; i++) {
		if (!secs[i].all) {
			profile_section_title(p, &secs[i], title, sizeof(title));
			fputs(i ? "\n" : "", out);
			text_fput(out, title);	/* holds the target's comm */
			fputc('\n', out);
		}
		write_section(out, p, m, opts, &secs[i]);
	}
	free(secs);
	return ferror(out) ? -1 : 0;
}

int view_jitp_write(FILE *out, const struct profile *p, const struct jp_mode *m)
{
	return view_jitp_write_opts(out, p, m, NULL);
}
