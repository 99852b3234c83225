// SPDX-License-Identifier: MIT
/* Output format names, and the format a file name implies. */
#include "report/export.h"

#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	enum out_format fmt;
} format_names[] = {
	{ "text", FMT_TEXT },
	{ "folded", FMT_FOLDED },
	{ "collapsed", FMT_FOLDED },		/* FlameGraph's word for it */
	{ "svg", FMT_SVG },
	{ "flamegraph", FMT_SVG },		/* py-spy's */
	{ "pprof", FMT_PPROF },
	{ "speedscope", FMT_SPEEDSCOPE },
	{ "speedscope.json", FMT_SPEEDSCOPE },
	{ "otlp", FMT_OTLP },
	{ "chrome", FMT_CHROME },
	{ "trace", FMT_CHROME },		/* the Trace Event format's own word */
	{ "perfetto", FMT_CHROME },		/* what opens it */
	{ "speedscope-evented", FMT_SPEEDSCOPE_EVENTED },
};

/* Longest suffixes first, so ".speedscope.json" wins over nothing. */
static const struct {
	const char *suffix;
	enum out_format fmt;
} format_suffixes[] = {
	{ ".evented.speedscope.json", FMT_SPEEDSCOPE_EVENTED },
	{ ".speedscope.json", FMT_SPEEDSCOPE },
	{ ".trace.json", FMT_CHROME },
	{ ".collapsed", FMT_FOLDED },
	{ ".folded", FMT_FOLDED },
	{ ".pprof", FMT_PPROF },
	{ ".pb.gz", FMT_PPROF },
	{ ".svg", FMT_SVG },
	{ ".otlp", FMT_OTLP },
};

int out_format_parse(const char *name, enum out_format *fmt)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
		if (!strcasecmp(name, format_names[i].name)) {
			*fmt = format_names[i].fmt;
			return 0;
		}
	}
	return -1;
}

enum out_format out_format_from_path(const char *path)
{
	size_t len = path ? strlen(path) : 0;

	for (size_t i = 0; i < sizeof(format_suffixes) / sizeof(format_suffixes[0]); i++) {
		size_t n = strlen(format_suffixes[i].suffix);

		/* A bare ".svg" is a hidden file's name, not an extension. */
		if (len > n && path[len - n - 1] != '/' &&
		    !strcasecmp(path + len - n, format_suffixes[i].suffix))
			return format_suffixes[i].fmt;
	}
	return FMT_TEXT;
}

const char *out_format_name(enum out_format fmt)
{
	switch (fmt) {
	case FMT_TEXT: return "text";
	case FMT_FOLDED: return "folded";
	case FMT_SVG: return "svg";
	case FMT_PPROF: return "pprof";
	case FMT_SPEEDSCOPE: return "speedscope";
	case FMT_OTLP: return "otlp";
	case FMT_CHROME: return "chrome";
	case FMT_SPEEDSCOPE_EVENTED: return "speedscope-evented";
	}
	return "?";
}
