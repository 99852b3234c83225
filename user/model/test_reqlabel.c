// SPDX-License-Identifier: MIT
/* nginx request labels: encoding and fields, --by's keys (a timer by its
 * phase, none outside a request), samples of two requests kept apart,
 * --by with --group. */
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "model/profile.h"
#include "model/reqlabel.h"

int main(void)
{
	const char *users[REQ_F__N] = { "content", "GET", "/api/users/:id", "a.test", "a",
					"/api/" };
	const char *timer[REQ_F__N] = { "timer" };
	const char *nohost[REQ_F__N] = { "access", "POST", "/x" };
	char a[256], t[256], h[256], buf[64];
	struct frame_sym f = { .kind = SYM_LUA, .chunk = "@x.lua", .firstline = 1, .line = 2 };
	const struct frame_sym *frames[1];
	struct profile *p = profile_new(99);
	struct sample s = { .pid = 1, .tid = 1, .count = 3 };

	reqlabel_encode(users, a, sizeof(a));
	reqlabel_encode(timer, t, sizeof(t));
	reqlabel_encode(nohost, h, sizeof(h));
	CHECK_STR("a field", reqlabel_field(a, REQ_F_URI, buf, sizeof(buf)), "/api/users/:id");
	CHECK_STR("the last field", reqlabel_field(a, REQ_F_LOCATION, buf, sizeof(buf)), "/api/");
	CHECK_STR("a field cut to its buffer", reqlabel_field(a, REQ_F_URI, buf, 5), "/api");
	CHECK_STR("--by uri", reqlabel_key(a, REQ_F_URI, buf, sizeof(buf)), "/api/users/:id");
	CHECK_STR("--by phase", reqlabel_key(a, REQ_F_PHASE, buf, sizeof(buf)), "content");
	CHECK_STR("a timer is a timer whatever the key",
		  reqlabel_key(t, REQ_F_URI, buf, sizeof(buf)), "(timer)");
	CHECK_STR("a timer by phase", reqlabel_key(t, REQ_F_PHASE, buf, sizeof(buf)), "(timer)");
	CHECK_STR("an empty field", reqlabel_key(h, REQ_F_HOST, buf, sizeof(buf)), "(none)");
	CHECK_STR("outside a request", reqlabel_key(NULL, REQ_F_URI, buf, sizeof(buf)),
		  REQ_NONE_KEY);
	CHECK("keys by name", reqlabel_field_parse("uri") == REQ_F_URI &&
	      reqlabel_field_parse("method") == REQ_F_METHOD && reqlabel_field_parse("x") < 0);
	CHECK_STR("semantic conventions", reqlabel_field_attr(REQ_F_URI), "url.path");

	frames[0] = profile_frame(p, &f);
	s.frames = frames;
	s.nframes = 1;
	s.req = a;
	profile_add(p, &s);
	s.req = h;
	profile_add(p, &s);
	s.req = a;
	profile_add(p, &s);
	CHECK("two requests' samples are two classes", p->nsamples == 2 &&
	      p->samples[0].count == 6 && p->samples[1].count == 3);
	profile_by(p, REQ_F_URI, false);
	CHECK("profile_by keys each sample", !strcmp(p->samples[0].group, "/api/users/:id") &&
	      !strcmp(p->samples[1].group, "/x"));
	p->samples[1].group = NULL;
	profile_by(p, REQ_F_METHOD, true);
	CHECK("with --group: both keys", !strcmp(p->samples[0].group, "GET  /api/users/:id") &&
	      !strcmp(p->samples[1].group, "POST  (other)"));
	profile_free(p);
	UNIT_EXIT();
}
