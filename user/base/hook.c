// SPDX-License-Identifier: MIT
/* Running a program of the user's (hook.h). */
#define _GNU_SOURCE
#include "base/hook.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Owned by root or by us, writable by no one else. */
static bool ours(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & 022);
}

/* Whether we may switch the program to its user (hook_run.c). */
static bool can_switch_user(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const unsigned want = (1u << CAP_SETUID) | (1u << CAP_SETGID);

	memset(d, 0, sizeof(d));
	return !syscall(SYS_capget, &h, d) && (d[0].effective & want) == want;
}

int hook_check(const char *path, char *err, size_t errlen)
{
	char dir[4096];
	struct stat st;
	char *slash;

	if (!can_switch_user()) {
		snprintf(err, errlen, "--label-from %s: runs as user nobody without capabilities, "
			 "which needs CAP_SETUID and CAP_SETGID; luabpfprof lacks them", path);
		return -1;
	}

	if (path[0] != '/') {
		snprintf(err, errlen, "--label-from %s: give an absolute path", path);
		return -1;
	}
	if (lstat(path, &st) || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		snprintf(err, errlen, "--label-from %s: not an executable regular file (symlinks are not followed)",
			 path);
		return -1;
	}
	if (!ours(&st)) {
		snprintf(err, errlen, "--label-from %s: must be owned by root and writable by no one else", path);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/'))) {
		slash[slash == dir] = '\0';	/* "/x" leaves "/" */
		if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || !ours(&st)) {
			snprintf(err, errlen, "--label-from %s: directory %s must be root's and writable by no one else",
				 path, dir);
			return -1;
		}
		if (slash == dir)
			break;
	}
	return 0;
}
