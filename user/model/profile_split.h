/* SPDX-License-Identifier: MIT */
/* Cutting a profile apart: the samples of one process as a profile of its
 * own (continuous mode ships one profile per process), and a wall
 * profile cut into its on- and off-CPU halves. */
#ifndef LBP_PROFILE_SPLIT_H
#define LBP_PROFILE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* The distinct pids with a non-zero count, ascending; *pids is malloc'd
 * (NULL when there are none).  Returns how many. */
size_t profile_pids(const struct profile *p, uint32_t **pids);

/* A new profile with pid's samples, frames and comm, and p's hz, start
 * and duration; its stats count only samples and host.  NULL when out of
 * memory. */
struct profile *profile_of_pid(const struct profile *p, uint32_t pid);

/* One half of a wall profile as a profile of its own (continuous mode's
 * -e cpu,off-cpu ships them as two profile types): PROFILE_CPU keeps the
 * on-CPU samples and counts them as samples, PROFILE_OFFCPU keeps the
 * time off the CPU (blocked and waiting) in nanoseconds.  The stats count
 * samples and host as profile_of_pid does.  NULL when out of memory, or
 * when p is not a wall profile or e is another event. */
struct profile *profile_of_event(const struct profile *p, enum profile_event e);

#endif
