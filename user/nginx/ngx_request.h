/* SPDX-License-Identifier: MIT */
/* One coroutine's nginx request, read from outside: lua-nginx-module on
 * OpenResty's LuaJIT keeps the request in the coroutine's L->exdata
 * (lua_setexdata); from there the method, URI path (the query only when
 * asked: it holds tokens), Host, server and location names, the Lua phase
 * and the request's start, through a verified ngx_layout row.  A request
 * that no longer verifies (finished, its memory reused) is not believed:
 * a coroutine never carries a stale request's labels. */
#ifndef LBP_NGX_REQUEST_H
#define LBP_NGX_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "nginx/ngx_layout.h"

#define NGX_STR_MAX	128	/* bytes kept of each string; longer ones are cut */

enum ngx_req_kind {
	NGX_REQ_NONE,		/* no request, or one that does not verify */
	NGX_REQ_ENTRY,		/* the request's own (entry) coroutine */
	NGX_REQ_THREAD,		/* a light thread or coroutine of a request */
	NGX_REQ_FAKE,		/* a timer, init_worker, ...: no client request */
};

struct ngx_req {
	enum ngx_req_kind kind;
	uint64_t r;			/* the ngx_http_request_t */
	const char *phase;		/* "content", "timer", ... (static) */
	char method[NGX_STR_MAX], uri[NGX_STR_MAX], host[NGX_STR_MAX];
	char server[NGX_STR_MAX], location[NGX_STR_MAX];
	int64_t start_ms;		/* wall clock ms since the epoch; 0 unknown */
};

/* Reads the request of the coroutine at L whose exdata is r (0: none)
 * with the row t verified for the process.  Raw target bytes: escape
 * them on the way out.  Returns the kind (also in out->kind). */
enum ngx_req_kind ngx_req_read(const struct ngx_reader *rd, const struct ngx_target *t,
			       uint64_t L, uint64_t r, bool with_query, struct ngx_req *out);

/* "request", "light thread", "timer" (the phase of a fake request). */
const char *ngx_req_kind_name(const struct ngx_req *q);

#endif
