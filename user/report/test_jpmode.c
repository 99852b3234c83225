// SPDX-License-Identifier: MIT
/* -jp mode parsing against jit/p.lua prof_start.  The expected fields were
 * cross-checked with the upvalues of the real jit.p after p.start(mode). */
#include "report/jpmode.h"
#include "base/unit.h"

/* One line per mode: states, split, min, raw (r/G/-), fmt (ends in a
 * space when it has a separator), depth, ann. */
static const char *summary(const char *mode)
{
	static char buf[320];
	char err[256];
	struct jp_mode m;

	if (jp_mode_parse(mode, &m, err, sizeof(err)))
		snprintf(buf, sizeof(buf), "ERR %s", err);
	else
		snprintf(buf, sizeof(buf), "%c %d m%d %c %s %d %d",
			 m.states ? m.states : '-', m.split, m.min,
			 m.graph ? 'G' : m.raw ? 'r' : '-',
			 m.has_fmt ? m.fmt : "-", m.depth, m.ann);
	return buf;
}

static const char *error_of(const char *mode)
{
	static char err[256];
	struct jp_mode m;

	err[0] = '\0';
	if (!jp_mode_parse(mode, &m, err, sizeof(err)))
		return "(accepted)";
	return err;
}

int main(void)
{
	struct jp_mode m;
	char err[128];

	CHECK_STR("default", summary(""), "- 0 m3 - fZ <  1 -1");
	CHECK_STR("f", summary("f"), "- 0 m3 - fZ <  1 -1");
	CHECK_STR("F", summary("F"), "- 0 m3 - FZ <  1 -1");
	CHECK_STR("l", summary("l"), "- 0 m3 - lZ <  1 -1");
	CHECK_STR("p", summary("p"), "- 0 m3 - pfZ <  1 -1");
	CHECK_STR("v", summary("v"), "v 1 m3 - - 1 -1");
	CHECK_STR("z", summary("z"), "z 1 m3 - - 1 -1");
	CHECK_STR("r", summary("r"), "- 0 m3 r fZ <  1 -1");
	CHECK_STR("s", summary("s"), "- 2 m3 - fZ <  2 -1");
	CHECK_STR("-s", summary("-s"), "- 2 m3 - fZ >  -2 -1");
	CHECK_STR("s-1", summary("s-1"), "- 2 m3 - fZ >  -2 -1");
	CHECK_STR("s3 keeps depth", summary("s3"), "- 2 m3 - fZ <  3 -1");
	CHECK_STR("-3s keeps depth", summary("-3s"), "- 2 m3 - fZ >  -3 -1");
	CHECK_STR("2-s: bare dash", summary("2-s"), "- 2 m3 - fZ >  -2 -1");
	CHECK_STR("a", summary("a"), "- 0 m3 - pl 1 3");
	CHECK_STR("A", summary("A"), "- 0 m3 - pl 1 0");
	CHECK_STR("aA: A wins", summary("aA"), "- 0 m3 - pl 1 0");
	CHECK_STR("G", summary("G"), "- 0 m0 G fZ; -100 -1");
	CHECK_STR("pG", summary("pG"), "- 0 m0 G pfZ; -100 -1");
	CHECK_STR("vG is plain v", summary("vG"), "v 1 m3 - - 1 -1");
	CHECK_STR("fvG", summary("fvG"), "v 0 m0 G fZ; -100 -1");
	CHECK_STR("flG", summary("flG"), "- 3 m0 G lZ; -100 -1");
	CHECK_STR("vf", summary("vf"), "v 1 m3 - fZ <  1 -1");
	CHECK_STR("fv", summary("fv"), "v 0 m3 - fZ <  1 -1");
	CHECK_STR("fl", summary("fl"), "- 3 m3 - fZ <  1 -1");
	CHECK_STR("Fl", summary("Fl"), "- 3 m3 - FZ <  1 -1");
	CHECK_STR("lF", summary("lF"), "- 0 m3 - FZ <  1 -1");
	CHECK_STR("fF", summary("fF"), "- 0 m3 - FZ <  1 -1");
	CHECK_STR("zf", summary("zf"), "z 1 m3 - fZ <  1 -1");
	CHECK_STR("vzf: z wins", summary("vzf"), "z 1 m3 - fZ <  1 -1");
	CHECK_STR("vl", summary("vl"), "v 1 m3 - lZ <  1 -1");
	CHECK_STR("lv", summary("lv"), "v 0 m3 - lZ <  1 -1");
	CHECK_STR("2", summary("2"), "- 0 m3 - fZ <  2 -1");
	CHECK_STR("-2", summary("-2"), "- 0 m3 - fZ >  -2 -1");
	CHECK_STR("-2G", summary("-2G"), "- 0 m0 G fZ; -100 -1");
	CHECK_STR("3si4m1", summary("3si4m1"), "- 2 m1 - fZ <  3 -1");
	CHECK_STR("m0", summary("m0"), "- 0 m0 - fZ <  1 -1");
	CHECK_STR("m50f", summary("m50f"), "- 0 m50 - fZ <  1 -1");
	CHECK_STR("vs has no stack", summary("vs"), "v 2 m3 - - 2 -1");
	CHECK_STR("rG: G wins", summary("rG"), "- 0 m0 G fZ; -100 -1");
	CHECK_STR("ra", summary("ra"), "- 0 m3 r pl 1 3");

	CHECK("interval parsed", !jp_mode_parse("fi10", &m, err, sizeof(err)) &&
	      m.interval_ms == 10 && m.scope == 'f');
	CHECK("no interval is 0", !jp_mode_parse("f", &m, err, sizeof(err)) &&
	      m.interval_ms == 0 && !m.vmstate_detail);
	CHECK("user scope recorded", !jp_mode_parse("vl", &m, err, sizeof(err)) &&
	      m.user_scope == 'l' && m.states == 'v');
	CHECK("no user scope", !jp_mode_parse("v", &m, err, sizeof(err)) &&
	      m.user_scope == 0 && m.scope == 0);
	CHECK("split 3 scope is l", !jp_mode_parse("fl", &m, err, sizeof(err)) &&
	      m.scope == 'l' && m.user_scope == 'l');
	CHECK("NULL is the default", !jp_mode_parse(NULL, &m, err, sizeof(err)) &&
	      m.scope == 'f' && m.depth == 1);

	CHECK_STR("unknown letter", error_of("fq"),
		  "invalid --jp mode \"fq\": unknown letter 'q'");
	CHECK_STR("comma is not a letter", error_of("G,out"),
		  "invalid --jp mode \"G,out\": unknown letter ','");
	CHECK_STR("control char", error_of("f\t"),
		  "invalid --jp mode \"f\t\": unknown letter '\\x09'");
	CHECK_STR("m over 100", error_of("m101"),
		  "invalid --jp mode \"m101\": threshold m must be 0..100");
	CHECK_STR("bare m", error_of("fm"),
		  "invalid --jp mode \"fm\": 'm' needs a percentage, e.g. m1");
	CHECK_STR("i0", error_of("i0"),
		  "invalid --jp mode \"i0\": interval must be 1..60000 ms");
	CHECK_STR("bare i", error_of("fi"),
		  "invalid --jp mode \"fi\": 'i' needs a number of milliseconds, e.g. i5");
	CHECK_STR("interval overflow", error_of("i99999999999999999999"),
		  "invalid --jp mode \"i99999999999999999999\": interval must be 1..60000 ms");
	CHECK_STR("depth overflow", error_of("99999999999999999999"),
		  "invalid --jp mode \"99999999999999999999\": depth must be 1..100000 or -1..-100000");
	CHECK_STR("depth 0", error_of("f0"),
		  "invalid --jp mode \"f0\": depth must be 1..100000 or -1..-100000");
	CHECK("error truncates safely", jp_mode_parse("fq", &m, err, 8) && strlen(err) == 7);
	UNIT_EXIT();
}
