// SPDX-License-Identifier: MIT
/* The text table of `luabpfprof diff` (see diff_out.h). */
#include "report/diff_out.h"

#include <math.h>

#include "base/strbuf.h"
#include "base/textsafe.h"

static void put_side(FILE *f, const char *label, const char *name, const struct stackset *s)
{
	struct strbuf sb = STRBUF_INIT;

	text_put(&sb, name);
	fprintf(f, "# %s %s: %llu samples, %u profile%s", label, sb_str(&sb),
		(unsigned long long)s->total, s->files, s->files == 1 ? "" : "s");
	if (s->has & SS_HAS_DURATION)
		fprintf(f, ", %.1f s", (double)s->duration_ns / 1e9);
	fputc('\n', f);
	sb_free(&sb);
}

static void put_row(FILE *f, const struct diff_table *t, const struct diff_row *r,
		    struct strbuf *sb)
{
	const struct share_change *c = &r->c;

	sb_reset(sb);
	text_put(sb, diff_row_key(t, r));
	fprintf(f, "%+8.2f  [%+7.2f, %+7.2f]  %-5s  %6.2f%%  %6.2f%%  %s\n", 100 * c->d,
		100 * c->lo, 100 * c->hi, c->significant ? "" : "noise", 100 * c->pa,
		100 * c->pb, sb_str(sb));
}

int diff_text_write(FILE *f, const struct diff_table *t, const struct stackset *base,
		    const struct stackset *now, const struct diff_out_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned left_out = 0;

	fprintf(f, "# luabpfprof diff, view %c: each key's %s in BASE and NEW, the change in points\n"
		"# and its %g%% interval (Newcombe's hybrid score); 'noise': the interval holds 0\n",
		t->view, o->per_second ? "share of one CPU's time" : "share of the samples",
		100 * o->confidence);
	put_side(f, "BASE", o->base_name, base);
	put_side(f, "NEW ", o->new_name, now);
	fprintf(f, "%8s  %-18s  %-5s  %7s  %7s  %s\n", "change", " interval", "", "BASE", "NEW",
		"key");
	for (uint32_t i = 0; i < t->nrows; i++) {
		const struct diff_row *r = &t->rows[i];

		if (!r->c.significant && 100 * fmax(r->c.pa, r->c.pb) < o->min_pct) {
			left_out++;
			continue;
		}
		put_row(f, t, r, &sb);
	}
	if (left_out)
		fprintf(f, "# %u key%s under %g%% in both, inside the noise, left out\n", left_out,
			left_out == 1 ? "" : "s", o->min_pct);
	sb_free(&sb);
	return ferror(f) ? -1 : 0;
}
