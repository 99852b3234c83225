/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* nginx request labels: the request the sampled coroutine serves
 * (lua-nginx-module keeps it in L->exdata), checked at the sample instant
 * and named by its identity, its labels copied once per request.
 *
 * Short requests are freed long before a drain, so the method, URI, Host,
 * server and location are copied here, into an LRU map, the first time a
 * sample meets the request; the sample key carries the label's key and
 * the phase, which changes during a request.  A request is believed only
 * when its signature reads "HTTP" and the Lua module's context in r->ctx
 * points back at it: memory a finished request left behind and a later
 * one reused names the later one, under a key of its own (its start or
 * its URI differs, req_identity).  Offsets: struct ngx_offsets, filled
 * from user/nginx/ngx_layout.c's row by user/sample/reqlabels.c. */

#ifndef LBP_REQLABEL_BPF_H
#define LBP_REQLABEL_BPF_H

#include "prelude.bpf.h"
#include "access.bpf.h"
#include "regs.bpf.h"
#include "maps.bpf.h"
#include "walk.bpf.h"	/* mix_hash */

#define NGX_SIGNATURE	0x50545448u	/* "HTTP" */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct req_label);
} reqs SEC(".maps");

/* Reads kept off the stack. */
struct req_scratch {
	__u8 r[REQ_BLOCK];
	__u64 ctxs[REQ_CTX_SCAN];
	struct req_label lab;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct req_scratch);
} req_scratch SEC(".maps");

/* The string of len bytes at data into dst[max], cut at max (a power of
 * two); returns the bytes copied, 0 when it does not read. */
static __always_inline __u16 ngx_str_at(__u64 len, __u64 data, char *dst, __u32 max)
{
	if (!len || !data)
		return 0;
	if (len > max)
		len = max;
	len = BOUNDED(len - 1, max) + 1;
	if (bpf_probe_read_user(dst, len, (void *)data))
		return 0;
	return (__u16)len;
}

/* An ngx_str_t of the request block (len, then data) into dst[max],
 * cut at max; returns the bytes copied. */
static __always_inline __u16 req_str(const __u8 *blk, __u32 at, char *dst, __u32 max)
{
	__u64 len = field(blk, REQ_BLOCK, at, 8);
	__u64 data = field(blk, REQ_BLOCK, at + 8, 8);

	return ngx_str_at(len, data, dst, max);
}

/* An ngx_str_t at addr in the target into dst[max]. */
static __always_inline __u16 req_str_mem(__u64 addr, char *dst, __u32 max)
{
	__u64 s[2] = { 0, 0 };

	if (!addr || bpf_probe_read_user(s, sizeof(s), (void *)addr))
		return 0;
	return ngx_str_at(s[0], s[1], dst, max);
}

/* The Lua module's slot in r->ctx (at ctxs): the one whose context points
 * back at r; -1 when none does. */
static __always_inline int req_find_ctx(struct req_scratch *rs, __u64 ctxs, __u64 r,
					__u16 ctx_request)
{
	if (bpf_probe_read_user(rs->ctxs, sizeof(rs->ctxs), (void *)ctxs))
		return -1;
	for (int i = 0; i < REQ_CTX_SCAN; i++) {
		__u64 c = rs->ctxs[i];

		if (c >= 4096 && !(c & 7) && read_u64(c + ctx_request) == r)
			return i;
	}
	return -1;
}

/* The request's labels into the reqs map under id, once (its URI is in
 * lab already). */
static __always_inline void req_copy(struct req_scratch *rs, const struct ngx_offsets *no,
				     __u64 r, __u64 id, __u64 start_ms)
{
	struct req_label *lab = &rs->lab;
	__u64 conf;

	if (bpf_map_lookup_elem(&reqs, &id))
		return;
	lab->r = r;
	lab->start_ms = start_ms;
	lab->method_len = req_str(rs->r, no->r_method_name, lab->method, REQ_METHOD_MAX);
	lab->host_len = req_str(rs->r, no->r_host, lab->host, REQ_NAME_MAX);
	/* loc_conf[0] and srv_conf[0]: the core module's (ctx_index 0). */
	conf = read_u64(field(rs->r, REQ_BLOCK, no->r_loc_conf, 8));
	lab->location_len = req_str_mem(conf ? conf + no->clcf_name : 0, lab->location,
					REQ_NAME_MAX);
	conf = read_u64(field(rs->r, REQ_BLOCK, no->r_srv_conf, 8));
	lab->server_len = req_str_mem(conf ? conf + no->cscf_server_name : 0, lab->server,
				      REQ_NAME_MAX);
	bpf_map_update_elem(&reqs, &id, lab, BPF_ANY);
}

/* The request's identity: its address and start, and its URI's bytes.
 * The address and start alone are not enough: a keep-alive connection's
 * next request often gets the same address, and the same start when the
 * two were served in one turn of the event loop (nginx caches its clock
 * per turn), so the URI (read into lab) is part of it. */
static __always_inline __u64 req_identity(struct req_scratch *rs, const struct ngx_offsets *no,
					  __u64 r, __u64 start_ms)
{
	struct req_label *lab = &rs->lab;
	__u64 h = mix_hash(mix_hash(0x2545f4914f6cdd1dull, r), start_ms), w;

	__builtin_memset(lab->uri, 0, REQ_URI_MAX);
	lab->uri_len = req_str(rs->r, no->r_uri, lab->uri, REQ_URI_MAX);
	for (int i = 0; i < REQ_URI_MAX / 8; i++) {
		__builtin_memcpy(&w, lab->uri + 8 * i, 8);
		h = mix_hash(h, w);
	}
	return mix_hash(h, lab->uri_len) | 1;
}

/* Labels the key in this CPU's scratch with the request the sampled
 * coroutine (sc->walk.L, before the walk) serves: key.req, and its phase
 * in key.flags; none when there is no request or it fails a check.  A
 * global function: its own call chain, beside the walk's. */
__noinline int req_label(__u32 tgid)
{
	struct proc_info *pi = bpf_map_lookup_elem(&procs, &tgid);
	struct counter_block *cb;
	struct req_scratch *rs;
	struct ngx_offsets *no;
	struct scratch *sc;
	__u32 zero = 0;
	__u64 r, ctxs, lctx, start_ms, id;
	__u16 phase = 0;
	int idx;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	rs = bpf_map_lookup_elem(&req_scratch, &zero);
	cb = bpf_map_lookup_elem(&counters, &zero);
	if (!sc || !rs || !pi || !pi->ngx.on || !sc->walk.L)
		return 0;
	no = &pi->ngx;
	r = read_u64(sc->walk.L + no->L_exdata);
	if (!r)
		return 0;
	if (bpf_probe_read_user(rs->r, BOUNDED((__u64)no->r_len, REQ_BLOCK), (void *)r) ||
	    (__u32)field(rs->r, REQ_BLOCK, 0, 4) != NGX_SIGNATURE)
		goto stale;
	ctxs = field(rs->r, REQ_BLOCK, no->r_ctx, 8);
	idx = no->ctx_index;
	if (idx < 0) {
		idx = req_find_ctx(rs, ctxs, r, no->ctx_request);
		if (idx < 0)
			goto stale;
		no->ctx_index = (__s16)idx;
	}
	lctx = read_u64(ctxs + 8ull * BOUNDED((__u32)idx, REQ_CTX_SCAN));
	if (!lctx || read_u64(lctx + no->ctx_request) != r ||
	    bpf_probe_read_user(&phase, sizeof(phase), (void *)(lctx + no->ctx_context)) ||
	    !phase || (phase & (phase - 1)))
		goto stale;
	start_ms = field(rs->r, REQ_BLOCK, no->r_start_sec, 8) * 1000 +
		   field(rs->r, REQ_BLOCK, no->r_start_msec, 8);
	id = req_identity(rs, no, r, start_ms);
	req_copy(rs, no, r, id, start_ms);
	sc->key.req = id;
	sc->key.flags |= SAMPLE_PHASE(phase);
	bump(cb, CNT_REQ_LABEL);
	return 0;
stale:
	bump(cb, CNT_REQ_STALE);
	return 0;
}

#endif
