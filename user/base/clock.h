/* SPDX-License-Identifier: MIT */
/* Clock readings in nanoseconds. */
#ifndef LBP_CLOCK_H
#define LBP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

#endif
