// SPDX-License-Identifier: MIT
/* Folded stacks ("collapsed", FlameGraph's input): one line per distinct
 * stack, root first, frames joined by ';', then a space and the count. */
#include "report/export.h"

#include <stdlib.h>
#include <string.h>

#include "base/textsafe.h"
#include "report/export_stack.h"

/* Percent-escapes the bytes that would break the line format, so that
 * decoding every %XX gives the label back: what base/textsafe.h escapes
 * everywhere (control characters, invalid UTF-8), the separators '%' and
 * ';', and the space of a trailing " <digits>" (a parser would take those
 * digits for a count). */
void export_folded_label(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t digits = n, space = n;

	while (digits > 0 && u[digits - 1] >= '0' && u[digits - 1] <= '9')
		digits--;
	if (digits < n && digits > 0 && u[digits - 1] == ' ')
		space = digits - 1;
	text_put_escaped(sb, s, space, "%;", TEXT_ESC_PERCENT);
	if (space < n) {
		text_put_escaped(sb, " ", 1, " ", TEXT_ESC_PERCENT);
		text_put_escaped(sb, s + space + 1, n - space - 1, "%;", TEXT_ESC_PERCENT);
	}
}

static const struct keytab *sort_tab;

static int cmp_lines(const void *a, const void *b)
{
	const struct keytab *t = sort_tab;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	size_t n = t->lens[i] < t->lens[j] ? t->lens[i] : t->lens[j];
	int c = memcmp(t->keys[i], t->keys[j], n);

	return c ? c : (t->lens[i] > t->lens[j]) - (t->lens[i] < t->lens[j]);
}

int export_folded(FILE *out, const struct profile *p, const struct export_opts *opts)
{
	struct export_opts o;
	struct keytab lines = KEYTAB_INIT;
	struct xstack st = { 0 };
	struct strbuf line = STRBUF_INIT, label = STRBUF_INIT;
	uint64_t *counts = NULL;
	uint32_t *order = NULL;
	unsigned flags;
	int err = -1;

	if (export_opts_norm(&o, opts))
		return -1;
	flags = export_process_flags(p, &o);
	counts = calloc(p->nsamples + 1, sizeof(*counts));
	if (!counts)
		goto cleanup;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];
		uint32_t idx;

		if (!s->count)
			continue;
		xstack_build(&st, s, &o, flags);
		sb_reset(&line);
		for (uint32_t k = 0; k < st.n; k++) {
			sb_reset(&label);
			xframe_put(&label, &st.f[k], p, s, &o);
			if (k)
				sb_putc(&line, ';');
			export_folded_label(&line, sb_str(&label), label.len);
		}
		/* Lines never outnumber samples, so counts[] is large enough. */
		idx = keytab_intern(&lines, sb_str(&line), line.len, NULL);
		counts[idx] += s->count;
	}
	order = malloc((lines.n + 1) * sizeof(*order));
	if (!order)
		goto cleanup;
	for (uint32_t i = 0; i < lines.n; i++)
		order[i] = i;
	sort_tab = &lines;
	qsort(order, lines.n, sizeof(*order), cmp_lines);
	for (uint32_t i = 0; i < lines.n; i++) {
		fwrite(lines.keys[order[i]], 1, lines.lens[order[i]], out);
		fprintf(out, " %llu\n", (unsigned long long)counts[order[i]]);
	}
	err = export_finish(out);
cleanup:
	free(order);
	free(counts);
	sb_free(&line);
	sb_free(&label);
	xstack_free(&st);
	keytab_free(&lines);
	return err;
}
