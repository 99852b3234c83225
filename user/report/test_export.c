// SPDX-License-Identifier: MIT
/* Exporters on tricky synthetic profiles: escaping in every format, empty
 * profiles, host samples, one or several processes, options, errors. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/export.h"
#include "report/export_stack.h"
#include "report/jpmode.h"
#include "report/view_jitp.h"
#include "report/view_tree.h"
#include "base/unit.h"

typedef int (*export_fn)(FILE *, const struct profile *, const struct export_opts *);

static char *out_buf;
static size_t out_len;

/* Runs an exporter into memory; the text stays valid until the next run. */
static int run(export_fn fn, const struct profile *p, const struct export_opts *o)
{
	FILE *f;
	int rc;

	free(out_buf);
	out_buf = NULL;
	out_len = 0;
	f = open_memstream(&out_buf, &out_len);
	rc = fn(f, p, o);
	fclose(f);
	return rc;
}

static void add(struct profile *p, uint32_t pid, int32_t vmstate, uint32_t flags,
		uint64_t count, const struct frame_sym *const *root_first, uint32_t n)
{
	const struct frame_sym *frames[64];
	struct sample s = { .pid = pid, .tid = pid, .vmstate = vmstate, .flags = flags,
			    .count = count, .frames = frames, .nframes = n };

	for (uint32_t i = 0; i < n; i++)
		frames[i] = profile_frame(p, root_first[n - 1 - i]);
	profile_add(p, &s);
}

static struct frame_sym lua(const char *name, const char *chunk, int firstline, int line)
{
	struct frame_sym f = { .kind = SYM_LUA, .name = name, .chunk = chunk,
			       .firstline = firstline, .line = line };

	return f;
}

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_next((const unsigned char *)s + i, n - i, &cp);

		if (cp == 0xfffd && len == 1)
			return false;
		i += len;
	}
	return true;
}

/* No control byte but newline (and tab) anywhere: what XML and our JSON
 * allow between tokens. */
static bool no_raw_controls(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7f)
			return false;
	return true;
}

static void check_formats(void)
{
	enum out_format fmt = FMT_TEXT;

	CHECK("parse folded", out_format_parse("folded", &fmt) == 0 && fmt == FMT_FOLDED);
	CHECK("parse svg", out_format_parse("svg", &fmt) == 0 && fmt == FMT_SVG);
	CHECK("parse pprof", out_format_parse("pprof", &fmt) == 0 && fmt == FMT_PPROF);
	CHECK("parse speedscope", out_format_parse("speedscope", &fmt) == 0 &&
	      fmt == FMT_SPEEDSCOPE);
	CHECK("parse text", out_format_parse("text", &fmt) == 0 && fmt == FMT_TEXT);
	CHECK("parse alias collapsed", out_format_parse("collapsed", &fmt) == 0 &&
	      fmt == FMT_FOLDED);
	CHECK("parse unknown", out_format_parse("png", &fmt) == -1);
	CHECK("parse NULL", out_format_parse(NULL, &fmt) == -1);
	CHECK("path .svg", out_format_from_path("/tmp/a.svg") == FMT_SVG);
	CHECK("path .SVG", out_format_from_path("A.SVG") == FMT_SVG);
	CHECK("path .pb.gz", out_format_from_path("cpu.pb.gz") == FMT_PPROF);
	CHECK("path .pprof", out_format_from_path("cpu.pprof") == FMT_PPROF);
	CHECK("path .folded", out_format_from_path("out.folded") == FMT_FOLDED);
	CHECK("path .speedscope.json", out_format_from_path("x.speedscope.json") ==
	      FMT_SPEEDSCOPE);
	CHECK("path .json is text", out_format_from_path("x.json") == FMT_TEXT);
	CHECK("path .txt is text", out_format_from_path("x.txt") == FMT_TEXT);
	CHECK("path .gz is text", out_format_from_path("x.gz") == FMT_TEXT);
	CHECK("bare .svg is a name", out_format_from_path("dir/.svg") == FMT_TEXT);
	CHECK("path NULL", out_format_from_path(NULL) == FMT_TEXT);
	CHECK("path -", out_format_from_path("-") == FMT_TEXT);
	CHECK_STR("format name", out_format_name(FMT_SPEEDSCOPE), "speedscope");
}

static void check_folded_escaping(void)
{
	struct profile *p = profile_new(99);
	struct frame_sym f1 = lua("a;b\nc%d 12", "@/x/t.lua", 3, 4);
	struct frame_sym f2 = lua("v42", "@/x/t.lua", 5, 6);
	struct frame_sym f3 = lua("bad\xc3(\xc0\xaf\xed\xa0\x80", "@/x/t.lua", 7, 8);
	struct frame_sym f4 = lua("tab\tcr\rdel\x7f", "=stdin", 1, 1);
	struct frame_sym f5 = lua("ok \xe2\x82\xac 7x", "@/x/t.lua", 9, 9);
	const struct frame_sym *s1[] = { &f1, &f2 };
	const struct frame_sym *s2[] = { &f3 };
	const struct frame_sym *s3[] = { &f4, &f5 };

	profile_set_comm(p, 7, "my;comm 3");
	add(p, 7, -1, 0, 5, s1, 2);
	add(p, 7, -1, 0, 2, s2, 1);
	add(p, 7, -1, 0, 1, s3, 2);
	add(p, 7, -1, 0, 0, s3, 1);	/* zero counts leave no line */
	CHECK("folded escaping runs", run(export_folded, p, NULL) == 0);
	CHECK_STR("folded escapes ; newline % and trailing digits", out_buf,
		  "my%3Bcomm%203;stdin:tab%09cr%0Ddel%7F;t.lua:ok \xe2\x82\xac 7x 1\n"
		  "my%3Bcomm%203;t.lua:a%3Bb%0Ac%25d%2012;t.lua:v42 5\n"
		  "my%3Bcomm%203;t.lua:bad%C3(%C0%AF%ED%A0%80 2\n");
	CHECK("folded output is valid UTF-8", valid_utf8(out_buf, out_len));
	profile_free(p);
}

static void check_roots(void)
{
	struct profile *p = profile_new(99);
	struct frame_sym w = lua("work", "@/x/t.lua", 1, 2);
	struct frame_sym host = { .kind = SYM_HOST };
	const struct frame_sym *st[] = { &w };
	const struct frame_sym *hostst[] = { &host };
	struct export_opts states = { .scope = 'F', .pathstrip = true,
				      .vmstate_frames = true, .zone_frames = true };
	struct export_opts scope_f = { .scope = 'f' }, scope_l = { .scope = 'l' };
	struct export_opts bad = { .scope = 'x' };
	struct export_opts per_process = { .scope = 'F', .pathstrip = true, .per_process = true };

	profile_set_comm(p, 10, "luajit");
	add(p, 10, 3, 0, 4, st, 1);
	add(p, 10, -2, PSAMPLE_HOST, 2, NULL, 0);
	add(p, 10, -1, 0, 1, NULL, 0);
	CHECK("one process", run(export_folded, p, NULL) == 0);
	/* A Lua sample without frames shows it, and counts (issue 12). */
	CHECK_STR("one process: comm is the root, host is comm;[host]", out_buf,
		  "luajit;[host] 2\nluajit;[unknown: empty stack] 1\nluajit;t.lua:work 4\n");
	CHECK("vmstate and zone frames", run(export_folded, p, &states) == 0);
	CHECK_STR("vmstate at the leaf, zone under the root, none for host", out_buf,
		  "luajit;[host] 2\n"
		  "luajit;[zone:(none)];[unknown: empty stack];[Interpreted] 1\n"
		  "luajit;[zone:(none)];t.lua:work;[Compiled] 4\n");
	CHECK("scope f", run(export_folded, p, &scope_f) == 0 &&
	      strstr(out_buf, "luajit;work 4\n"));
	CHECK("scope l with the full path", run(export_folded, p, &scope_l) == 0 &&
	      strstr(out_buf, "luajit;/x/t.lua:2 4\n"));
	errno = 0;
	CHECK("bad scope", run(export_folded, p, &bad) == -1 && errno == EINVAL);
	CHECK("bad scope svg", run(export_svg, p, &bad) == -1 && errno == EINVAL);
	CHECK("bad scope speedscope", run(export_speedscope, p, &bad) == -1 &&
	      errno == EINVAL);

	/* A [host] frame in the stack is not doubled. */
	add(p, 11, -2, PSAMPLE_HOST, 3, hostst, 1);
	add(p, 11, -1, 0, 6, st, 1);
	CHECK("several processes", run(export_folded, p, &per_process) == 0);
	CHECK_STR("several processes: comm;pid roots, unknown comm is ?", out_buf,
		  "?;11;[host] 3\n?;11;t.lua:work 6\n"
		  "luajit;10;[host] 2\nluajit;10;[unknown: empty stack] 1\n"
		  "luajit;10;t.lua:work 4\n");
	CHECK("several processes in speedscope", run(export_speedscope, p, NULL) == 0 &&
	      strstr(out_buf, "\"name\":\"luajit (pid 10)\"") &&
	      strstr(out_buf, "\"name\":\"? (pid 11)\""));
	/* By default the processes of one program (12 forked by 10, running
	 * the same executable) merge under its comm. */
	profile_set_comm(p, 12, "luajit");
	profile_set_program(p, 12, 10);
	add(p, 12, -1, 0, 5, st, 1);
	CHECK("one program, two processes", run(export_folded, p, NULL) == 0);
	CHECK_STR("one program, two processes: merged under comm", out_buf,
		  "?;[host] 3\n?;t.lua:work 6\n"
		  "luajit;[host] 2\nluajit;[unknown: empty stack] 1\n"
		  "luajit;t.lua:work 9\n");
	CHECK("one program in speedscope", run(export_speedscope, p, NULL) == 0 &&
	      strstr(out_buf, "\"name\":\"luajit (pid 10, 2 processes)\"") &&
	      strstr(out_buf, "\"name\":\"? (pid 11)\""));
	CHECK("per process in speedscope", run(export_speedscope, p, &per_process) == 0 &&
	      strstr(out_buf, "\"name\":\"luajit (pid 12)\""));
	/* Another luajit, unrelated: two programs share a comm, so the
	 * program's first pid keeps them apart. */
	profile_set_comm(p, 13, "luajit");
	add(p, 13, -1, 0, 1, st, 1);
	CHECK("two programs, one comm", run(export_folded, p, NULL) == 0);
	CHECK_STR("two programs, one comm: a pid frame per program", out_buf,
		  "?;11;[host] 3\n?;11;t.lua:work 6\n"
		  "luajit;10;[host] 2\nluajit;10;[unknown: empty stack] 1\n"
		  "luajit;10;t.lua:work 9\nluajit;13;t.lua:work 1\n");
	profile_free(p);
}

static void check_empty(void)
{
	struct profile *p = profile_new(0);

	CHECK("empty folded", run(export_folded, p, NULL) == 0 && out_len == 0);
	CHECK("empty svg", run(export_svg, p, NULL) == 0 &&
	      strstr(out_buf, "No samples collected") && strstr(out_buf, "</svg>"));
	CHECK("empty speedscope", run(export_speedscope, p, NULL) == 0 &&
	      strstr(out_buf, "\"samples\":[]"));
	CHECK("empty pprof", run(export_pprof, p, NULL) == 0 && out_len > 20);
	profile_free(p);
}

/* Names with markup, controls, invalid UTF-8 and 10 KB, in SVG and JSON. */
static void check_markup(void)
{
	struct profile *p = profile_new(99);
	char *huge = malloc(10241);
	struct frame_sym f1 = lua("<b>&\"q'\n\x01", "@/x/a&b.lua", 1, 2);
	struct frame_sym f2 = lua("bad\xff\xfe" "end\\", "@/x/t.lua", 3, 4);
	struct frame_sym f3, f4 = lua("\xef\xbf\xbe", "@/x/t.lua", 7, 8);
	const struct frame_sym *st[] = { &f1, &f2, &f3, &f4 };
	struct export_opts icicle = { .icicle = true, .title = "<T&>" };
	char *pos;

	memset(huge, 'x', 10240);
	memcpy(huge + 5000, "<&;\"", 4);
	huge[10240] = '\0';
	f3 = lua(huge, "@/x/t.lua", 5, 6);
	profile_set_comm(p, 1, "a<b");
	add(p, 1, -1, 0, 3, st, 4);

	CHECK("svg with markup", run(export_svg, p, NULL) == 0);
	CHECK("svg is valid UTF-8", valid_utf8(out_buf, out_len));
	CHECK("svg has no raw control bytes", no_raw_controls(out_buf, out_len));
	/* SVG labels put the name first (issue 12): "name file:firstline". */
	CHECK("svg escapes markup in titles",
	      strstr(out_buf, "<title>&lt;b&gt;&amp;&quot;q&apos;\\n\\x01 a&amp;b.lua:1\n"));
	CHECK("svg replaces invalid UTF-8", strstr(out_buf, "<title>bad\xef\xbf\xbd\xef\xbf\xbd"
					    "end\\ t.lua:3\n"));
	CHECK("svg replaces U+FFFE", strstr(out_buf, "<title>\xef\xbf\xbd t.lua:7\n"));
	CHECK("svg escapes comm", strstr(out_buf, "<title>a&lt;b\n"));
	pos = strstr(out_buf, "<title>xxxx");
	CHECK("svg keeps the 10 KB name whole in the title",
	      pos && strstr(pos, "xxx&lt;&amp;;&quot;xxx") &&
	      strspn(pos + 7, "x") == 5000);
	CHECK("svg frame text is cut to fit", pos && strstr(pos, "..</text>") &&
	      strstr(pos, "..</text>") - pos < 10240 + 400);
	CHECK("svg icicle with title", run(export_svg, p, &icicle) == 0 &&
	      strstr(out_buf, ">&lt;T&amp;&gt;</text>"));

	CHECK("speedscope with markup", run(export_speedscope, p, NULL) == 0);
	CHECK("json is valid UTF-8", valid_utf8(out_buf, out_len));
	CHECK("json has no raw control bytes", no_raw_controls(out_buf, out_len));
	CHECK("json escapes quotes and controls",
	      strstr(out_buf, "\"name\":\"a&b.lua:<b>&\\\"q'\\n\\u0001\""));
	CHECK("json escapes backslash, replaces invalid UTF-8",
	      strstr(out_buf, "\"name\":\"t.lua:bad\\ufffd\\ufffdend\\\\\""));
	CHECK("json keeps the file path", strstr(out_buf, "\"file\":\"/x/a&b.lua\""));
	CHECK("json keeps the 10 KB name", strstr(out_buf, "xxx<&;\\\"xxx"));
	CHECK("json comm in the profile name", strstr(out_buf, "\"name\":\"a<b (pid 1)\""));

	CHECK("folded with a 10 KB name", run(export_folded, p, NULL) == 0 &&
	      out_len > 10240 && strstr(out_buf, "xxx<&%3B\"xxx"));
	CHECK("pprof with markup", run(export_pprof, p, NULL) == 0);
	free(huge);
	profile_free(p);
}

/* Odd frames: no chunk, string chunks, builtins, unknown, NULL names. */
static void check_odd_frames(void)
{
	struct profile *p = profile_new(99);
	struct frame_sym nochunk = lua(NULL, NULL, 3, -1);
	struct frame_sym str = lua(NULL, "local x = 1\nreturn x", 1, 2);
	struct frame_sym builtin = lua(NULL, "foreach", -1, -1);
	struct frame_sym unknown = { .kind = SYM_UNKNOWN };
	struct frame_sym ff = { .kind = SYM_FF, .ffid = 21 };
	struct frame_sym cf = { .kind = SYM_C, .cfunc = 0x7f0011223344ull };
	const struct frame_sym *st[] = { &cf, &nochunk, &str, &builtin, &unknown, &ff };

	profile_set_comm(p, 1, "x");
	add(p, 1, -5, PSAMPLE_TRUNCATED, 2, st, 6);
	CHECK("odd frames folded", run(export_folded, p, NULL) == 0);
	CHECK_STR("odd frames labels", out_buf,
		  "x;[unknown: truncated];@0x7f0011223344;[string]:3;[string]:1;"
		  "[builtin:foreach];[unknown: unresolved];[builtin#21];[JIT Compiler] 2\n");
	CHECK("odd frames svg", run(export_svg, p, NULL) == 0);
	CHECK("odd frames speedscope", run(export_speedscope, p, NULL) == 0 &&
	      strstr(out_buf, "\"file\":\"[string \\\"local x = 1...\\\"]\"") &&
	      strstr(out_buf, "{\"name\":\"[builtin:foreach]\",\"file\":\"[builtin:foreach]\"}"));
	CHECK("odd frames pprof", run(export_pprof, p, NULL) == 0);
	profile_free(p);
}

/* A larger random profile: everything completes and stays consistent. */
static void check_large(void)
{
	struct profile *p = profile_new(997);
	struct frame_sym pool[200];
	char names[200][16];
	unsigned seed = 12345;
	uint64_t total = 0;

	for (int i = 0; i < 200; i++) {
		snprintf(names[i], sizeof(names[i]), "fn%d", i);
		pool[i] = lua(names[i], "@/big/t.lua", i + 1, i + 2);
	}
	for (int i = 0; i < 20000; i++) {
		const struct frame_sym *st[40];
		uint32_t n = 1 + (uint32_t)(rand_r(&seed) % 40);

		for (uint32_t k = 0; k < n; k++)
			st[k] = &pool[rand_r(&seed) % (k < 3 ? 3 : 200)];
		add(p, 100 + (uint32_t)(rand_r(&seed) % 3), -1 - (rand_r(&seed) % 4), 0,
		    1 + (uint64_t)(rand_r(&seed) % 5), st, n);
	}
	for (size_t i = 0; i < p->nsamples; i++)
		total += p->samples[i].count;
	CHECK("large: folded", run(export_folded, p, NULL) == 0);
	{
		uint64_t sum = 0;

		for (char *line = out_buf; line && *line;) {
			char *nl = strchr(line, '\n'), *sp;

			*nl = '\0';
			sp = strrchr(line, ' ');
			sum += strtoull(sp + 1, NULL, 10);
			line = nl + 1;
		}
		CHECK("large: folded counts add up", sum == total);
	}
	CHECK("large: svg", run(export_svg, p, NULL) == 0 && out_len < 20 * 1024 * 1024);
	CHECK("large: speedscope", run(export_speedscope, p, NULL) == 0);
	CHECK("large: pprof", run(export_pprof, p, NULL) == 0);
	profile_free(p);
}

static void check_write_error(void)
{
	struct profile *p = profile_new(99);
	struct frame_sym w = lua("work", "@/x/t.lua", 1, 2);
	const struct frame_sym *st[] = { &w };
	FILE *full = fopen("/dev/full", "w");

	if (!full) {
		CHECK("/dev/full opens", false);
		return;
	}
	add(p, 1, -1, 0, 1, st, 1);
	errno = 0;
	CHECK("write error is reported", export_folded(full, p, NULL) == -1 &&
	      errno == ENOSPC);
	clearerr(full);
	CHECK("write error is reported by svg", export_svg(full, p, NULL) == -1 && errno);
	fclose(full);
	profile_free(p);
}

static int jitp_2(FILE *out, const struct profile *p, const struct export_opts *o)
{
	struct jp_mode m;
	char err[64];

	(void)o;
	return jp_mode_parse("2", &m, err, sizeof(err)) ? -1 : view_jitp_write(out, p, &m);
}

static int tree(FILE *out, const struct profile *p, const struct export_opts *o)
{
	struct view_tree_opts to;

	(void)o;
	view_tree_opts_init(&to);
	return view_tree_write(out, p, &to);
}

/* Issue 12: an unreadable stack is [unknown: CAUSE], the same in every
 * view and format, and it counts in every total. */
static void check_unknown_everywhere(void)
{
	struct profile *p = profile_new(99);
	struct frame_sym w = lua("work", "@/x/t.lua", 1, 2);
	struct frame_sym cut = { .kind = SYM_UNKNOWN, .name = "bad frame", .line = -1 };
	const struct frame_sym *partial[] = { &cut, &w }, *whole[] = { &w };

	profile_set_comm(p, 7, "x");
	add(p, 7, -1, 0, 3, partial, 2);
	add(p, 7, -1, 0, 2, NULL, 0);
	add(p, 7, -1, 0, 5, whole, 1);
	CHECK("unknown: folded", run(export_folded, p, NULL) == 0);
	CHECK_STR("unknown: folded keeps the frames above the cut, counts all", out_buf,
		  "x;[unknown: bad frame];t.lua:work 3\nx;[unknown: empty stack] 2\n"
		  "x;t.lua:work 5\n");
	CHECK("unknown: svg titles and total", run(export_svg, p, NULL) == 0 &&
	      strstr(out_buf, "<title>[unknown: bad frame]\n3 samples, 30.00%") &&
	      strstr(out_buf, "<title>[unknown: empty stack]\n2 samples, 20.00%") &&
	      strstr(out_buf, "10 samples at 99 Hz"));
	CHECK("unknown: speedscope frames", run(export_speedscope, p, NULL) == 0 &&
	      strstr(out_buf, "{\"name\":\"[unknown: bad frame]\"}") &&
	      strstr(out_buf, "{\"name\":\"[unknown: empty stack]\"}") &&
	      strstr(out_buf, "\"endValue\":10,"));
	CHECK("unknown: pprof", run(export_pprof, p, NULL) == 0);
	CHECK_STR("unknown: jit.p view, depth 2", (run(jitp_2, p, NULL), out_buf),
		  "50%  work\n30%  work < [unknown: bad frame]\n20%  [unknown: empty stack]\n");
	CHECK("unknown: call tree roots", run(tree, p, NULL) == 0 &&
	      strstr(out_buf, "  30.0%    0.0%         3  [unknown: bad frame]\n"
			      "  30.0%   30.0%         3    t.lua:work\n") &&
	      strstr(out_buf, "  20.0%   20.0%         2  [unknown: empty stack]\n"));
	profile_free(p);
}

int main(void)
{
	check_unknown_everywhere();
	check_formats();
	check_folded_escaping();
	check_roots();
	check_empty();
	check_markup();
	check_odd_frames();
	check_large();
	check_write_error();
	free(out_buf);
	UNIT_EXIT();
}
