/* SPDX-License-Identifier: MIT */
/* --service templates: a service name made per process from what is
 * known about it, as Pyroscope's and Parca's agents allow:
 *   {comm}       the process name
 *   {pid}        the process id
 *   {container}  the container's name, else the first 12 digits of its id
 *   {container_id}, {pod}, {namespace}, {pod_uid}
 *   {label:K}    the value of --label K=V
 * Anything else is copied.  A template that expands to nothing (a host
 * process under '{container}') gives the comm. */
#ifndef LBP_SERVICE_NAME_H
#define LBP_SERVICE_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "base/strbuf.h"

struct service_vars {
	const char *comm;
	uint32_t pid;
	const struct proc_container *ctr;	/* or NULL */
	const char *const *labels;		/* "k=v" */
	int nlabels;
};

/* Whether tmpl holds a placeholder (else it names every process alike). */
bool service_is_template(const char *tmpl);

/* 0, or -1 with a one-line reason: an unknown placeholder, a '{' left open. */
int service_template_check(const char *tmpl, char *err, size_t errlen);

void service_expand(struct strbuf *out, const char *tmpl, const struct service_vars *v);

#endif
