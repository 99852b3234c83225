/* SPDX-License-Identifier: MIT */
/* Delivery of pushed profiles in the background: a thread takes the oldest
 * request from the spool, sends it, removes it once the backend took it
 * (or refused it for good), and retries with exponential backoff while
 * the backend is unreachable, so the sampling loop never waits on HTTP.
 */
#ifndef LBP_SHIPPER_H
#define LBP_SHIPPER_H

#include <stddef.h>
#include <stdint.h>

struct push_client;
struct push_req;
struct spool;

struct shipper_stats {
	uint64_t delivered, rejected, dropped, failed_attempts, queued;
};

struct shipper;

/* Takes ownership of client and spool.  Backoff doubles from 1 s up to
 * max_backoff_s. */
struct shipper *shipper_start(struct push_client *client, struct spool *spool, const char *url,
			      double max_backoff_s, char *err, size_t errlen);

/* Queues a copy of r (the spool may drop older ones to make room). */
void shipper_enqueue(struct shipper *sh, const struct push_req *r);

/* Keeps delivering until the queue is empty or timeout_s passed, then
 * stops the thread and frees everything.  What is left stays in a disk
 * spool for the next run.  Fills st (may be NULL) with the final figures. */
void shipper_stop(struct shipper *sh, double timeout_s, struct shipper_stats *st);

void shipper_get_stats(struct shipper *sh, struct shipper_stats *st);

#endif
