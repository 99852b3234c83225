/* SPDX-License-Identifier: MIT */
/* nginx request labels from the sampler to the profile: the offsets the
 * sampler reads requests with (bpf/reqlabel.bpf.h), and a sample key's
 * request (sample_key.req, its labels copied in the reqs map at the
 * sample instant) as model/reqlabel.h's interned label, each field
 * escaped, the URI path folded by --uri-template, after checks that a
 * label which did not come from a request fails. */
#ifndef LBP_SAMPLE_REQLABELS_H
#define LBP_SAMPLE_REQLABELS_H

#include <stddef.h>
#include <stdint.h>

#include "base/sampler_types.h"
#include "nginx/uri_template.h"

struct collector;
struct profile_stats;

/* The sampler's offsets for a process whose VM's lua_State has exdata
 * at L_exdata (0: none, no request is read). */
void reqlabels_offsets(uint16_t L_exdata, struct ngx_offsets *out);

/* The label of key's request into out[len], or NULL when it has none
 * or its label is not believed (counted in st's req_dropped; folded URIs
 * in req_folded). */
const char *reqlabels_of(struct collector *col, const struct sample_key *key,
			 enum uri_template_mode mode, struct profile_stats *st, char *out,
			 size_t len);

#endif
