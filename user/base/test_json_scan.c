// SPDX-License-Identifier: MIT
/* The JSON member reader on documents shaped like Docker's config.v2.json
 * and Podman's containers.json, and on broken ones. */
#include <string.h>

#include "base/json_scan.h"
#include "base/unit.h"

static const char docker[] =
	"{\"StreamConfig\":{},\"State\":{\"Running\":true,\"Pid\":4242,\"Health\":null},"
	"\"ID\":\"abc\",\"Config\":{\"Labels\":{\"Name\":\"not this one\"},\"Cmd\":[\"luajit\",\"x.lua\"]},"
	"\"MountPoints\":{\"/data\":{\"Name\":\"vol\",\"RW\":true}},"
	"\"Name\":\"/web\\u00e9-1\",\"Driver\":\"overlay2\",\"RestartCount\":-1.5e3}";

static const char podman[] =
	"[ {\"id\":\"aaa\",\"names\":[\"first\"],\"image\":\"x\"},\n"
	"  {\"names\": [\"second\", \"alias\"], \"metadata\": \"{\\\"k\\\":1}\", \"id\": \"bbb\"} ]";

int main(void)
{
	const char *end = docker + strlen(docker), *v, *p, *e;
	char out[64];
	int n = 0;

	v = json_member(docker, end, "Name");
	CHECK("docker: the top-level Name, not a nested one",
	      v && json_string(v, end, out, sizeof(out)));
	CHECK_STR("docker: escapes decoded (\\u00e9 as UTF-8)", out, "/web\xc3\xa9-1");
	CHECK("docker: an absent member", !json_member(docker, end, "Nope"));
	v = json_member(docker, end, "State");
	CHECK("a nested object's member", v && json_member(v, end, "Pid"));
	CHECK("too small a buffer is refused",
	      !json_string(json_member(docker, end, "Driver"), end, out, 4));

	end = podman + strlen(podman);
	p = podman;
	while ((e = json_next(&p, end))) {
		v = json_member(e, end, "id");
		if (v && json_string(v, end, out, sizeof(out)) && !strcmp(out, "bbb")) {
			const char *names = json_member(e, end, "names");
			const char *first = names ? json_next(&names, end) : NULL;

			CHECK("podman: the matching element's first name",
			      first && json_string(first, end, out, sizeof(out)));
			CHECK_STR("podman: its name", out, "second");
		}
		n++;
	}
	CHECK("podman: both elements iterated", n == 2);

	static const char *const broken[] = {
		"{\"Name\":\"/unterminated}", "{\"Name\" \"/x\"}", "{\"a\":[1,2,}", "{\"a\":tru",
		"", "[", "{\"a\":\"\x01\"}", "{\"Name\":\"\\q\"}",
	};
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		const char *d = broken[i], *de = d + strlen(d);
		const char *m = json_member(d, de, "Name");

		CHECK("a broken document gives nothing", !m || !json_string(m, de, out, sizeof(out)));
	}
	char deep[200];
	memset(deep, '[', sizeof(deep));
	CHECK("nesting past the limit is refused, not recursed into",
	      !json_skip(deep, deep + sizeof(deep)));
	UNIT_EXIT();
}
