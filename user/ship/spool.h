/* SPDX-License-Identifier: MIT */
/* The bounded queue of requests not yet delivered: files in --spool-dir
 * (they survive a restart and are sent first) or, without one, memory.
 * Either way it holds at most max_bytes; a request that does not fit
 * pushes the oldest ones out, and those drops are counted.
 * Not thread-safe: the shipper calls it under its lock.
 */
#ifndef LBP_SPOOL_H
#define LBP_SPOOL_H

#include <stddef.h>
#include <stdint.h>

struct push_req;
struct spool;

struct spool_stats {
	uint64_t queued, bytes;		/* now */
	uint64_t dropped, dropped_bytes; /* pushed out by the size limit, ever */
};

/* dir NULL: in memory.  Loads what a previous run left in dir for dest,
 * the backend and tenant this agent pushes to (one line, no control
 * characters): requests spooled for another dest are never sent here. */
struct spool *spool_open(const char *dir, const char *dest, uint64_t max_bytes, char *err,
			 size_t errlen);
void spool_close(struct spool *s);

/* Appends a copy of r.  Returns the number of older requests dropped to
 * make room, SPOOL_TOO_LARGE when r alone exceeds the spool (or is not a
 * request it keeps), SPOOL_WRITE_FAILED when it could not be written (a
 * full disk: logged with the reason); both count as dropped. */
#define SPOOL_TOO_LARGE		(-1)
#define SPOOL_WRITE_FAILED	(-2)
int spool_add(struct spool *s, const struct push_req *r);

/* A copy of the oldest request and its id; -1 when empty (or unreadable:
 * then it is dropped and the next one tried). */
int spool_peek(struct spool *s, struct push_req *out, uint64_t *id);

/* Removes request id if it is still queued (the size limit may have
 * pushed it out meanwhile). */
void spool_remove(struct spool *s, uint64_t id);

void spool_get_stats(const struct spool *s, struct spool_stats *st);

#endif
