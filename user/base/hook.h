/* SPDX-License-Identifier: MIT */
/* A program of the user's that luabpfprof runs (--label-from): checked
 * before it is trusted, run with a deadline and a cap on its output.
 *
 * As root, running a file someone else can change is running their code
 * as root: the program must be given by absolute path, be a regular,
 * executable file owned by root (or the effective user) that no one else
 * may write, in directories, up to /, of which the same holds.  It runs
 * as user nobody with no capabilities, no supplementary groups and
 * no_new_privs, in "/", in its own process group with stdin and stderr
 * on /dev/null, a fixed PATH, no other variables and no inherited
 * descriptors (hook_run.c).  When it exits, or past the deadline or the
 * output cap, everything it started is killed, even in a session of its
 * own: its output is read as soon as it exits. */
#ifndef LBP_HOOK_H
#define LBP_HOOK_H

#include <stddef.h>

/* 0 when path may be run; -1 with one line in err otherwise. */
int hook_check(const char *path, char *err, size_t errlen);

/* Runs path with argv (argv[0] the path, NULL-terminated) and collects at
 * most outlen - 1 bytes of its stdout in out (NUL-terminated).  0 when it
 * exited 0 in time and within the cap; -1 with the reason in err. */
int hook_run(const char *path, char *const argv[], int timeout_ms, char *out, size_t outlen,
	     char *err, size_t errlen);

#endif
