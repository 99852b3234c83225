/* SPDX-License-Identifier: MIT */
/* Groups by code location (--group REGEX): a sample counts for the first
 * capture group (the whole match when the pattern has none) of its
 * outermost frame whose full chunk path matches, "kong/plugins/([^/]+)/"
 * gives a Kong plugin's name.  Presets: kong and apisix.  A key is a
 * function of a sample's frames, so equal stacks have equal keys and
 * grouping needs no change to how samples merge. */
#ifndef LBP_GROUP_H
#define LBP_GROUP_H

#include <stddef.h>

#include "model/profile.h"

struct group_rule;

/* A rule from a preset name or a POSIX extended regular expression;
 * NULL with a one-line message in err when the pattern does not compile. */
struct group_rule *group_new(const char *spec, char *err, size_t len);
void group_free(struct group_rule *g);

/* The pattern a rule matches with (a preset's expansion). */
const char *group_pattern(const struct group_rule *g);

/* The key of the frames (frames[0] the top) into buf, or NULL when no
 * Lua frame's chunk matches. */
const char *group_key(const struct group_rule *g, const struct frame_sym *const *frames,
		      size_t n, char *buf, size_t len);

/* Sets every sample's group (interned), NULL where none matches. */
void profile_group(struct profile *p, const struct group_rule *g);

/* The same from a spec checked when the options were parsed: -1 when it
 * no longer compiles (nothing set). */
int profile_group_spec(struct profile *p, const char *spec);

#endif
