// SPDX-License-Identifier: MIT
/* Reading a coroutine's request (see ngx_request.h). */
#include "nginx/ngx_request.h"

#include <stdio.h>
#include <string.h>

#define AGE_MAX_SEC	(400ll * 86400)	/* a start further back is not a start */

/* An ngx_str_t at addr, cut to NGX_STR_MAX - 1 bytes.  Empty when it
 * does not read. */
static void read_str(const struct ngx_reader *rd, uint64_t addr, char *out)
{
	uint64_t s[2];
	size_t n;

	out[0] = 0;
	if (rd->read(rd->ud, addr, s, sizeof(s)) || !s[1] || s[0] > (1u << 20))
		return;
	n = s[0] < NGX_STR_MAX - 1 ? (size_t)s[0] : NGX_STR_MAX - 1;
	if (rd->read(rd->ud, s[1], out, n))
		n = 0;
	out[n] = 0;
}

/* The ngx_str_t at field off of the core module's configuration whose
 * array pointer is at r + conf (loc_conf[0], srv_conf[0]). */
static void read_conf_str(const struct ngx_reader *rd, uint64_t r, unsigned conf, unsigned off,
			  char *out)
{
	uint64_t arr, cf;

	out[0] = 0;
	if (!rd->read(rd->ud, r + conf, &arr, 8) && arr && !rd->read(rd->ud, arr, &cf, 8) && cf)
		read_str(rd, cf + off, out);
}

/* uri + "?" + the args at addr, cut to what fits. */
static void append_query(const struct ngx_reader *rd, uint64_t addr, char *uri)
{
	char args[NGX_STR_MAX];
	size_t n = strlen(uri), a;

	read_str(rd, addr, args);
	a = strlen(args);
	if (!a || n + 2 >= NGX_STR_MAX)
		return;
	if (a > NGX_STR_MAX - n - 2)
		a = NGX_STR_MAX - n - 2;
	uri[n] = '?';
	memcpy(uri + n + 1, args, a);
	uri[n + 1 + a] = 0;
}

static void read_fields(const struct ngx_reader *rd, const struct ngx_layout *row, uint64_t r,
			bool with_query, struct ngx_req *q)
{
	int64_t sec = 0, msec = 0;

	read_str(rd, r + row->r_method_name, q->method);
	read_str(rd, r + row->r_uri, q->uri);
	read_str(rd, r + row->r_host, q->host);
	read_conf_str(rd, r, row->r_srv_conf, row->cscf_server_name, q->server);
	read_conf_str(rd, r, row->r_loc_conf, row->clcf_name, q->location);
	if (with_query)
		append_query(rd, r + row->r_args, q->uri);
	if (!rd->read(rd->ud, r + row->r_start_sec, &sec, 8) &&
	    !rd->read(rd->ud, r + row->r_start_msec, &msec, 8) && sec > AGE_MAX_SEC &&
	    msec >= 0 && msec < 1000)
		q->start_ms = sec * 1000 + msec;
}

enum ngx_req_kind ngx_req_read(const struct ngx_reader *rd, const struct ngx_target *t,
			       uint64_t L, uint64_t r, bool with_query, struct ngx_req *out)
{
	const struct ngx_layout *row = t->row;
	uint64_t ctx, co;
	uint16_t context;
	int idx = t->ctx_index;
	bool line;
	char why[96];

	memset(out, 0, sizeof(*out));
	if (!r || !row || ngx_layout_check(rd, row, r, &idx, &line, why, sizeof(why)) ||
	    rd->read(rd->ud, r + row->r_ctx, &ctx, 8) ||
	    rd->read(rd->ud, ctx + 8 * (uint64_t)idx, &ctx, 8) ||
	    rd->read(rd->ud, ctx + row->ctx_context, &context, 2) ||
	    rd->read(rd->ud, ctx + row->ctx_entry_co + row->co_co, &co, 8))
		return NGX_REQ_NONE;
	out->r = r;
	out->phase = ngx_phase_name(context);
	if (ngx_phase_is_fake(context))
		return out->kind = NGX_REQ_FAKE;
	read_fields(rd, row, r, with_query, out);
	return out->kind = co == L ? NGX_REQ_ENTRY : NGX_REQ_THREAD;
}

const char *ngx_req_kind_name(const struct ngx_req *q)
{
	switch (q->kind) {
	case NGX_REQ_ENTRY:
		return "request";
	case NGX_REQ_THREAD:
		return "light thread";
	case NGX_REQ_FAKE:
		return q->phase;
	default:
		return "none";
	}
}
