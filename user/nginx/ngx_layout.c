// SPDX-License-Identifier: MIT
/* The nginx layout table and its checks (see ngx_layout.h). */
#include "nginx/ngx_layout.h"

#include <stdio.h>
#include <string.h>

#define NGX_SIGNATURE	0x50545448u	/* "HTTP": ngx_http_request_t.signature */
#define LINE_MAX_LEN	8192		/* client_header_buffer_size's ceiling */
#define METHOD_MAX	16

/* ngx_http_lua_ctx_t.context bits, read in lua-nginx-module 0.10.23's
 * src/ngx_http_lua_common.h (NGX_HTTP_LUA_CONTEXT_*); fake: the phase
 * runs on a request nginx makes up, with no client and no request line. */
#define NGX_PHASES(_)                                                        \
	_(0x0001, "set", false) _(0x0002, "rewrite", false)                  \
	_(0x0004, "access", false) _(0x0008, "content", false)               \
	_(0x0010, "log", false) _(0x0020, "header_filter", false)            \
	_(0x0040, "body_filter", false) _(0x0080, "timer", true)             \
	_(0x0100, "init_worker", true) _(0x0200, "balancer", false)          \
	_(0x0400, "ssl_cert", true) _(0x0800, "ssl_session_store", true)     \
	_(0x1000, "ssl_session_fetch", true) _(0x2000, "exit_worker", true)  \
	_(0x4000, "ssl_client_hello", true) _(0x8000, "server_rewrite", false)

static const struct {
	uint32_t bit;
	const char *name;
	bool fake;
} phases[] = {
#define PHASE_ROW(bit, name, fake) { bit, name, fake },
	NGX_PHASES(PHASE_ROW)
#undef PHASE_ROW
};

/* Offsets by offsetof() on nginx's source configured with Debian 12's
 * arguments (--with-compat, which pads ngx_http_request_t the same for
 * every module set, --with-debug, http_v2, realip, dav, ...) and
 * lua-nginx-module's headers built against OpenResty's LuaJIT. */
static const struct ngx_layout layouts[] = {
	{
		.name = "nginx 1.22 --with-compat, lua-nginx-module 0.10.23",
		.verified_on = "Debian 12 nginx 1.22.1-9+deb12u12 with libnginx-mod-http-lua "
			       "0.10.23-1+deb12u1, OpenResty LuaJIT GC64 and non-GC64",
		.r_ctx = 16, .r_srv_conf = 32, .r_loc_conf = 40, .r_host = 104 + 392,
		.r_start_sec = 960, .r_start_msec = 968,
		.r_request_line = 992, .r_uri = 1008, .r_args = 1024, .r_unparsed_uri = 1056,
		.r_method_name = 1072,
		.ctx_request = 8, .ctx_entry_co = 40, .ctx_context = 420, .ctx_scan = 256,
		.co_co = 8,
		.clcf_name = 0, .cscf_server_name = 64,
	},
};

int ngx_layout_count(void)
{
	return (int)(sizeof(layouts) / sizeof(layouts[0]));
}

const struct ngx_layout *ngx_layout_at(int i)
{
	return i >= 0 && i < ngx_layout_count() ? &layouts[i] : NULL;
}

const char *ngx_phase_name(uint32_t context)
{
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++)
		if (phases[i].bit == context)
			return phases[i].name;
	return NULL;
}

bool ngx_phase_is_fake(uint32_t context)
{
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++)
		if (phases[i].bit == context)
			return phases[i].fake;
	return false;
}

static int rd_u64(const struct ngx_reader *rd, uint64_t addr, uint64_t *v)
{
	return rd->read(rd->ud, addr, v, sizeof(*v));
}

static bool ptr_ok(uint64_t p)
{
	return p >= 4096 && p < (1ull << 47) && !(p & 7);
}

/* The Lua module's context among r->ctx[]: the entry pointing back at r;
 * only entry *index when it is known already (>= 0). */
static int find_lua_ctx(const struct ngx_reader *rd, const struct ngx_layout *row, uint64_t r,
			int *index)
{
	uint64_t ctxs[256], back;
	uint64_t arr;
	int lo = *index >= 0 ? *index : 0;
	int n = *index >= 0 ? 1 : row->ctx_scan < 256 ? row->ctx_scan : 256;

	if (rd_u64(rd, r + row->r_ctx, &arr) || !ptr_ok(arr) ||
	    rd->read(rd->ud, arr + 8 * (uint64_t)lo, ctxs, (size_t)n * sizeof(ctxs[0])))
		return -1;
	for (int i = 0; i < n; i++)
		if (ptr_ok(ctxs[i]) && !rd_u64(rd, ctxs[i] + row->ctx_request, &back) && back == r) {
			*index = lo + i;
			return 0;
		}
	return -1;
}

/* The request line reads as "METHOD SP target ...", method_name and
 * unparsed_uri point into it, and r->uri is a path. */
static int check_line(const struct ngx_reader *rd, const struct ngx_layout *row, uint64_t r,
		      const char **bad)
{
	uint64_t line[2], meth[2], unparsed[2], uri[2];
	char head[METHOD_MAX + 2], c0;

	if (rd->read(rd->ud, r + row->r_request_line, line, sizeof(line)) ||
	    rd->read(rd->ud, r + row->r_method_name, meth, sizeof(meth)) ||
	    rd->read(rd->ud, r + row->r_unparsed_uri, unparsed, sizeof(unparsed)) ||
	    rd->read(rd->ud, r + row->r_uri, uri, sizeof(uri)))
		return *bad = "its string fields do not read", -1;
	if (!line[0] || line[0] > LINE_MAX_LEN || !line[1])
		return *bad = "the request line's length is not one", -1;
	if (meth[1] != line[1] || !meth[0] || meth[0] > METHOD_MAX || meth[0] + 2 > line[0])
		return *bad = "the method is not at the start of the request line", -1;
	if (rd->read(rd->ud, line[1], head, meth[0] + 1))
		return *bad = "the request line does not read", -1;
	for (uint64_t i = 0; i < meth[0]; i++)
		if (head[i] < 'A' || head[i] > 'Z')
			return *bad = "the request line does not start with a method", -1;
	if (head[meth[0]] != ' ')
		return *bad = "no space after the method", -1;
	if (unparsed[1] != line[1] + meth[0] + 1 || !unparsed[0] ||
	    unparsed[0] > line[0] - meth[0] - 1)
		return *bad = "the URI is not inside the request line", -1;
	if (!uri[0] || uri[0] > LINE_MAX_LEN || rd->read(rd->ud, uri[1], &c0, 1) || c0 != '/')
		return *bad = "r->uri is not a path", -1;
	return 0;
}

int ngx_layout_check(const struct ngx_reader *rd, const struct ngx_layout *row, uint64_t r,
		     int *ctx_index, bool *line_checked, char *why, size_t len)
{
	uint32_t sig = 0;
	uint16_t context = 0;
	uint64_t ctx;
	const char *bad = NULL;
	int idx = *ctx_index;

	if (rd->read(rd->ud, r, &sig, sizeof(sig)) || sig != NGX_SIGNATURE)
		bad = "no \"HTTP\" signature at the request";
	else if (find_lua_ctx(rd, row, r, &idx))
		bad = "no Lua context in r->ctx points back at the request";
	else if (rd_u64(rd, r + row->r_ctx, &ctx) || rd_u64(rd, ctx + 8 * (uint64_t)idx, &ctx) ||
		 !ptr_ok(ctx) || rd->read(rd->ud, ctx + row->ctx_context, &context, 2))
		bad = "the Lua context does not read";
	else if (!ngx_phase_name(context))
		bad = "the Lua context's phase is not one known bit";
	else if (!ngx_phase_is_fake(context))
		check_line(rd, row, r, &bad);
	if (bad) {
		snprintf(why, len, "%s", bad);
		return -1;
	}
	*ctx_index = idx;
	*line_checked = !ngx_phase_is_fake(context);
	return 0;
}

int ngx_layout_identify(const struct ngx_reader *rd, uint64_t r, struct ngx_target *t,
			char *why, size_t len)
{
	size_t at = 0;

	if (len)
		why[0] = 0;
	for (int i = 0; i < ngx_layout_count(); i++) {
		char bad[96];
		int idx = -1;
		bool line = false;

		if (!ngx_layout_check(rd, &layouts[i], r, &idx, &line, bad, sizeof(bad))) {
			t->row = &layouts[i];
			t->ctx_index = idx;
			t->line_checked = line;
			return 0;
		}
		if (at < len)
			at += (size_t)snprintf(why + at, len - at, "%s'%s': %s", i ? "; " : "",
					       layouts[i].name, bad);
	}
	return -1;
}
