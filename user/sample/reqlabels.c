// SPDX-License-Identifier: MIT
/* nginx request labels from the sampler to the profile (see reqlabels.h). */
#include "sample/reqlabels.h"

#include <string.h>

#include "base/strbuf.h"
#include "base/textsafe.h"
#include "model/profile_stats.h"
#include "model/reqlabel.h"
#include "nginx/ngx_layout.h"
#include "sample/collector.h"

void reqlabels_offsets(uint16_t L_exdata, struct ngx_offsets *out)
{
	/* The table's one row; a second needs the row verified per process
	 * first (ngx_layout_identify on a live request). */
	const struct ngx_layout *row = ngx_layout_at(0);
	uint16_t last;

	memset(out, 0, sizeof(*out));
	out->ctx_index = -1;
	if (!L_exdata || !row)
		return;
	out->on = 1;
	out->L_exdata = L_exdata;
	out->r_ctx = row->r_ctx;
	out->r_srv_conf = row->r_srv_conf;
	out->r_loc_conf = row->r_loc_conf;
	out->r_host = row->r_host;
	out->r_start_sec = row->r_start_sec;
	out->r_start_msec = row->r_start_msec;
	out->r_uri = row->r_uri;
	out->r_method_name = row->r_method_name;
	out->ctx_request = row->ctx_request;
	out->ctx_context = row->ctx_context;
	out->clcf_name = row->clcf_name;
	out->cscf_server_name = row->cscf_server_name;
	last = row->r_method_name > row->r_uri ? row->r_method_name : row->r_uri;
	last = last > row->r_host ? last : row->r_host;
	last = last > row->r_start_msec ? last : row->r_start_msec;
	out->r_len = (uint16_t)(last + 16);
	if (out->r_len > REQ_BLOCK)
		out->on = 0;
}

/* A client request's method is upper-case letters and its URI a path:
 * what a reused or misread request fails. */
static bool plausible(const struct req_label *lab)
{
	if (!lab->method_len || lab->method_len > REQ_METHOD_MAX || !lab->uri_len ||
	    lab->uri_len > REQ_URI_MAX || lab->uri[0] != '/')
		return false;
	for (unsigned i = 0; i < lab->method_len; i++)
		if (lab->method[i] < 'A' || lab->method[i] > 'Z')
			return false;
	return true;
}

/* A field of the target, escaped, into sb (reset first). */
static const char *escaped(struct strbuf *sb, const char *s, size_t n)
{
	sb_reset(sb);
	text_put_escaped(sb, s, n, "", TEXT_ESC_HEX);
	return sb_str(sb);
}

const char *reqlabels_of(struct collector *col, const struct sample_key *key,
			 enum uri_template_mode mode, struct profile_stats *st, char *out,
			 size_t len)
{
	struct strbuf sb[REQ_F__N];
	const char *f[REQ_F__N] = { NULL };
	const char *phase = ngx_phase_name(SAMPLE_PHASE_OF(key->flags));
	struct req_label lab;
	char path[REQ_URI_MAX + 1], folded[2 * REQ_URI_MAX];
	bool fake;

	if (!key->req)
		return NULL;
	fake = phase && ngx_phase_is_fake(SAMPLE_PHASE_OF(key->flags));
	if (!phase || collector_req_label(col, key->req, &lab) || (!fake && !plausible(&lab))) {
		st->req_dropped++;
		return NULL;
	}
	memset(sb, 0, sizeof(sb));
	f[REQ_F_PHASE] = phase;
	/* A request nginx made up has no client: its fields stay empty. */
	if (!fake) {
		memcpy(path, lab.uri, lab.uri_len);
		path[lab.uri_len] = 0;
		if (uri_template(path, mode, folded, sizeof(folded)) > 0)
			st->req_folded++;
		f[REQ_F_METHOD] = escaped(&sb[REQ_F_METHOD], lab.method, lab.method_len);
		f[REQ_F_URI] = escaped(&sb[REQ_F_URI], folded, strlen(folded));
		f[REQ_F_HOST] = escaped(&sb[REQ_F_HOST], lab.host, lab.host_len);
		f[REQ_F_SERVER] = escaped(&sb[REQ_F_SERVER], lab.server, lab.server_len);
		f[REQ_F_LOCATION] = escaped(&sb[REQ_F_LOCATION], lab.location, lab.location_len);
	}
	reqlabel_encode(f, out, len);
	for (int i = 0; i < REQ_F__N; i++)
		sb_free(&sb[i]);
	return out;
}
