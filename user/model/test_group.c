// SPDX-License-Identifier: MIT
/* --group: the outermost matching frame's first capture group, presets,
 * samples keyed through profile_group, bad patterns refused. */
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "model/group.h"
#include "model/profile.h"

static struct frame_sym lua(const char *chunk)
{
	struct frame_sym f = { .kind = SYM_LUA, .chunk = chunk, .firstline = 1, .line = 2 };

	return f;
}

int main(void)
{
	struct frame_sym busy = lua("@/srv/kong/tools/busy.lua");
	struct frame_sym util = lua("@/srv/kong/plugins/cors/util.lua");
	struct frame_sym jwt = lua("@/srv/kong/plugins/jwt/handler.lua");
	struct frame_sym runloop = lua("@/srv/kong/runloop/handler.lua");
	struct frame_sym limit = lua("@/srv/apisix/plugins/limit-count.lua");
	struct frame_sym cfn = { .kind = SYM_C, .cname = "kong/plugins/evil/x" };
	const struct frame_sym *stack[] = { &busy, &util, &jwt, &runloop };	/* top first */
	const struct frame_sym *astack[] = { &busy, &limit };
	const struct frame_sym *none[] = { &busy, &runloop, &cfn };
	char buf[64], err[200];
	struct group_rule *kong = group_new("kong", err, sizeof(err));
	struct group_rule *apisix = group_new("apisix", err, sizeof(err));
	struct group_rule *whole = group_new("tools/[a-z]+", err, sizeof(err));
	struct group_rule *bad = group_new("kong/(", err, sizeof(err));
	struct profile *p = profile_new(99);
	struct sample s = { .pid = 1, .tid = 1, .count = 3 };

	CHECK("presets compile", kong && apisix && whole);
	CHECK_STR("kong preset", group_pattern(kong), "kong/plugins/([^/]+)/");
	CHECK_STR("the outermost matching frame wins",
		  group_key(kong, stack, 4, buf, sizeof(buf)), "jwt");
	CHECK_STR("the inner one when the outer is cut off",
		  group_key(kong, stack, 2, buf, sizeof(buf)), "cors");
	CHECK_STR("apisix preset", group_key(apisix, astack, 2, buf, sizeof(buf)), "limit-count");
	CHECK_STR("no capture group: the whole match", group_key(whole, stack, 4, buf, sizeof(buf)),
		  "tools/busy");
	CHECK("no Lua frame matches: none (C names are not chunks)",
	      group_key(kong, none, 3, buf, sizeof(buf)) == NULL);
	CHECK("a bad pattern is refused in one line", !bad && strstr(err, "--group 'kong/('") &&
	      !strchr(err, '\n'));

	s.frames = stack;
	s.nframes = 4;
	for (int i = 0; i < 4; i++)
		stack[i] = profile_frame(p, stack[i]);
	profile_add(p, &s);
	s.frames = none;
	s.nframes = 2;
	none[0] = stack[0];
	none[1] = profile_frame(p, &runloop);
	profile_add(p, &s);
	profile_group(p, kong);
	CHECK("profile_group keys a sample", p->nsamples == 2 && p->samples[0].group &&
	      !strcmp(p->samples[0].group, "jwt"));
	CHECK("profile_group leaves the unmatched none", p->samples[1].group == NULL);
	profile_group(p, apisix);
	CHECK("regrouping clears old keys", !p->samples[0].group && !p->samples[1].group);
	profile_free(p);
	group_free(kong);
	group_free(apisix);
	group_free(whole);
	UNIT_EXIT();
}
