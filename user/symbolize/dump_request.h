/* SPDX-License-Identifier: MIT */
/* `dump`'s nginx requests: for each coroutine of an nginx worker the
 * request it serves (user/nginx/ngx_request.h), through the layout row
 * that verified against the first request read; a process no row
 * verifies for gets no requests and one line that says why. */
#ifndef LBP_DUMP_REQUEST_H
#define LBP_DUMP_REQUEST_H

#include <stdbool.h>

#include "model/dump.h"
#include "heap/dump_thread.h"
#include "nginx/ngx_layout.h"

struct dump_requests {
	struct ngx_target target;
	bool known;		/* target verified */
	int tries;		/* requests tried against the table */
	char why[200];		/* the last refusal */
	bool with_query;
	int64_t now_ms;		/* wall clock, as nginx's start times are */
};

void dump_requests_init(struct dump_requests *s, bool with_query);

/* Gives t the request of the coroutine raw, when it serves one. */
void dump_requests_read(struct dump_requests *s, const struct heap_ctx *c,
			const struct dump_thread_raw *raw, struct dump_thread *t);

/* The refusal line for d, when requests were seen and none verified. */
void dump_requests_finish(const struct dump_requests *s, struct dump *d);

#endif
