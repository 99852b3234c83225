// SPDX-License-Identifier: MIT
/* Writes the synthetic profile in every format.
 *
 *   test_export_files DIR   writes DIR/profile.{folded,svg,pb.gz,speedscope.json}
 *                           and variants, for tests/t_formats.sh to check
 *                           with real tools;
 *   test_export_files       checks the same exports in memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/export.h"
#include "report/test_export_fixture.h"
#include "base/unit.h"

typedef int (*export_fn)(FILE *, const struct profile *, const struct export_opts *);

struct output {
	const char *file;
	export_fn fn;
	struct export_opts opts;
	bool empty;		/* export an empty profile instead */
};

static const struct output outputs[] = {
	{ "profile.folded", export_folded, { .scope = 'F', .pathstrip = true }, false },
	{ "profile.svg", export_svg, { .scope = 'F', .pathstrip = true }, false },
	{ "profile.pb.gz", export_pprof, { .scope = 'F', .pathstrip = true }, false },
	{ "profile.speedscope.json", export_speedscope, { .scope = 'F', .pathstrip = true },
	  false },
	{ "icicle.svg", export_svg, { .scope = 'F', .pathstrip = true, .icicle = true,
				      .title = "Icicle <&> \"t\"" }, false },
	{ "states.folded", export_folded, { .scope = 'F', .pathstrip = true,
					    .vmstate_frames = true, .zone_frames = true }, false },
	{ "states.svg", export_svg, { .scope = 'F', .pathstrip = true,
				      .vmstate_frames = true, .zone_frames = true }, false },
	{ "lines.folded", export_folded, { .scope = 'l', .pathstrip = false }, false },
	{ "perproc.folded", export_folded, { .scope = 'F', .pathstrip = true,
					     .per_process = true }, false },
	{ "lines.pb.gz", export_pprof, { .scope = 'l', .pathstrip = true }, false },
	{ "lines.speedscope.json", export_speedscope, { .scope = 'l', .pathstrip = true },
	  false },
	{ "empty.folded", export_folded, { 0 }, true },
	{ "empty.svg", export_svg, { 0 }, true },
	{ "empty.pb.gz", export_pprof, { 0 }, true },
	{ "empty.speedscope.json", export_speedscope, { 0 }, true },
};

#define NOUTPUTS (sizeof(outputs) / sizeof(outputs[0]))

static int write_files(const char *dir)
{
	struct profile *p = fix_profile(), *empty = profile_new(99);
	char path[4096];
	int err = 0;

	for (size_t i = 0; i < NOUTPUTS; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, outputs[i].file);
		f = fopen(path, "w");
		if (!f || outputs[i].fn(f, outputs[i].empty ? empty : p, &outputs[i].opts)) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			err = 1;
		}
		if (f)
			fclose(f);
	}
	profile_free(p);
	profile_free(empty);
	return err;
}

/* Issue 12: no pid frame by default (a program's processes merge), the
 * cut stack under [unknown: truncated], GC and JIT compiler time as
 * frames of their own. */
static const char want_folded[] =
	"app%3Bv2%207;@0x55b303d132c0;main.lua:0;main.lua:outer;main.lua:outer;main.lua:work 2\n"
	"app%3Bv2%207;@0x55b303d132c0;main.lua:0;main.lua:outer;main.lua:work 6\n"
	"app%3Bv2%207;[unknown: truncated];main.lua:work;[builtin:foreach] 1\n"
	"luajit;@0x55b303d132c0;main.lua:0;[string]:1;[JIT Compiler] 2\n"
	"luajit;@0x55b303d132c0;main.lua:0;main.lua:bad%FFname;main.lua:v%2042 3\n"
	"luajit;@0x55b303d132c0;main.lua:0;main.lua:outer;main.lua:work 80\n"
	"luajit;@0x55b303d132c0;main.lua:0;main.lua:outer;string.rep 10\n"
	"luajit;@0x55b303d132c0;main.lua:0;x&y.lua:a%3Bb<c>&\"q';[Garbage Collector] 5\n"
	"luajit;@0x55b303d132c0;main.lua:0;x&y.lua:a%3Bb<c>&\"q';stdin:gr\xc3\xb6\xc3\x9f" "e 7\n"
	"luajit;[host] 4\n";

static void check_memory(void)
{
	struct profile *p = fix_profile(), *empty = profile_new(99);

	CHECK("fixture total", p->total == FIX_TOTAL);
	for (size_t i = 0; i < NOUTPUTS; i++) {
		char *buf = NULL, name[128];
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int rc = outputs[i].fn(f, outputs[i].empty ? empty : p, &outputs[i].opts);

		fclose(f);
		snprintf(name, sizeof(name), "export %s", outputs[i].file);
		CHECK(name, rc == 0 && (len > 0 || outputs[i].fn == export_folded));
		if (!strcmp(outputs[i].file, "profile.folded"))
			CHECK_STR("folded text", buf, want_folded);
		if (!strcmp(outputs[i].file, "perproc.folded"))
			CHECK("per process: a pid frame under comm",
			      strstr(buf, "luajit;4242;@0x55b303d132c0;main.lua:0;main.lua:outer;"
				     "main.lua:work 80\n") &&
			      strstr(buf, "app%3Bv2%207;4343;[unknown: truncated];"));
		if (strstr(outputs[i].file, ".pb.gz"))
			CHECK("pprof is gzip", len > 2 && (unsigned char)buf[0] == 0x1f &&
			      (unsigned char)buf[1] == 0x8b);
		if (strstr(outputs[i].file, ".svg"))
			CHECK("svg prologue", !strncmp(buf, "<?xml", 5) &&
			      strstr(buf, "</svg>\n"));
		if (strstr(outputs[i].file, ".json"))
			CHECK("json object", buf[0] == '{' && buf[len - 2] == '}');
		if (!strcmp(outputs[i].file, "empty.folded"))
			CHECK("empty folded is empty", len == 0 || !strcmp(buf, ""));
		free(buf);
	}
	profile_free(p);
	profile_free(empty);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return write_files(argv[1]);
	check_memory();
	UNIT_EXIT();
}
