/* SPDX-License-Identifier: MIT */
/* The dictionary of an OTLP profiles request (ProfilesDictionary in
 * opentelemetry/proto/profiles/v1development/profiles.proto): the string,
 * function, mapping, location, stack, attribute and link tables that
 * every profile of the request shares.  Each table starts with its zero
 * value, so that index 0 means "none"; an entry is encoded the first time
 * it is interned and never twice. */
#ifndef LBP_OTLP_DICT_H
#define LBP_OTLP_DICT_H

#include <stdint.h>

#include "report/pbframes.h"

struct otlp_dict {
	struct pbframes f;	/* the string table; f.p and f.o: the profile being added */
	struct keytab functions, mappings, locations, stacks, attributes;
	struct strbuf tables;	/* encoded entries of every table but strings, in order */
	struct strbuf sub, line;	/* scratch */
	uint32_t lua_mapping;	/* "[lua]": Lua and synthetic frames, as in pprof */
};

void otlp_dict_init(struct otlp_dict *d);
void otlp_dict_free(struct otlp_dict *d);

/* The location of an exported frame of s (d->f.p's sample). */
uint32_t otlp_dict_frame(struct otlp_dict *d, const struct xframe *xf, const struct sample *s);

/* A location without a mapping whose one line is function name (a heap
 * path, as in the pprof heap profile). */
uint32_t otlp_dict_named(struct otlp_dict *d, const char *name);

/* A stack of locations, leaf first. */
uint32_t otlp_dict_stack(struct otlp_dict *d, const uint32_t *locs, uint32_t n);

uint32_t otlp_dict_attr_str(struct otlp_dict *d, const char *key, const char *value);
uint32_t otlp_dict_attr_num(struct otlp_dict *d, const char *key, int64_t value);

/* Appends the ProfilesDictionary message (its fields, not its tag). */
void otlp_dict_encode(struct otlp_dict *d, struct strbuf *out);

#endif
