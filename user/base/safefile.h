/* SPDX-License-Identifier: MIT */
/* Files root writes where other users might meddle.
 *
 * Directories the agent keeps state in (--spool-dir, --out-dir, the log
 * file's directory) must be root's own and writable by nobody else: then
 * no one can plant, replace or link a name in them.  They are opened once
 * with O_NOFOLLOW and used through that descriptor, so a symlink swapped
 * in for the path later is never followed either.
 *
 * A new file is written without a name (O_TMPFILE) and linked into place
 * whole when done: a crash, SIGKILL or SIGHUP leaves nothing behind.  Where
 * the file system has no O_TMPFILE a named temporary
 * ".luabpfprof.PID-START.RANDOM" is used instead, and any later run removes
 * the ones whose process (PID with that start time) is gone.
 */
#ifndef LBP_SAFEFILE_H
#define LBP_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Opens directory path (creating it with create_mode unless that is 0)
 * and checks it: not a symlink, a directory, owned by the effective user
 * (root), not writable by group or others.  Returns the descriptor, or -1
 * with one line naming what (e.g. "--spool-dir") and the problem. */
int safe_dir_open(const char *path, const char *what, mode_t create_mode, char *err,
		  size_t errlen);

/* Removes the named temporaries of runs that are gone from dirfd. */
void safe_dir_clean(int dirfd);

struct safe_file;

/* A new file to become dirfd/name; invisible until committed.  mode is
 * its final mode (umask not applied).  NULL with a reason on error. */
struct safe_file *safe_file_create(int dirfd, const char *name, mode_t mode, char *err,
				   size_t errlen);
int safe_file_fd(const struct safe_file *f);

/* Makes the file appear under its name, whole: fsync, then link.  With
 * replace an existing entry of that name (file or symlink: never
 * followed) is atomically replaced; without, an existing name is an error
 * (EEXIST) and nothing is overwritten.  Frees f.  -1 with errno set. */
int safe_file_commit(struct safe_file *f, bool replace);

/* Drops an uncommitted file.  Frees f. */
void safe_file_abort(struct safe_file *f);

/* The one write_file: dirfd/name holds exactly data[0..len) with mode, or
 * is untouched.  -1 with errno set. */
int safe_write_file(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
		    bool replace);

/* Writes all of buf to fd (EINTR retried).  -1 with errno set. */
int safe_write_all(int fd, const void *buf, size_t len);

/* Opens dirfd/name for appending (a log): never through a symlink, only a
 * regular file, created with mode if missing.  -1 with errno set (ELOOP
 * for a symlink, EINVAL for something not a regular file). */
int safe_open_append(int dirfd, const char *name, mode_t mode);

#endif
