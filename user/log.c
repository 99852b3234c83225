/* One line per message, prefixed with the program name. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

bool log_is_verbose;

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
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

void log_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!log_is_verbose)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}
