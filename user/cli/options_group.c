// SPDX-License-Identifier: MIT
/* --group: the pattern checked once, the jit.p mode it implies (see
 * options_table.h). */
#include <stdio.h>

#include "base/log.h"
#include "cli/options_table.h"
#include "model/group.h"
#include "report/jpmode.h"

int options_settle_group(struct options *o)
{
	struct group_rule *g;
	char err[200], mode[64];

	if (!o->group)
		return 0;
	g = group_new(o->group, err, sizeof(err));
	if (!g) {
		log_error("%s", err);
		return -1;
	}
	group_free(g);
	/* As jit.p's zones: "z" alone is the key's shares, "zF" the key,
	 * then its functions; the zone slot then holds the group's key. */
	snprintf(mode, sizeof(mode), "z%s", o->jp ? o->jp : "");
	if (jp_mode_parse(mode, &o->jp_mode, err, sizeof(err))) {
		log_error("--group with --jp %s: %s", o->jp, err);
		return -1;
	}
	o->jp_mode.states = 'g';
	return 0;
}
