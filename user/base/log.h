/* SPDX-License-Identifier: MIT */
/* Diagnostics on stderr: errors always, details with -v. */
#ifndef LBP_LOG_H
#define LBP_LOG_H

#include <stdbool.h>

extern bool log_is_verbose;

/* Daemons (continuous mode) stamp every line with the local time. */
void log_set_timestamps(bool on);

/* Sends stderr to path from now on (SIGHUP calls it again, for
 * logrotate).  Root writes it, so the directory must be root's own and
 * not writable by others, and the file is never a symlink or anything but
 * a regular file (base/safefile.h).  -1 after logging one line. */
int log_to_file(const char *path);

void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
