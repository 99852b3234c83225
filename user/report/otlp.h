/* SPDX-License-Identifier: MIT */
/* OpenTelemetry profiles (OTLP, v1development, schema in tests/otlp): an
 * ExportProfilesServiceRequest in protobuf binary, as a file (-o X.otlp)
 * or an HTTP body (POST /v1development/profiles).
 *
 * One ResourceProfiles per resource (a process: service.name,
 * process.pid, process.executable.name, host.name, container.id and the
 * Kubernetes attributes where known), one Profile per sample type in it
 * (cpu, off_cpu, wall, alloc_space, inuse_space), and one dictionary for
 * all.  Frames, lines, mappings and labels are pprof's (pbframes.h); a
 * label becomes a sample attribute, but for pid, comm and the container
 * ones, which are the resource's, and tid, which is thread.id. */
#ifndef LBP_OTLP_H
#define LBP_OTLP_H

#include <stdint.h>
#include <stdio.h>

#include "model/profile.h"
#include "report/export.h"

struct heap_census;
struct heap_paths;

struct otlp_resource {
	const char *service;		/* service.name */
	uint32_t pid;			/* process.pid; 0: none */
	const char *comm;		/* process.executable.name, or NULL */
	const char *host;		/* host.name, or NULL */
	const struct proc_container *ctr;	/* or NULL */
};

struct otlp_request;

struct otlp_request *otlp_request_new(void);
void otlp_request_free(struct otlp_request *r);

/* Adds p (samples of res's process, or of several under one service) as
 * one Profile of res.  0, or -1 with EINVAL for bad options. */
int otlp_add_profile(struct otlp_request *r, const struct otlp_resource *res,
		     const struct profile *p, const struct export_opts *o);

/* Adds a heap census (inuse_space, bytes) read at time_ns: its paths,
 * and c's VM buffers as the heap pprof has them (heap_pprof.h). */
void otlp_add_heap(struct otlp_request *r, const struct otlp_resource *res,
		   const struct heap_paths *hp, const struct heap_census *c, uint64_t time_ns);

/* How many profiles were added. */
unsigned otlp_request_profiles(const struct otlp_request *r);

/* Appends the encoded request. */
void otlp_request_encode(struct otlp_request *r, struct strbuf *out);

/* The one-shot file: a resource per process, named by o->service (a
 * template, service_name.h) or the process's comm. */
int export_otlp(FILE *out, const struct profile *p, const struct export_opts *o);

#endif
