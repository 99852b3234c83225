// SPDX-License-Identifier: MIT
/* `dump`'s nginx requests (see dump_request.h). */
#include "symbolize/dump_request.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "heap/heap_mem.h"
#include "luajit/layout.h"
#include "nginx/ngx_request.h"

#define MAX_TRIES	16	/* requests tried against the table before giving up */

static int read_heap(void *ud, uint64_t addr, void *buf, size_t len)
{
	return heap_mem_read(ud, addr, buf, len);
}

void dump_requests_init(struct dump_requests *s, bool with_query)
{
	memset(s, 0, sizeof(*s));
	s->with_query = with_query;
	s->now_ms = (int64_t)(clock_ns(CLOCK_REALTIME) / 1000000ull);
}

void dump_requests_read(struct dump_requests *s, const struct heap_ctx *c,
			const struct dump_thread_raw *raw, struct dump_thread *t)
{
	struct ngx_reader rd = { read_heap, c->mem };
	struct dump_request *dq;
	struct ngx_req q;
	uint64_t r = 0;

	/* A dead coroutine's request is finished; the main thread keeps the
	 * last filter's or log phase's request after it returned. */
	if (!c->lay->L_exdata || raw->status == DUMP_DEAD || (raw->main && raw->status != DUMP_RUNNING) ||
	    heap_mem_read(c->mem, raw->L + c->lay->L_exdata, &r, sizeof(r)) || !r)
		return;
	if (!s->known) {
		if (s->tries >= MAX_TRIES)
			return;
		s->tries++;
		if (ngx_layout_identify(&rd, r, &s->target, s->why, sizeof(s->why)))
			return;
		s->known = true;
	}
	if (ngx_req_read(&rd, &s->target, raw->L, r, s->with_query, &q) == NGX_REQ_NONE)
		return;
	dq = dump_set_request(t, ngx_req_kind_name(&q), q.phase, q.r,
			      q.start_ms ? s->now_ms - q.start_ms : -1);
	if (q.kind != NGX_REQ_FAKE)
		dump_request_names(dq, q.method, q.uri, q.host, q.server, q.location);
}

void dump_requests_finish(const struct dump_requests *s, struct dump *d)
{
	char line[320];

	if (s->known || !s->tries)
		return;
	snprintf(line, sizeof(line), "nginx requests not read: no layout row verifies (%s)", s->why);
	d->requests_refused = xstrdup(line);
}
