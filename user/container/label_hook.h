/* SPDX-License-Identifier: MIT */
/* --label-from PROGRAM: labels for a process from a program of the
 * user's, for what no runtime's files say (a scheduler's job name, a
 * rootless container's name, a team).  luabpfprof runs it once per
 * process, when the process becomes a target, as
 *
 *     PROGRAM PID CONTAINER_ID        (CONTAINER_ID "" outside containers)
 *
 * and reads "key=value" lines from its stdout: at most 4 KiB within
 * LABEL_HOOK_TIMEOUT_MS, or nothing is taken (base/hook.h: what may be
 * run, and how).  The keys container, pod and namespace set the
 * container's and pod's names (over what the runtime's files said);
 * other keys become labels of their own, at most LABEL_HOOK_MAX.  A key
 * is [A-Za-z_][A-Za-z0-9_]*, at most 63 bytes, not starting with "__"
 * and not one luabpfprof sets itself; a value is cleaned as the runtimes'
 * names are (bytes outside printable ASCII and {},="\ become '_'), at most
 * 127 bytes.  Lines that break these rules are skipped, counted in the
 * return value. */
#ifndef LBP_LABEL_HOOK_H
#define LBP_LABEL_HOOK_H

#include <sys/types.h>

#include "container/container.h"

#define LABEL_HOOK_TIMEOUT_MS	2000
#define LABEL_HOOK_MAX		8

/* Applies a program's output to c; returns the lines skipped. */
int label_hook_parse(const char *text, struct container_ref *c);

/* Runs the program for pid and applies its output to c: the lines
 * skipped, or -1 (c untouched) with the reason in err. */
int label_hook_run(const char *program, pid_t pid, struct container_ref *c, char *err,
		   size_t errlen);

#endif
