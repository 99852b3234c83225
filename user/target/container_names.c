/* What a container is called, from files its runtime keeps on the host
 * (see container.h), and the whole look-up for one process. */
#include "target/container.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define K8S_LOG_DIR	"/var/log/containers"

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

int container_of_pid(const char *proc_root, pid_t pid, struct container_ref *out)
{
	char path[128], text[8192];
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
	if (container_from_cgroup(text, out))
		return -1;
	if (out->pod_uid[0])
		container_names_k8s(K8S_LOG_DIR, out);
	return 0;
}
