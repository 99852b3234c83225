/* Cutting a profile apart: the samples of one process as a profile of its
 * own (continuous mode ships one profile per process). */
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

#endif
