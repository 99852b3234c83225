/* SPDX-License-Identifier: MIT */
/* The container a process runs in, from its cgroup path
 * (/proc/PID/cgroup), for the layouts the runtimes make:
 *
 *   Docker      /system.slice/docker-ID.scope           (systemd driver)
 *               /docker/ID                               (cgroupfs driver)
 *   Podman      /machine.slice/libpod-ID.scope[/container], rootless
 *               /user.slice/user-U.slice/user@U.service/.../libpod-ID.scope,
 *               /libpod_parent/libpod-ID                 (cgroupfs)
 *   Kubernetes  /kubepods.slice/kubepods-QOS.slice/kubepods-QOS-podUID.slice/
 *                 cri-containerd-ID.scope (containerd) | crio-ID.scope (CRI-O)
 *                 | docker-ID.scope; guaranteed pods without the QOS level
 *               /kubepods/QOS/podUID/ID | crio-ID        (cgroupfs)
 *
 * ID is 64 lower-case hex digits; UID a Kubernetes pod UID (in systemd
 * slice names with '_' for '-').  cgroup v2's line ("0::PATH") is read
 * first, then the v1 hierarchies'.  A path that matches none of these (a
 * host process, a runtime's monitor: crio-conmon-ID, libpod-conmon-ID,
 * an unknown layout) gives nothing: never a wrong label.  Nor does a path
 * a user could have made (cgroup_root_made): container_of_pid believes
 * only root's. */
#ifndef LBP_CONTAINER_H
#define LBP_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CONTAINER_ID_LEN	64
#define POD_UID_LEN		36
#define CONTAINER_LABELS_MAX	512

struct container_ref {
	char id[CONTAINER_ID_LEN + 1];		/* "" when unknown */
	char pod_uid[POD_UID_LEN + 1];		/* "" when not in a pod */
	/* From files the runtime keeps on the host (container_names);
	 * "" when unknown. */
	char name[128], pod_name[254], pod_namespace[64];
	/* From --label-from's program (label_hook.h): "key=value\n" lines,
	 * keys and values already checked; "" when none. */
	char labels[CONTAINER_LABELS_MAX];
};

/* Parses the text of /proc/PID/cgroup.  0 with out's id (and pod_uid)
 * filled, or -1 (out emptied) when no known layout names a container. */
int container_from_cgroup(const char *text, struct container_ref *out);

/* Where the container was found: the hierarchy's controllers ("" for
 * cgroup v2's line) and the path up to the container's own element. */
struct cgroup_where {
	char controllers[128];
	char path[4096];
};

int container_from_cgroup_where(const char *text, struct container_ref *out,
				struct cgroup_where *w);

/* Whether only root could have made w's path: every directory from the
 * hierarchy's root down to the container's element is root's and no one
 * else may write it.  A user with a delegated subtree can name cgroups as
 * a runtime does, but they are that user's.  The hierarchy is found in
 * PROC/self/mountinfo and reached through PROC/self/root, else through
 * those of root's processes the agent descends from (a runtime's conmon or
 * shim, in the host's mounts when the agent is in a container with
 * hostPID), else PID 1's.  A path outside our cgroup namespace ("/../") cannot be
 * checked and is not believed.  why: the reason when false. */
bool cgroup_root_made(const char *proc_root, const struct cgroup_where *w, const char **why);

/* Kubernetes: the kubelet's log links in dir (/var/log/containers),
 * named POD_NAMESPACE_CONTAINER-ID.log, give c's names.  Only names are
 * read (no link is followed).  0 when found. */
int container_names_k8s(const char *dir, struct container_ref *c);

/* Docker: DIR/ID/config.v2.json's top-level "Name" ("/web" gives
 * "web"); dir is /var/lib/docker/containers.  0 when found. */
int container_names_docker(const char *dir, struct container_ref *c);

/* Podman (as root): DIR/containers.json, the element whose "id" is c's,
 * its first "names"; dir is
 * /var/lib/containers/storage/overlay-containers.  0 when found. */
int container_names_podman(const char *dir, struct container_ref *c);

/* Files are read only from directories root owns that no one else may
 * write, and only if root owns them and no one else may write them. */

/* Reads /proc/PID/cgroup (under proc_root, "/proc") and the names: 0 when
 * the process is in a container. */
int container_of_pid(const char *proc_root, pid_t pid, struct container_ref *out);

#endif
