/* SPDX-License-Identifier: MIT */
/* What the protobuf exporters (pprof, OTLP) share: one string table with
 * valid UTF-8 only, what a frame's function, line and mapping are, and
 * the labels a sample carries.  Each exporter encodes them in its own
 * messages; the content is the same, so the two formats agree.
 */
#ifndef LBP_PBFRAMES_H
#define LBP_PBFRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "report/export_stack.h"

struct pbframes {
	const struct profile *p;
	const struct export_opts *o;	/* normalized (export_opts_norm) */
	char name_scope;		/* 'f' or 'F': lines live in Location */
	struct keytab strings;		/* string table, index = string id */
	struct strbuf text;		/* scratch */
};

/* Starts with string 0, "".  p and o (normalized) must outlive f. */
void pbframes_init(struct pbframes *f, const struct profile *p, const struct export_opts *o);

/* The profile whose frames come next (one table, several profiles). */
void pbframes_use(struct pbframes *f, const struct profile *p, const struct export_opts *o);
void pbframes_free(struct pbframes *f);

/* The id of s[0..n) (invalid UTF-8 replaced: proto3 strings must be valid). */
uint64_t pbframes_str(struct pbframes *f, const char *s, size_t n);
uint64_t pbframes_cstr(struct pbframes *f, const char *s);

/* String ids, zero for none. */
struct pb_function {
	uint64_t name, system_name, filename;
	int64_t start_line;
};

/* A C function's file mapping in the target, as /proc/PID/maps gave it:
 * with the build ID (lower-case hex; "" for none), a backend with the
 * debug info can symbolize the address later. */
struct pb_mapping {
	uint64_t start, limit, offset, filename, build_id;
};

void pbframes_function(struct pbframes *f, const struct xframe *xf, const struct sample *s,
		       struct pb_function *out);

/* The current line, or the definition line when unknown, as 'l' prints;
 * 0 for frames without lines. */
int64_t pbframes_line(const struct xframe *xf);

/* The frame's file mapping and address in it; false for Lua and
 * synthetic frames (the exporters' "[lua]" mapping). */
bool pbframes_mapping(struct pbframes *f, const struct xframe *xf, struct pb_mapping *out,
		      uint64_t *address);

/* A sample's labels, in this order: pid, tid, comm, the container's
 * (container_id, container, pod, pod_uid, namespace) when
 * known, state (time profiles), vmstate, trace, trace_start, zone and
 * jit_abort (Lua samples). */
struct pb_label_sink {
	void *ctx;
	void (*str)(void *ctx, const char *key, const char *value);
	void (*num)(void *ctx, const char *key, int64_t value);
};

void pbframes_labels(struct pbframes *f, const struct sample *s, const struct pb_label_sink *out);

/* The sampling period: bytes per alloc sample, else nanoseconds per
 * sample at hz (0 without hz). */
uint64_t pbframes_period(const struct profile *p);

/* The time type of a CPU, off-CPU or wall profile: "cpu", "off_cpu",
 * "wall". */
const char *pbframes_time_type(const struct profile *p);

/* A sample's value in the unit of the second (pprof) or only (OTLP)
 * sample type: nanoseconds, or bytes for alloc. */
uint64_t pbframes_value(const struct profile *p, const struct sample *s);

#endif
