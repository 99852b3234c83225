// SPDX-License-Identifier: MIT
/* --group: the pattern checked once, the jit.p mode it implies (see
 * options_table.h). */
#include <stdio.h>

#include "base/log.h"
#include "cli/options_table.h"
#include "model/group.h"
#include "model/reqlabel.h"
#include "nginx/uri_template.h"
#include "report/jpmode.h"

/* --by's key and --uri-template's mode. */
static int settle_by(struct options *o)
{
	enum uri_template_mode m = o->continuous ? URI_TEMPLATE_AUTO : URI_TEMPLATE_NONE;

	o->by_field = -1;
	if (o->by && (o->by_field = reqlabel_field_parse(o->by)) < 0) {
		log_error("--by %s: not a key (uri, phase, location, host, method, server)",
			  o->by);
		return -1;
	}
	if (o->uri_template && uri_template_parse(o->uri_template, &m) < 0) {
		log_error("--uri-template %s: not a mode (auto, none)", o->uri_template);
		return -1;
	}
	o->uri_template_mode = (int)m;
	return 0;
}

int options_settle_group(struct options *o)
{
	struct group_rule *g;
	char err[200], mode[64];

	if (settle_by(o))
		return -1;
	if (!o->group && !o->by)
		return 0;
	g = o->group ? group_new(o->group, err, sizeof(err)) : NULL;
	if (o->group && !g) {
		log_error("%s", err);
		return -1;
	}
	group_free(g);
	/* As jit.p's zones: "z" alone is the key's shares, "zF" the key,
	 * then its functions; the zone slot then holds the group's key. */
	snprintf(mode, sizeof(mode), "z%s", o->jp ? o->jp : "");
	if (jp_mode_parse(mode, &o->jp_mode, err, sizeof(err))) {
		log_error("%s with --jp %s: %s", o->group ? "--group" : "--by", o->jp, err);
		return -1;
	}
	o->jp_mode.states = 'g';
	return 0;
}
