/* A process's Lua heap as one gzipped pprof heap profile (heap_pprof.h):
 * what the continuous agent ships each interval next to the CPU profile
 * when --heap is given. */
#ifndef LBP_HEAP_PROFILE_H
#define LBP_HEAP_PROFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "base/strbuf.h"

/* Walks the heap of pid's first VM into gz (replacing its content).
 * 0, or -1 with why (no VM, unreadable, out of memory). */
int heap_profile_pprof(pid_t pid, struct strbuf *gz, char *why, size_t whylen);

#endif
