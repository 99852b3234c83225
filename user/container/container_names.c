// SPDX-License-Identifier: MIT
/* What a container is called, from files its runtime keeps on the host
 * (see container.h), and the whole look-up for one process. */
#include "container/container.h"

#include "base/json_scan.h"
#include "base/log.h"

#include <dirent.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define K8S_LOG_DIR	"/var/log/containers"
#define DOCKER_DIR	"/var/lib/docker/containers"
#define PODMAN_DIR	"/var/lib/containers/storage/overlay-containers"
#define JSON_MAX	(8u << 20)	/* containers.json of a few thousand containers */

/* Kubernetes names are DNS labels and subdomains: [a-z0-9.-]. */
static bool k8s_name(const char *s, size_t n, char *out, size_t outlen)
{
	if (!n || n >= outlen)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '-' || s[i] == '.'))
			return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/* "POD_NAMESPACE_CONTAINER-ID.log" for c's ID. */
static bool parse_log_name(const char *name, struct container_ref *c)
{
	size_t len = strlen(name), tail = 1 + CONTAINER_ID_LEN + 4;
	const char *u1, *u2;
	struct container_ref tmp = *c;

	if (len <= tail || name[len - tail] != '-' || strcmp(name + len - 4, ".log") ||
	    memcmp(name + len - tail + 1, c->id, CONTAINER_ID_LEN))
		return false;
	u1 = memchr(name, '_', len - tail);
	u2 = u1 ? memchr(u1 + 1, '_', (size_t)(name + len - tail - u1 - 1)) : NULL;
	if (!u2 || !k8s_name(name, (size_t)(u1 - name), tmp.pod_name, sizeof(tmp.pod_name)) ||
	    !k8s_name(u1 + 1, (size_t)(u2 - u1 - 1), tmp.pod_namespace, sizeof(tmp.pod_namespace)) ||
	    !k8s_name(u2 + 1, (size_t)(name + len - tail - u2 - 1), tmp.name, sizeof(tmp.name)))
		return false;
	*c = tmp;
	return true;
}

/* Only a directory root owns and nobody else may write to: as root, the
 * names in another user's directory would be that user's choice. */
static bool trusted_dir(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022);
}

int container_names_k8s(const char *dir, struct container_ref *c)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	int rc = -1;

	if (fd < 0 || !c->id[0])
		goto out;
	if (!trusted_dir(fd))
		goto out;
	d = fdopendir(fd);
	if (!d)
		goto out;
	fd = -1;
	while (rc && (e = readdir(d)))
		if (parse_log_name(e->d_name, c))
			rc = 0;
	closedir(d);
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

/* A file of root's that no one else may write, in such a directory,
 * read whole (at most JSON_MAX bytes); NULL otherwise.  Free it. */
static char *read_trusted(const char *dir, const char *name, size_t *len)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd = -1;
	char *buf = NULL;
	struct stat st;
	ssize_t n = 0;

	if (dfd < 0 || !trusted_dir(dfd))
		goto out;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) || (size_t)st.st_size > JSON_MAX)
		goto out;
	buf = malloc((size_t)st.st_size + 1);
	if (buf)
		n = read(fd, buf, (size_t)st.st_size);
	if (buf && n >= 0) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return buf;
}

int container_names_docker(const char *dir, struct container_ref *c)
{
	char sub[512], name[sizeof(c->name) + 1];
	size_t len = 0;
	char *doc;
	const char *v;
	int rc = -1;

	snprintf(sub, sizeof(sub), "%s/%s", dir, c->id);
	doc = read_trusted(sub, "config.v2.json", &len);
	if (!doc)
		return -1;
	v = json_member(doc, doc + len, "Name");
	/* Docker keeps the name with a leading '/'. */
	if (v && json_string(v, doc + len, name, sizeof(name)) && name[0] == '/' && name[1]) {
		snprintf(c->name, sizeof(c->name), "%s", name + 1);
		rc = 0;
	}
	free(doc);
	return rc;
}

int container_names_podman(const char *dir, struct container_ref *c)
{
	size_t len = 0;
	char *doc = read_trusted(dir, "containers.json", &len), id[CONTAINER_ID_LEN + 2];
	const char *end = doc + len, *p = doc, *elem, *names, *first;
	int rc = -1;

	if (!doc)
		return -1;
	p = json_ws(p, end);
	while (p && p < end && (elem = json_next(&p, end))) {
		const char *v = json_member(elem, end, "id");

		if (!v || !json_string(v, end, id, sizeof(id)) || strcmp(id, c->id))
			continue;
		names = json_member(elem, end, "names");
		first = names && *names == '[' ? json_next(&names, end) : NULL;
		if (first && json_string(first, end, c->name, sizeof(c->name)) && c->name[0])
			rc = 0;
		else
			c->name[0] = '\0';
		break;
	}
	free(doc);
	return rc;
}

int container_of_pid(const char *proc_root, pid_t pid, struct container_ref *out)
{
	char path[128], text[8192];
	struct cgroup_where w;
	const char *why;
	int fd;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root ? proc_root : "/proc", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	if (container_from_cgroup_where(text, out, &w))
		return -1;
	/* A name anyone with a delegated cgroup could have made is no label:
	 * it would ship the process as another pod. */
	if (!cgroup_root_made(proc_root, &w, &why)) {
		log_verbose("PID %d: no container label from cgroup %s: %s", (int)pid, w.path, why);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (out->pod_uid[0])
		container_names_k8s(K8S_LOG_DIR, out);
	else if (container_names_docker(DOCKER_DIR, out))
		container_names_podman(PODMAN_DIR, out);
	return 0;
}
