/* SPDX-License-Identifier: MIT */
/* How continuous mode names one process's profile in every sink: the
 * service name (--service, a template: report/service_name.h), the
 * labels (--label ones, pid, and the container's: container_id,
 * container, pod, pod_uid, namespace) and the file name's stem
 * (SERVICE-PID[-CONTAINER12][-TYPE]). */
#ifndef LBP_NAMING_H
#define LBP_NAMING_H

#include <stdint.h>

#include "model/profile.h"
#include "ship/push.h"

#define NAMING_MAX_BASE		32	/* --label */
#define NAMING_HOOK_LABELS	8	/* --label-from's (container/label_hook.h) */
#define NAMING_OWN_LABELS	(6 + NAMING_HOOK_LABELS)	/* pid, the container's five */
#define NAMING_MAX_LABELS	(NAMING_MAX_BASE + NAMING_OWN_LABELS)
#define NAMING_VALUE_MAX	128

struct naming {
	char service[64];		/* valid for every backend (push_service_name) */
	char stem[192];
	struct push_label labels[NAMING_MAX_LABELS];
	int nlabels;
	char values[NAMING_OWN_LABELS][NAMING_VALUE_MAX];	/* the pid's and the container's */
	char keys[NAMING_HOOK_LABELS][64];			/* --label-from's */
	int nkeys;
	int nvalues;
};

struct naming_in {
	const char *service;		/* --service (a template), or NULL: the comm */
	const char *comm;
	uint32_t pid;			/* 0: several processes under one service */
	const struct proc_container *ctr;	/* or NULL */
	const struct push_label *labels;	/* --label, parsed */
	int nlabels;
	const char *mark;		/* the stem's suffix: "", "-off_cpu", "-heap" ... */
	const char *suffix;		/* the service's: "" or ".heap" */
};

void naming_fill(struct naming *n, const struct naming_in *in);

#endif
