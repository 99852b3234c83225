// SPDX-License-Identifier: MIT
/* varinfo_local against varinfo blocks written by hand the way LuaJIT's
 * parser writes them: names or hidden-variable codes, then the scope's
 * start (a delta from the previous record's) and length, ULEB128. */
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "luajit/varinfo.h"

int main(void)
{
	/* local a (pc 1..9), local users (pc 2..9), a for loop's index
	 * (code 1, pc 4..7) and a local i inside it (pc 5..7). */
	static const uint8_t vi[] = {
		'a', 0, 1, 9,
		'u', 's', 'e', 'r', 's', 0, 1, 8,
		1, 2, 4,
		'i', 0, 1, 3,
		0,
	};
	const char *n;


	n = varinfo_local(vi, sizeof(vi), 3, 0);
	CHECK_STR("slot 0 at pc 3 is a", n, "a");
	n = varinfo_local(vi, sizeof(vi), 3, 1);
	CHECK_STR("slot 1 at pc 3 is users", n, "users");
	CHECK("slot 2 at pc 3: none yet", !varinfo_local(vi, sizeof(vi), 3, 2));
	n = varinfo_local(vi, sizeof(vi), 5, 2);
	CHECK_STR("slot 2 at pc 5: the for loop's index", n, "(for index)");
	n = varinfo_local(vi, sizeof(vi), 5, 3);
	CHECK_STR("slot 3 at pc 5 is i", n, "i");
	CHECK("slot 2 at pc 8: the loop is over", !varinfo_local(vi, sizeof(vi), 8, 2));
	CHECK("pc 0 (the header): nothing live", !varinfo_local(vi, sizeof(vi), 0, 0));
	/* A copy cut inside a name names nothing past the cut. */
	CHECK("cut inside a name", !varinfo_local(vi, 7, 3, 1));
	CHECK("empty block", !varinfo_local(vi, 0, 3, 0));
	UNIT_EXIT();
}
