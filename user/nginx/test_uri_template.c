// SPDX-License-Identifier: MIT
/* URI templates: ids fold to :id, words stay, 10,000 distinct ids give one key. */
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "nginx/uri_template.h"

static const char *tmpl(const char *path, enum uri_template_mode mode)
{
	static char out[256];

	uri_template(path, mode, out, sizeof(out));
	return out;
}

/* Distinct templates among 10,000 paths with distinct ids of each kind. */
static int distinct_keys(int kind)
{
	char keys[4][256], path[128], out[256];
	int nkeys = 0;

	for (int i = 0; i < 10000; i++) {
		int k;

		if (kind == 0)
			snprintf(path, sizeof(path), "/api/users/%d/orders", i * 7919);
		else if (kind == 1)
			snprintf(path, sizeof(path), "/blob/%08x%04x", (unsigned)i * 2654435761u, i);
		else
			snprintf(path, sizeof(path), "/s/%08x-%04x-4%03x-a%03x-%012x", (unsigned)i * 40503u,
				 i & 0xffff, i & 0xfff, (i * 3) & 0xfff, (unsigned)i);
		uri_template(path, URI_TEMPLATE_AUTO, out, sizeof(out));
		for (k = 0; k < nkeys && strcmp(keys[k], out); k++)
			;
		if (k == nkeys) {
			if (nkeys == 4)
				return 99;
			strcpy(keys[nkeys++], out);
		}
	}
	return nkeys;
}

int main(void)
{
	enum uri_template_mode mode;
	char small[8];

	CHECK_STR("number folds", tmpl("/api/users/123", URI_TEMPLATE_AUTO), "/api/users/:id");
	CHECK_STR("two ids", tmpl("/users/7/orders/9f8e7d6c0b1a", URI_TEMPLATE_AUTO),
		  "/users/:id/orders/:id");
	CHECK_STR("uuid", tmpl("/s/123e4567-e89b-12d3-a456-426614174000/x", URI_TEMPLATE_AUTO),
		  "/s/:id/x");
	CHECK_STR("words stay", tmpl("/api/v2/cafe/deadbeef/login", URI_TEMPLATE_AUTO),
		  "/api/v2/cafe/deadbeef/login");
	CHECK_STR("short hex word stays", tmpl("/a1b2", URI_TEMPLATE_AUTO), "/a1b2");
	CHECK_STR("none keeps ids", tmpl("/api/users/123", URI_TEMPLATE_NONE), "/api/users/123");
	CHECK_STR("query kept as is", tmpl("/u/42?id=7", URI_TEMPLATE_AUTO), "/u/:id?id=7");
	CHECK_STR("trailing slash", tmpl("/u/42/", URI_TEMPLATE_AUTO), "/u/:id/");
	CHECK_STR("root", tmpl("/", URI_TEMPLATE_AUTO), "/");
	CHECK("folded count", uri_template("/a/1/b/2/c", URI_TEMPLATE_AUTO, small, sizeof(small)) == 2);
	CHECK("cut output is terminated", strlen(small) == sizeof(small) - 1);
	CHECK("10,000 numeric ids fold to one key", distinct_keys(0) == 1);
	CHECK("10,000 hex ids fold to one key", distinct_keys(1) == 1);
	CHECK("10,000 uuids fold to one key", distinct_keys(2) == 1);
	CHECK("parse auto", !uri_template_parse("auto", &mode) && mode == URI_TEMPLATE_AUTO);
	CHECK("parse refuses", uri_template_parse("yes", &mode) == -1);
	UNIT_EXIT();
}
