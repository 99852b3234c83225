// SPDX-License-Identifier: MIT
/* Spans of a thread's time to nested frame slices. */
#include "report/timeline_slices.h"

static void close_down_to(const struct tl_sink *sink, const struct tl_span *open,
			  uint32_t keep, uint64_t t)
{
	for (uint32_t d = open ? open->nframes : 0; d > keep; d--)
		sink->close(sink->ctx, open->frames[d - 1], t);
}

uint64_t tl_slice(const struct tl_span *spans, size_t n, uint64_t join_ns,
		  const struct tl_sink *sink)
{
	const struct tl_span *open = NULL;	/* its frames are the open slices */
	uint64_t end = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tl_span *s = &spans[i];
		uint64_t start = s->start;
		uint32_t common = 0;

		if (open && start < end)
			start = end;
		if (open && start - end > join_ns) {
			close_down_to(sink, open, 0, end);
			open = NULL;
		}
		if (open) {
			while (common < open->nframes && common < s->nframes &&
			       open->frames[common] == s->frames[common])
				common++;
			close_down_to(sink, open, common, start);
		}
		for (uint32_t d = common; d < s->nframes; d++)
			sink->open(sink->ctx, s->frames[d], start);
		open = s;
		end = s->end > start ? s->end : start + 1;
	}
	close_down_to(sink, open, 0, end);
	return end;
}
