/* SPDX-License-Identifier: MIT */
/* Exporters: the profile model written as folded stacks, an SVG flame
 * graph, pprof, speedscope JSON or OTLP (otlp.h).  docs/formats.md describes
 * each output.
 */
#ifndef LBP_EXPORT_H
#define LBP_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/profile.h"
#include "base/strbuf.h"

enum out_format {
	FMT_TEXT, FMT_FOLDED, FMT_SVG, FMT_PPROF, FMT_SPEEDSCOPE, FMT_OTLP,
	/* Timelines: each sample keeps its time (model/timeline.h). */
	FMT_CHROME, FMT_SPEEDSCOPE_EVENTED,
};

/* Whether fmt shows samples in time, so the run must keep their times. */
static inline bool out_format_timeline(enum out_format fmt)
{
	return fmt == FMT_CHROME || fmt == FMT_SPEEDSCOPE_EVENTED;
}

/* "text", "folded", "svg", "pprof", "speedscope", "otlp", "chrome",
 * "speedscope-evented" (and the aliases "collapsed", "flamegraph",
 * "speedscope.json", "trace", "perfetto"); -1 if unknown. */
int out_format_parse(const char *name, enum out_format *fmt);

/* The format a file name implies: .svg, .pb.gz/.pprof, .folded/.collapsed,
 * .speedscope.json, .otlp, .trace.json (chrome), .evented.speedscope.json;
 * FMT_TEXT for anything else, NULL and "-". */
enum out_format out_format_from_path(const char *path);

const char *out_format_name(enum out_format fmt);

struct jw_result;

struct export_opts {
	char scope;		/* frame labels: 'F' (default, also for 0), 'f', 'l' */
	bool pathstrip;		/* keep only the file name of "@path" chunks */
	bool vmstate_frames;	/* add a [Compiled]/[Interpreted]/... leaf frame */
	bool zone_frames;	/* add a [zone:NAME] frame below the process root */
	bool group_frames;	/* --group: a [group:KEY] frame below it, the flame graph's root */
	bool icicle;		/* SVG: root at the top */
	bool per_process;	/* a pid frame under comm (folded, SVG), one speedscope
				 * profile per pid; else a program's processes merge */
	const char *title;	/* SVG title, speedscope name; NULL for a default */
	/* --jit: pprof labels each sample with the latest trace abort seen
	 * for its function (jit_abort); NULL for none. */
	const struct jw_result *jit;
	/* OTLP: each process's service.name, a --service template
	 * (service_name.h) with its labels ("k=v"); NULL: the comm. */
	const char *service;
	const char *const *labels;
	int nlabels;
};

/* Each returns 0, or -1 with errno set (EINVAL for bad options, the write
 * error otherwise).  opts may be NULL for the defaults. */
int export_folded(FILE *out, const struct profile *p, const struct export_opts *o);
/* Appends data[0..n) gzip-compressed (pprof's framing) to gz; -1 with
 * errno set. */
int export_gzip(struct strbuf *gz, const void *data, size_t n);
/* One frame's label in a folded line, escaped so that reading it back
 * (report/read_folded.c) gives s[0..n) again. */
void export_folded_label(struct strbuf *sb, const char *s, size_t n);
int export_svg(FILE *out, const struct profile *p, const struct export_opts *o);
int export_speedscope(FILE *out, const struct profile *p, const struct export_opts *o);
int export_pprof(FILE *out, const struct profile *p, const struct export_opts *o);
/* The timeline (export_timeline.c): Chrome trace events, one track per
 * thread, and speedscope's evented profiles, one per thread. */
int export_chrome(FILE *out, const struct profile *p, const struct export_opts *o);
int export_speedscope_evented(FILE *out, const struct profile *p, const struct export_opts *o);

/* Appends the gzip-compressed pprof profile to gz. */
int pprof_encode(const struct profile *p, const struct export_opts *o, struct strbuf *gz);

#endif
