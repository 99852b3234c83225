/* SPDX-License-Identifier: MIT */
/* Option values: strict parsers and checks for what the option table
 * accepts (numbers, durations, sizes, URLs), and the few facts about the
 * host an option is checked against (/proc).  Each returns 0, or -1 with
 * a short reason in why ("too large (at most 365 days)"), which the
 * caller puts after the option's name. */
#ifndef LBP_OPTVALUE_H
#define LBP_OPTVALUE_H

#include <stddef.h>
#include <sys/types.h>

/* The whole string a decimal number in [min, max]: no sign, no white
 * space, no hex. */
int parse_uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out);

/* A duration: a decimal number of seconds, or a number with a unit:
 * "500ms", "5s", "2m", "1h".  The result, in seconds, must be more than 0
 * (min == 0) or at least min, and at most max. */
int parse_duration(const char *s, double min, double max, double *out, char *why,
		   size_t whylen);

/* A short time: a whole number of microseconds, or of a unit ("500ns",
 * "20us", "2ms", "1s"), up to one second -> nanoseconds. */
int parse_short_time(const char *s, unsigned long long *ns);

/* "4096", "64K", "100M", "1G" -> bytes, from 1 to 2^50. */
int parse_size(const char *s, unsigned long long *out);

/* An http:// or https:// URL whose host (a name, an IPv4 address or a
 * bracketed IPv6 address) and port libcurl will be able to use. */
int check_http_url(const char *url, char *why, size_t whylen);

/* Levenshtein distance, capped at 255 (for "did you mean"). */
unsigned edit_distance(const char *a, const char *b);

/* The thread group (process) of thread id tid, from ROOT/TID/status;
 * -1 if there is no such file or no Tgid line. */
pid_t proc_tgid(const char *root, pid_t tid);

/* The first number in ROOT/REL (a /proc/sys value); -1 if unreadable. */
int proc_read_uint(const char *root, const char *rel, unsigned long long *out);

#endif
