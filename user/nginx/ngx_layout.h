/* SPDX-License-Identifier: MIT */
/* The one table of nginx-side offsets: ngx_http_request_t of an nginx
 * version and build, lua-nginx-module's request context and coroutine
 * context, the core module's server and location configurations.  No
 * DWARF: each row says the builds it was measured and verified on, and
 * is used for a process only after its checks pass against that
 * process's memory (ngx_layout_identify): a request whose signature
 * reads "HTTP", whose Lua context points back at it, whose request line
 * reads as one with the method and the URI inside it.  A process no row
 * verifies for gets no request labels and one line that says why. */
#ifndef LBP_NGX_LAYOUT_H
#define LBP_NGX_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads len bytes of the target at addr; 0 or -1.  The caller's reader
 * carries the byte and time budget and the stop flag. */
struct ngx_reader {
	int (*read)(void *ud, uint64_t addr, void *buf, size_t len);
	void *ud;
};

struct ngx_layout {
	const char *name;		/* "nginx 1.22 --with-compat, lua-nginx-module 0.10.23" */
	const char *verified_on;	/* the builds its checks passed on */
	/* ngx_http_request_t (ngx_str_t fields: len, then data) */
	uint16_t r_ctx, r_srv_conf, r_loc_conf;
	uint16_t r_host;		/* headers_in.server: the Host header's name */
	uint16_t r_start_sec, r_start_msec;
	uint16_t r_request_line, r_uri, r_args, r_unparsed_uri, r_method_name;
	/* ngx_http_lua_ctx_t: found among r->ctx[0..ctx_scan) by its back
	 * pointer, so the module's ctx_index needs no symbol */
	uint16_t ctx_request, ctx_entry_co, ctx_context, ctx_scan;
	uint16_t co_co;			/* ngx_http_lua_co_ctx_t.co, the lua_State */
	/* loc_conf[0] and srv_conf[0]: ngx_http_core_module's, ctx_index 0 */
	uint16_t clcf_name, cscf_server_name;
};

/* What identify found for one process: the row and the Lua module's
 * index in r->ctx. */
struct ngx_target {
	const struct ngx_layout *row;
	int ctx_index;
	bool line_checked;		/* a real request line verified the row too */
};

int ngx_layout_count(void);
const struct ngx_layout *ngx_layout_at(int i);

/* The Lua phase of a ngx_http_lua_ctx_t.context bit, "content", ...;
 * NULL for a value that is not exactly one known bit. */
const char *ngx_phase_name(uint32_t context);
/* Phases that run without a client request (timers, init_worker, ...). */
bool ngx_phase_is_fake(uint32_t context);

/* Checks every row against the request at r; 0 with t filled on the
 * first that verifies, -1 with why naming the rows and the failed check. */
int ngx_layout_identify(const struct ngx_reader *rd, uint64_t r, struct ngx_target *t,
			char *why, size_t len);

/* The checks one row makes of the request at r (identify's, and the
 * reader's before it believes a request): 0, or -1 with why. */
int ngx_layout_check(const struct ngx_reader *rd, const struct ngx_layout *row, uint64_t r,
		     int *ctx_index, bool *line_checked, char *why, size_t len);

#endif
