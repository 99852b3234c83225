// SPDX-License-Identifier: MIT
/* dump's text and JSON: a dump with a torn stack, a not-started
 * coroutine, a C frame and names that need escaping; the JSON must parse
 * and say what the text says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_scan.h"
#include "base/unit.h"
#include "model/dump.h"
#include "report/dump_out.h"

static void sample(struct dump *d)
{
	struct dump_thread *t;
	struct dump_frame *f;

	dump_init(d, 42, "upstream 2.1 GC64", 0x1000);
	d->loss.torn = 1;
	t = dump_add_thread(d, 0x2000, "suspended");
	t->torn = true;
	dump_add_frame(d, t, "coroutine.yield", NULL, -1, -1);
	f = dump_add_frame(d, t, "leaf", "/srv/a \"b\".lua", 12, 10);
	dump_add_local(d, f, "s", "\"x\ty\"");
	t = dump_add_thread(d, 0x3000, "suspended");
	t->fresh = true;
	dump_add_frame(d, t, "b.lua:7", "b.lua", -1, 7);
	t = dump_add_thread(d, 0x4000, "suspended");
	dump_add_frame(d, t, "f\x1b[2J\r\nX\xe2\x80\xaeY", "=evil\x07", 3, 1);
}

static char *written(void (*fn)(FILE *, const struct dump *), const struct dump *d, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	fn(f, d);
	fclose(f);
	return buf;
}

int main(void)
{
	struct dump d;
	size_t len;
	char *text, *json, out[64];
	const char *end, *threads, *t, *frames, *fr;

	sample(&d);
	text = written(dump_text, &d, &len);
	CHECK("text: torn count", strstr(text, "1 torn stacks") != NULL);
	CHECK("text: torn thread", strstr(text, "Coroutine 0x2000 suspended (stack torn") != NULL);
	CHECK("text: frame with line", strstr(text, "    leaf (/srv/a \"b\".lua:12)\n") != NULL);
	CHECK("text: local, its tab escaped", strstr(text, "        s = \"x\\x09y\"\n") != NULL);
	CHECK("text: ESC, CR, LF and U+202E of a name escaped",
	      strstr(text, "    f\\x1b[2J\\x0d\\x0aX\\xe2\\x80\\xaeY (=evil\\x07:3)\n") != NULL);
	CHECK("text: not started", strstr(text, "    b.lua:7 (b.lua:7) (not started)\n") != NULL);
	json = written(dump_json, &d, &len);
	end = json + len;
	CHECK("json: one value, nothing after it", json_skip(json, end) == end);
	threads = json_member(json, end, "threads");
	CHECK("json: threads", threads != NULL);
	t = threads ? json_next(&threads, end) : NULL;
	frames = t ? json_member(t, end, "frames") : NULL;
	fr = frames ? json_next(&frames, end) : NULL;
	fr = fr ? json_next(&frames, end) : NULL;
	CHECK("json: second frame's chunk unescaped",
	      fr && json_string(json_member(fr, end, "chunk"), end, out, sizeof(out)) &&
	      !strcmp(out, "/srv/a \"b\".lua"));
	CHECK("json: torn", t && !strncmp(json_member(t, end, "torn"), "true", 4));
	free(text);
	free(json);
	dump_free(&d);
	return unit_failed ? 1 : 0;
}
