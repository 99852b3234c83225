/* SPDX-License-Identifier: MIT */
/* Slices of a thread's timeline: its spans of time, each with a stack,
 * turned into nested opens and closes of frames, as a timeline viewer
 * draws them (Chrome trace B/E events, speedscope O/C events). */
#ifndef LBP_TIMELINE_SLICES_H
#define LBP_TIMELINE_SLICES_H

#include <stddef.h>
#include <stdint.h>

/* One stretch of a thread's time spent in one stack. */
struct tl_span {
	uint64_t start, end;		/* ns, end > start */
	const uint32_t *frames;		/* root first: frame indexes */
	uint32_t nframes;
};

/* Receives the slices as properly nested opens and closes, in time order:
 * a frame's close comes before the open of anything at the same instant
 * that replaces it. */
struct tl_sink {
	void *ctx;
	void (*open)(void *ctx, uint32_t frame, uint64_t t);
	void (*close)(void *ctx, uint32_t frame, uint64_t t);
};

/* Slices a thread's spans, sorted by start.  The frames two consecutive
 * spans share from the root stay open, so a function sampled ten times in
 * a row is one slice; a gap of more than join_ns between two spans closes
 * every frame (the thread ran nothing we saw).  A span that starts before
 * the previous one ended is moved to its end, keeping its length, so
 * slices never overlap.  Returns the time of the last close. */
uint64_t tl_slice(const struct tl_span *spans, size_t n, uint64_t join_ns,
		  const struct tl_sink *sink);

#endif
