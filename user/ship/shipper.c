// SPDX-License-Identifier: MIT
/* The delivery thread: spool head -> push_send -> remove, with backoff. */
#include "ship/shipper.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "ship/push.h"
#include "ship/spool.h"

#define BACKOFF_FIRST_S	1.0
/* libcurl checks the abort deadline about once a second while a server
 * stays silent; the rest covers the agent's last interval and exit. */
#define ABORT_SLACK_S	2.5

struct shipper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct push_client *client;
	struct spool *spool;
	char *url;
	double max_backoff_s, backoff_s;
	double retry_at, deadline;	/* CLOCK_MONOTONIC seconds */
	bool stopping, failing;
	uint64_t delivered, rejected, failed_attempts;
};

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void wait_until(struct shipper *sh, double when)
{
	struct timespec t;

	t.tv_sec = (time_t)when;
	t.tv_nsec = (long)((when - (double)t.tv_sec) * 1e9);
	pthread_cond_timedwait(&sh->wake, &sh->lock, &t);
}

/* Records the outcome of one attempt; called with the lock held. */
static void settle(struct shipper *sh, uint64_t id, enum push_result res, const char *why)
{
	struct spool_stats st;

	switch (res) {
	case PUSH_OK:
		spool_remove(sh->spool, id);
		sh->delivered++;
		if (sh->failing) {
			spool_get_stats(sh->spool, &st);
			log_info("push: %s reachable again; %llu spooled profile(s) to send", sh->url,
				 (unsigned long long)st.queued);
		}
		sh->failing = false;
		sh->backoff_s = 0;
		sh->retry_at = 0;
		break;
	case PUSH_REJECTED:
		spool_remove(sh->spool, id);
		sh->rejected++;
		log_error("push: %s refused a profile (%s); it is dropped", sh->url, why);
		break;
	case PUSH_RETRY:
		sh->failed_attempts++;
		if (!sh->failing)
			log_warn("push: cannot deliver to %s (%s); spooling and retrying", sh->url, why);
		sh->failing = true;
		sh->backoff_s = sh->backoff_s ? sh->backoff_s * 2 : BACKOFF_FIRST_S;
		if (sh->backoff_s > sh->max_backoff_s)
			sh->backoff_s = sh->max_backoff_s;
		sh->retry_at = mono_s() + sh->backoff_s;
		break;
	}
}

static void *run(void *arg)
{
	struct shipper *sh = arg;
	struct push_req req;
	char why[300];
	uint64_t id;

	pthread_mutex_lock(&sh->lock);
	for (;;) {
		double now = mono_s();
		struct spool_stats st;
		enum push_result res;

		spool_get_stats(sh->spool, &st);
		/* Stopping: done when empty, out of time, or when the next
		 * retry would come too late anyway. */
		if (sh->stopping && (!st.queued || now >= sh->deadline || sh->retry_at >= sh->deadline))
			break;
		if (!st.queued) {
			pthread_cond_wait(&sh->wake, &sh->lock);
			continue;
		}
		if (now < sh->retry_at) {
			wait_until(sh, sh->stopping && sh->deadline < sh->retry_at ? sh->deadline :
				   sh->retry_at);
			continue;
		}
		if (spool_peek(sh->spool, &req, &id))
			continue;
		pthread_mutex_unlock(&sh->lock);
		res = push_send(sh->client, &req, why, sizeof(why));
		push_req_free(&req);
		pthread_mutex_lock(&sh->lock);
		settle(sh, id, res, why);
	}
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}

struct shipper *shipper_start(struct push_client *client, struct spool *spool, const char *url,
			      double max_backoff_s, char *err, size_t errlen)
{
	struct shipper *sh = calloc(1, sizeof(*sh));
	pthread_condattr_t ca;

	if (!sh || !(sh->url = strdup(url))) {
		snprintf(err, errlen, "out of memory");
		free(sh);
		push_client_free(client);
		spool_close(spool);
		return NULL;
	}
	sh->client = client;
	sh->spool = spool;
	sh->max_backoff_s = max_backoff_s < BACKOFF_FIRST_S ? BACKOFF_FIRST_S : max_backoff_s;
	pthread_mutex_init(&sh->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sh->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&sh->thread, NULL, run, sh)) {
		snprintf(err, errlen, "cannot start the push thread");
		pthread_cond_destroy(&sh->wake);
		pthread_mutex_destroy(&sh->lock);
		push_client_free(client);
		spool_close(spool);
		free(sh->url);
		free(sh);
		return NULL;
	}
	return sh;
}

void shipper_enqueue(struct shipper *sh, const struct push_req *r)
{
	struct spool_stats st;
	int dropped;

	pthread_mutex_lock(&sh->lock);
	dropped = spool_add(sh->spool, r);
	spool_get_stats(sh->spool, &st);
	if (dropped == SPOOL_WRITE_FAILED)
		log_warn("push: this profile could not be written to the spool (the reason is "
			 "above) and was dropped; %llu profile(s) dropped so far",
			 (unsigned long long)st.dropped);
	else if (dropped)
		log_warn("push: spool full (%llu bytes queued): %s; %llu profile(s) dropped so far",
			 (unsigned long long)st.bytes,
			 dropped < 0 ? "this profile was dropped" : "the oldest profiles were dropped",
			 (unsigned long long)st.dropped);
	pthread_cond_signal(&sh->wake);
	pthread_mutex_unlock(&sh->lock);
}

static void fill_stats(struct shipper *sh, struct shipper_stats *st)
{
	struct spool_stats ss;

	spool_get_stats(sh->spool, &ss);
	st->delivered = sh->delivered;
	st->rejected = sh->rejected;
	st->failed_attempts = sh->failed_attempts;
	st->dropped = ss.dropped;
	st->queued = ss.queued;
}

void shipper_get_stats(struct shipper *sh, struct shipper_stats *st)
{
	pthread_mutex_lock(&sh->lock);
	fill_stats(sh, st);
	pthread_mutex_unlock(&sh->lock);
}

void shipper_stop(struct shipper *sh, double timeout_s, struct shipper_stats *st)
{
	struct shipper_stats fin;

	if (!sh)
		return;
	pthread_mutex_lock(&sh->lock);
	sh->stopping = true;
	/* No attempt starts after the deadline, and the one in flight (to a
	 * backend that accepted and hangs) is cut off at it: libcurl notices
	 * within a second, so the slack keeps the whole stop in timeout_s. */
	sh->deadline = mono_s() + timeout_s - (timeout_s > ABORT_SLACK_S ? ABORT_SLACK_S : 0);
	push_client_abort_at(sh->client, (long long)(sh->deadline * 1e9));
	pthread_cond_signal(&sh->wake);
	pthread_mutex_unlock(&sh->lock);
	pthread_join(sh->thread, NULL);
	fill_stats(sh, &fin);
	if (st)
		*st = fin;
	pthread_cond_destroy(&sh->wake);
	pthread_mutex_destroy(&sh->lock);
	push_client_free(sh->client);
	spool_close(sh->spool);
	free(sh->url);
	free(sh);
}
