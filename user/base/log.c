/* One line per message, prefixed with the program name. */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

bool log_is_verbose;
static bool log_timestamps;

void log_set_timestamps(bool on)
{
	log_timestamps = on;
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	if (log_timestamps) {
		char when[32];
		time_t now = time(NULL);
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z ", localtime_r(&now, &tm));
		fputs(when, stderr);
	}
	fprintf(stderr, "luabpfprof: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void log_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!log_is_verbose)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}
