/* Diagnostics on stderr: errors always, details with -v. */
#ifndef LBP_LOG_H
#define LBP_LOG_H

#include <stdbool.h>

extern bool log_is_verbose;

void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
