// SPDX-License-Identifier: MIT
/* The nginx layout's checks and a coroutine's request, on a made-up
 * worker's memory: a request, its r->ctx array with the Lua context at
 * a slot of its own, the request line, the core module's configurations. */
#include <stdint.h>
#include <string.h>

#include "base/unit.h"
#include "nginx/ngx_layout.h"
#include "nginx/ngx_request.h"

#define R	0x10000ull	/* ngx_http_request_t */
#define CTXS	0x20000ull	/* r->ctx */
#define LCTX	0x30000ull	/* ngx_http_lua_ctx_t */
#define LINE	0x40000ull	/* the request line and the strings */
#define CONF	0x50000ull	/* loc_conf / srv_conf arrays and confs */
#define COROUTINE	0x60000ull
#define LUA_INDEX	37
#define SPAN	0x2000

static uint8_t mem[7][SPAN];	/* 0x10000 .. 0x70000, by 0x10000 */

static int fake_read(void *ud, uint64_t addr, void *buf, size_t len)
{
	uint64_t page = addr >> 16, off = addr & 0xffff;

	(void)ud;
	if (page < 1 || page > 6 || off + len > SPAN)
		return -1;
	memcpy(buf, &mem[page - 1][off], len);
	return 0;
}

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(&mem[(addr >> 16) - 1][addr & 0xffff], &v, 8);
}

static void put_str(uint64_t at, uint64_t data, const char *s)
{
	size_t n = strlen(s);

	put64(at, n);
	put64(at + 8, data);
	memcpy(&mem[(data >> 16) - 1][data & 0xffff], s, n);
}

/* A GET /api/users/42?token=t request in content, its entry coroutine COROUTINE. */
static void build(const struct ngx_layout *row, uint16_t context)
{
	static const char line[] = "GET /api/users/42?token=t HTTP/1.1";
	uint32_t sig = 0x50545448;

	memset(mem, 0, sizeof(mem));
	memcpy(&mem[0][0], &sig, 4);
	put64(R + row->r_ctx, CTXS);
	put64(CTXS + 8 * 3, LCTX + 0x800);	/* another module's context */
	put64(CTXS + 8 * LUA_INDEX, LCTX);
	put64(LCTX + row->ctx_request, R);
	memcpy(&mem[2][row->ctx_context], &context, 2);
	put64(LCTX + row->ctx_entry_co + row->co_co, COROUTINE);
	put_str(R + row->r_request_line, LINE, line);
	put64(R + row->r_method_name, 3);
	put64(R + row->r_method_name + 8, LINE);
	put64(R + row->r_unparsed_uri, 21);
	put64(R + row->r_unparsed_uri + 8, LINE + 4);
	put_str(R + row->r_uri, LINE + 0x100, "/api/users/42");
	put_str(R + row->r_args, LINE + 0x200, "token=t");
	put_str(R + row->r_host, LINE + 0x300, "api.test");
	put64(R + row->r_loc_conf, CONF);
	put64(CONF, CONF + 0x100);
	put_str(CONF + 0x100 + row->clcf_name, CONF + 0x400, "/api/");
	put64(R + row->r_srv_conf, CONF + 0x40);
	put64(CONF + 0x40, CONF + 0x200);
	put_str(CONF + 0x200 + row->cscf_server_name, CONF + 0x500, "gw");
	put64(R + row->r_start_sec, 1700000000);
	put64(R + row->r_start_msec, 250);
}

/* identify's refusal after breaking the request with poke. */
static const char *refusal(const struct ngx_layout *row, uint64_t at, uint64_t v)
{
	static char why[300];
	struct ngx_reader rd = { fake_read, NULL };
	struct ngx_target t;

	build(row, 0x8);
	put64(at, v);
	if (!ngx_layout_identify(&rd, R, &t, why, sizeof(why)))
		return "(verified)";
	return why;
}

int main(void)
{
	const struct ngx_layout *row = ngx_layout_at(0);
	struct ngx_reader rd = { fake_read, NULL };
	struct ngx_target t;
	struct ngx_req q;
	char why[300];

	build(row, 0x8);
	CHECK("a request that reads as one verifies",
	      !ngx_layout_identify(&rd, R, &t, why, sizeof(why)) && t.row == row && t.line_checked);
	CHECK("the Lua context is found by its back pointer", t.ctx_index == LUA_INDEX);
	CHECK("entry coroutine", ngx_req_read(&rd, &t, COROUTINE, R, false, &q) == NGX_REQ_ENTRY);
	CHECK_STR("method", q.method, "GET");
	CHECK_STR("uri without the query", q.uri, "/api/users/42");
	CHECK_STR("phase", q.phase, "content");
	CHECK_STR("host", q.host, "api.test");
	CHECK_STR("location", q.location, "/api/");
	CHECK_STR("server", q.server, "gw");
	CHECK("start", q.start_ms == 1700000000250ll);
	ngx_req_read(&rd, &t, COROUTINE, R, true, &q);
	CHECK_STR("--with-query", q.uri, "/api/users/42?token=t");
	CHECK("another coroutine of the request",
	      ngx_req_read(&rd, &t, COROUTINE + 0x100, R, false, &q) == NGX_REQ_THREAD);

	build(row, 0x80);
	put64(R + row->r_request_line, 0);
	CHECK("a timer's made-up request verifies without a request line",
	      !ngx_layout_identify(&rd, R, &t, why, sizeof(why)) && !t.line_checked);
	CHECK("a timer is a timer", ngx_req_read(&rd, &t, COROUTINE, R, false, &q) == NGX_REQ_FAKE &&
	      !strcmp(q.phase, "timer") && !q.uri[0]);
	build(row, 0x8);
	ngx_layout_identify(&rd, R, &t, why, sizeof(why));
	put64(LCTX + row->ctx_request, R + 8);
	CHECK("a request whose context no longer points back is not believed",
	      ngx_req_read(&rd, &t, COROUTINE, R, false, &q) == NGX_REQ_NONE);

	CHECK("refused by name: signature",
	      strstr(refusal(row, R, 0), "'nginx 1.22 --with-compat, lua-nginx-module 0.10.23': "
				   "no \"HTTP\" signature") != NULL);
	CHECK("refused: no Lua context", strstr(refusal(row, LCTX + row->ctx_request, 0),
						"no Lua context") != NULL);
	CHECK("refused: phase bits", strstr(refusal(row, LCTX + row->ctx_context, 3),
					    "not one known bit") != NULL);
	CHECK("refused: method outside the line", strstr(refusal(row, R + row->r_method_name + 8,
								 LINE + 1), "method") != NULL);
	CHECK("refused: URI outside the line", strstr(refusal(row, R + row->r_unparsed_uri + 8,
							      LINE + 0x100), "URI") != NULL);
	CHECK("refused: r->uri not a path", strstr(refusal(row, R + row->r_uri + 8, LINE + 1),
						   "not a path") != NULL);
	CHECK_STR("phase names", ngx_phase_name(0x4000), "ssl_client_hello");
	CHECK("two bits are no phase", ngx_phase_name(0x6) == NULL);
	UNIT_EXIT();
}
