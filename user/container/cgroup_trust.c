// SPDX-License-Identifier: MIT
/* Whether a container's cgroup is root's own (see container.h).
 *
 * cgroup v2 delegation (systemd's Delegate=, a user's user@UID.service)
 * chowns a subtree to a user, who may then create any names in it:
 * kubepods.slice/kubepods-besteffort-pod<UID>.slice/cri-containerd-<ID>.scope
 * under user@1000.service is a path any such user can make, with a real
 * pod's UID and container ID.  What the user cannot make is a directory
 * owned by root: mkdir gives the creator's uid, and only root may chown.
 * So every element from the hierarchy's root to the container's must be
 * root's, and none writable by group or others (else anyone could create
 * or rename a child there). */
#define _GNU_SOURCE
#include "container/container.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MOUNTINFO_MAX	(4u << 20)	/* a node's mount table, thousands of pods */

static bool dir_is_roots(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022);
}

/* Whether every comma-separated item of want is one of have's. */
static bool has_all(const char *have, const char *want)
{
	size_t hl = strlen(have);

	while (*want) {
		size_t n = strcspn(want, ",");
		bool found = false;

		for (const char *h = have; h < have + hl; ) {
			size_t m = strcspn(h, ",");

			found |= m == n && !memcmp(h, want, n);
			h += m + (h[m] == ',');
		}
		if (!found || !n)
			return false;
		want += n + (want[n] == ',');
	}
	return true;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The mount point of the hierarchy w was read from, a mount of its whole
 * tree (its root "/"); 0 when found. */
static int find_mount(const char *proc_root, const char *view, const struct cgroup_where *w,
		      char *mnt, size_t len)
{
	char path[128], *line = NULL;
	size_t cap = 0, total = 0;
	bool v2 = !w->controllers[0];
	ssize_t n;
	int rc = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/mountinfo", proc_root, view);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (rc && total < MOUNTINFO_MAX && (n = getline(&line, &cap, f)) > 0) {
		char root[256], point[4096], type[32], opts[1024];
		const char *dash = strstr(line, " - ");

		total += (size_t)n;
		if (!dash || sscanf(line, "%*s %*s %*s %255s %4095s", root, point) != 2 ||
		    sscanf(dash + 3, "%31s %*s %1023s", type, opts) != 2 || strcmp(root, "/"))
			continue;
		if (v2 ? strcmp(type, "cgroup2") : strcmp(type, "cgroup") || !has_all(opts, w->controllers))
			continue;
		unescape(point);
		if (strlen(point) < len) {
			snprintf(mnt, len, "%s", point);
			rc = 0;
		}
	}
	free(line);
	fclose(f);
	return rc;
}

/* The hierarchy's root directory, through view's root, no symlink. */
static int open_mount(const char *proc_root, const char *view, const char *mnt)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char path[128];
	int root, fd;

	snprintf(path, sizeof(path), "%s/%s/root", proc_root, view);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
	fd = (int)syscall(SYS_openat2, root, mnt[1] ? mnt + 1 : ".", &how, sizeof(how));
	close(root);
	return fd;
}

enum walk { WALK_ROOTS, WALK_NOT_ROOTS, WALK_NOT_FOUND };

/* w's path in the mount namespace of view ("self", or "1": the host's
 * with hostPID, when the agent runs in a container of its own). */
static enum walk walk_view(const char *proc_root, const char *view, const struct cgroup_where *w)
{
	char mnt[4096];
	const char *p = w->path;
	enum walk r = WALK_ROOTS;
	int fd;

	if (find_mount(proc_root, view, w, mnt, sizeof(mnt)) ||
	    (fd = open_mount(proc_root, view, mnt)) < 0)
		return WALK_NOT_FOUND;
	if (!dir_is_roots(fd))
		r = WALK_NOT_ROOTS;
	while (r == WALK_ROOTS && *p) {
		size_t n = strspn(p, "/");
		char name[256];
		int next;

		p += n;
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n >= sizeof(name)) {
			r = WALK_NOT_ROOTS;
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		if (fd < 0)
			return WALK_NOT_FOUND;
		if (!dir_is_roots(fd))
			r = WALK_NOT_ROOTS;
	}
	close(fd);
	return r;
}

/* The parent of pid, if root runs it; 0 if none or not root's. */
static pid_t root_parent(const char *proc_root, const char *view)
{
	char path[128], line[256];
	long ppid = 0, uid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/status", proc_root, view);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "PPid: %ld", &ppid);
		sscanf(line, "Uid: %ld", &uid);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/%ld/status", proc_root, ppid);
	f = ppid > 0 ? fopen(path, "re") : NULL;
	uid = -1;
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "Uid: %ld", &uid);
	if (f)
		fclose(f);
	return uid == 0 ? (pid_t)ppid : 0;
}

bool cgroup_root_made(const char *proc_root, const struct cgroup_where *w, const char **why)
{
	enum walk r = WALK_NOT_FOUND;
	char view[24] = "self";

	proc_root = proc_root ? proc_root : "/proc";
	if (strstr(w->path, "/..") || !strncmp(w->path, "..", 2)) {
		*why = "outside the agent's cgroup namespace, so it cannot be checked";
		return false;
	}
	/* Our own mounts; else those of root's processes we descend from
	 * (a container's runtime, with hostPID: conmon, containerd-shim),
	 * which are the host's; else PID 1's. */
	for (int depth = 0; r == WALK_NOT_FOUND && depth < 8; depth++) {
		pid_t parent;

		r = walk_view(proc_root, view, w);
		parent = root_parent(proc_root, view);
		if (parent <= 1)
			break;
		snprintf(view, sizeof(view), "%d", (int)parent);
	}
	if (r == WALK_NOT_FOUND)
		r = walk_view(proc_root, "1", w);
	if (r == WALK_NOT_FOUND)
		*why = "its cgroup hierarchy is not mounted where the agent can check it";
	else if (r == WALK_NOT_ROOTS)
		*why = "a directory of its cgroup path is not root's, or others may write it";
	return r == WALK_ROOTS;
}
