// SPDX-License-Identifier: MIT
/* diff: read both sides, count them by the view's key, write the table
 * (or flame graph, or difffolded lines), then judge the --fail-if rules.
 * Reading is report/profile_read.c's, the statistics model/diff_*.c's. */
#include "cli/diff_cmd.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "cli/options.h"
#include "model/diff_gate.h"
#include "model/diff_keys.h"
#include "model/stackset.h"
#include "report/diff_out.h"
#include "report/diff_svg.h"
#include "report/heap_diff.h"
#include "report/output.h"
#include "report/profile_read.h"

#define MIN_PCT		0.5	/* text: noise rows of smaller keys are left out */

struct diff_run {
	const struct options *o;
	struct stackset side[2];
	const char *name[2];
	double span[2];		/* --per-second: ticks; else 0 (the totals) */
};

static const char *const side_name[2] = { "BASE", "NEW" };

static int read_sides(struct diff_run *d)
{
	const struct options *o = d->o;
	char err[512];

	for (int i = 0; i < 2; i++) {
		struct read_window w = { 0, 0 };
		const char *path = o->diff_paths[o->ndiff_paths == 2 ? i : 0];

		if (o->window[i][1])
			w = (struct read_window){ o->window[i][0], o->window[i][1] };
		d->name[i] = path;
		if (profile_read_path(path, &w, &d->side[i], err, sizeof(err))) {
			log_error("%s: %s", side_name[i], err);
			return -1;
		}
	}
	if ((d->side[0].has ^ d->side[1].has) & SS_HEAP) {
		log_error("BASE and NEW must both be CPU profiles or both heap profiles");
		return -1;
	}
	return 0;
}

/* The view's key must be in both sides' files. */
static int check_view(const struct diff_run *d, char view)
{
	static const char *const what[] = { "current lines ('l')", "VM states ('v')", "zones ('z')" };
	unsigned need = diff_view_needs(view);

	for (int i = 0; i < 2; i++) {
		unsigned miss = need & ~d->side[i].has;

		if (miss)
			log_error("%s (%s) carries no %s: that view needs luabpfprof's pprof (-o x.pb.gz)",
				  side_name[i], d->name[i],
				  what[miss & SS_HAS_LINES ? 0 : miss & SS_HAS_VMSTATE ? 1 : 2]);
		if (miss)
			return -1;
	}
	return 0;
}

static int set_spans(struct diff_run *d)
{
	for (int i = 0; i < 2; i++) {
		const struct stackset *s = &d->side[i];

		d->span[i] = 0;
		if (!d->o->per_second)
			continue;
		if (!(s->has & SS_HAS_DURATION) || !(s->ticks > 0)) {
			log_error("--per-second: %s (%s) carries no duration and rate (folded stacks do not)",
				  side_name[i], d->name[i]);
			return -1;
		}
		d->span[i] = s->ticks;
	}
	return 0;
}

static char view_of(const struct options *o)
{
	if (o->jp_mode.states)
		return o->jp_mode.states;
	return o->jp_mode.user_scope ? o->jp_mode.user_scope : 'F';
}

static void table_for(const struct diff_run *d, char view, double z, struct diff_table *t)
{
	diff_table_init(t, view);
	diff_table_count(t, &d->side[0], DIFF_BASE);
	diff_table_count(t, &d->side[1], DIFF_NEW);
	diff_table_finish(t, z, d->o->per_second ? d->span : NULL);
}

/* -o x.pb.gz: BASE's name, x.base.pb.gz. */
static void base_name_of(const char *out, char *buf, size_t len)
{
	size_t n = strlen(out), sl = strlen(".pb.gz");

	if (n > sl && !strcmp(out + n - sl, ".pb.gz"))
		snprintf(buf, len, "%.*s.base.pb.gz", (int)(n - sl), out);
	else
		snprintf(buf, len, "%s.base", out);
}

/* -f pprof: NEW merged into -o, BASE beside it. */
static int write_pair(const struct diff_run *d)
{
	char base[4096], err[256];
	const char *path[2] = { base, d->o->output };

	if (d->side[0].has & SS_HEAP) {
		log_error("heap profiles are pprof already: give go tool pprof -diff_base the two files");
		return -1;
	}
	base_name_of(d->o->output, base, sizeof(base));
	for (int i = 0; i < 2; i++) {
		struct output out = { 0 };
		int rc;

		if (output_open(&out, path[i], err, sizeof(err))) {
			log_error("%s", err);
			return -1;
		}
		rc = diff_pprof_write(out.f, &d->side[i]);
		if (output_commit(&out, err, sizeof(err)) || rc) {
			log_error("%s", rc ? "writing the pprof pair failed" : err);
			return -1;
		}
	}
	log_info("go tool pprof -diff_base %s %s", base, d->o->output);
	return 0;
}

static int write_report(const struct diff_run *d, const struct diff_table *t)
{
	const struct options *o = d->o;
	struct diff_out_opts oo = {
		.confidence = o->confidence, .per_second = o->per_second,
		.base_name = d->name[0], .new_name = d->name[1], .min_pct = MIN_PCT,
	};
	struct output out = { 0 };
	char err[256];
	int rc;

	if (o->fmt == FMT_PPROF)
		return write_pair(d);
	if (output_open(&out, o->output, err, sizeof(err))) {
		log_error("%s", err);
		return -1;
	}
	if (o->fmt == FMT_FOLDED)
		rc = diff_folded_write(out.f, &d->side[0], &d->side[1], t->span);
	else if (o->fmt == FMT_SVG)
		rc = diff_svg_write(out.f, &d->side[0], &d->side[1], t->span, &oo);
	else if (d->side[0].has & SS_HEAP)
		rc = heap_diff_write(out.f, &d->side[0], &d->side[1], &oo);
	else
		rc = diff_text_write(out.f, t, &d->side[0], &d->side[1], &oo);
	if (rc && !ferror(out.f))
		log_error("writing %s failed", o->output ? o->output : "the diff");
	if (output_commit(&out, err, sizeof(err))) {
		log_error("%s", err);
		return -1;
	}
	return rc ? -1 : 0;
}

static void say_broken(const struct diff_run *d, const struct diff_rule *r,
		       const struct diff_verdict *v, double conf)
{
	const char *unit = !r->view || r->relative ? "%" : " points";
	const char *of = r->view ? "%" : d->o->per_second ? " samples/s" : " samples";

	log_error("--fail-if '%s' broken: %+.2f%s, %g%% interval [%+.2f, %+.2f]; BASE %.2f%s, NEW %.2f%s",
		  r->text, v->value, unit, 100 * conf, v->lo, v->hi, v->base, of, v->now, of);
}

/* One rule: 1 broken, 0 kept, -1 when its key is in neither profile. */
static int judge_rule(const struct diff_run *d, const struct diff_rule *r, double conf)
{
	double z = diff_z(conf);
	struct diff_verdict v;
	struct diff_table t;
	const struct diff_row *row;

	if (!r->view) {
		double ta = d->o->per_second ? (double)d->side[0].duration_ns / 1e9 : 1;
		double tb = d->o->per_second ? (double)d->side[1].duration_ns / 1e9 : 1;

		diff_rule_eval_total(r, d->side[0].total, ta, d->side[1].total, tb, z, &v);
	} else {
		if (check_view(d, r->view))
			return -1;
		table_for(d, r->view, z, &t);
		row = diff_table_find(&t, r->key);
		if (!row) {
			log_error("--fail-if '%s': no key '%s' in view %c of BASE or NEW", r->text,
				  r->key, r->view);
			diff_table_free(&t);
			return -1;
		}
		diff_rule_eval_share(r, row->count[0], (uint64_t)ceil(t.span[0]), row->count[1],
				     (uint64_t)ceil(t.span[1]), z, &v);
		diff_table_free(&t);
	}
	if (v.broken)
		say_broken(d, r, &v, conf);
	return v.broken;
}

static int run_gate(const struct diff_run *d)
{
	const struct options *o = d->o;
	double conf = diff_rule_confidence(o->confidence, o->nfail_if);
	int broken = 0;

	for (int i = 0; i < o->nfail_if; i++) {
		struct diff_rule r;
		char err[256];
		int rc;

		diff_rule_parse(o->fail_if[i], &r, err, sizeof(err));	/* checked by options */
		rc = judge_rule(d, &r, conf);
		if (rc < 0)
			return 1;
		broken += rc;
	}
	return broken ? DIFF_EXIT_GATE : 0;
}

int diff_cmd_run(const struct options *o, volatile sig_atomic_t *stop)
{
	struct diff_run d = { .o = o };
	struct diff_table t = { 0 };
	char view = view_of(o);
	int rc = 1;

	(void)stop;	/* one short read or load: nothing to interrupt */

	stackset_init(&d.side[0]);
	stackset_init(&d.side[1]);
	if (read_sides(&d) || check_view(&d, view) || set_spans(&d))
		goto out;
	table_for(&d, view, diff_z(o->confidence), &t);
	if (write_report(&d, &t))
		goto out;
	rc = run_gate(&d);
out:
	diff_table_free(&t);
	stackset_free(&d.side[0]);
	stackset_free(&d.side[1]);
	return rc;
}
