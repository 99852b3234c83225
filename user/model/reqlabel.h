/* SPDX-License-Identifier: MIT */
/* nginx request labels of a sample (struct sample's req): the request's
 * Lua phase, method, URI path, Host, server and location, one interned
 * string per label set, and the keys a profile is viewed by (`--by KEY`).
 * A row per field: its --by name, and the attribute it is exported
 * under (OpenTelemetry's semantic conventions where one exists). */
#ifndef LBP_REQLABEL_H
#define LBP_REQLABEL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/profile.h"

#define REQ_FIELDS(_)                                                  \
	_(PHASE, "phase", "nginx.phase")                               \
	_(METHOD, "method", "http.request.method")                     \
	_(URI, "uri", "url.path")                                      \
	_(HOST, "host", "server.address")                              \
	_(SERVER, "server", "nginx.server")                            \
	_(LOCATION, "location", "nginx.location")

enum req_field {
#define REQ_FIELD_ENUM(id, name, attr) REQ_F_##id,
	REQ_FIELDS(REQ_FIELD_ENUM)
#undef REQ_FIELD_ENUM
	REQ_F__N
};

#define REQ_KEY_MAX	512	/* bytes of one field, escaped */
#define REQ_NONE_KEY	"(no request)"

/* The field named name ("uri", ...), -1 for none. */
int reqlabel_field_parse(const char *name);
const char *reqlabel_field_name(enum req_field f);
/* The attribute a field is exported under ("url.path", ...). */
const char *reqlabel_field_attr(enum req_field f);

/* Encodes the fields (escaped already: no control character is left in
 * one) into out[len].  Returns out. */
const char *reqlabel_encode(const char *const fields[REQ_F__N], char *out, size_t len);

/* Field f of an encoded label into out[len] ("" when empty). */
const char *reqlabel_field(const char *label, enum req_field f, char *out, size_t len);

/* The key a sample is viewed by under --by f: the field, or for a timer
 * or init_worker (a request nginx made up, with no URI) its phase in
 * parentheses, "(timer)", whatever the field; REQ_NONE_KEY outside a
 * request. */
const char *reqlabel_key(const char *label, enum req_field f, char *out, size_t len);

/* Sets every sample's group to its key under --by f (interned): the views
 * of --group then cut the profile by request.  with_group: after
 * profile_group, the key is both, "/api/users  rate-limiting". */
void profile_by(struct profile *p, enum req_field f, bool with_group);

#endif
