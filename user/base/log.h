/* Diagnostics on stderr: errors always, details with -v. */
#ifndef LBP_LOG_H
#define LBP_LOG_H

#include <stdbool.h>

extern bool log_is_verbose;

/* Daemons (continuous mode) stamp every line with the local time. */
void log_set_timestamps(bool on);

void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
