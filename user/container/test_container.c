// SPDX-License-Identifier: MIT
/* Container IDs and pod UIDs from /proc/PID/cgroup, for the cgroup paths
 * the runtimes make (as seen on Docker, Podman, containerd and CRI-O
 * hosts), and the paths that must give nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/unit.h"
#include "container/container.h"

#define ID "3f9a6b0c1d2e4f5061728394a5b6c7d8e9f00112233445566778899aabbccdde"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "5b2f0c1e-8a7d-4c3b-9e1f-0a2b3c4d5e6f"
#define UID_ "5b2f0c1e_8a7d_4c3b_9e1f_0a2b3c4d5e6f"

static const struct {
	const char *what, *cgroup, *id, *pod;	/* id NULL: no container */
} cases[] = {
	/* cgroup v2, systemd driver */
	{ "docker, systemd", "0::/system.slice/docker-" ID ".scope\n", ID, "" },
	{ "podman, systemd", "0::/machine.slice/libpod-" ID ".scope\n", ID, "" },
	{ "podman, the container's own subgroup",
	  "0::/machine.slice/libpod-" ID ".scope/container\n", ID, "" },
	{ "podman rootless",
	  "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope\n", ID, "" },
	{ "kubernetes containerd, besteffort",
	  "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/cri-containerd-" ID ".scope\n", ID, UID },
	{ "kubernetes CRI-O, burstable",
	  "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-" ID ".scope\n", ID, UID },
	{ "kubernetes, guaranteed (no QOS slice)",
	  "0::/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID ".scope\n", ID, UID },
	{ "kubernetes dockershim",
	  "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/docker-" ID ".scope\n", ID, UID },
	/* cgroup v2, cgroupfs driver */
	{ "docker, cgroupfs", "0::/docker/" ID "\n", ID, "" },
	{ "docker in docker: the inner one", "0::/docker/" ID2 "/docker/" ID "\n", ID, "" },
	{ "kubernetes containerd, cgroupfs",
	  "0::/kubepods/besteffort/pod" UID "/" ID "\n", ID, UID },
	{ "kubernetes CRI-O, cgroupfs", "0::/kubepods/burstable/pod" UID "/crio-" ID "\n", ID, UID },
	{ "kubernetes guaranteed, cgroupfs", "0::/kubepods/pod" UID "/" ID "\n", ID, UID },
	{ "podman, cgroupfs", "0::/libpod_parent/libpod-" ID "\n", ID, "" },
	{ "a namespaced view (agent in its own cgroup namespace)",
	  "0::/../../system.slice/docker-" ID ".scope\n", ID, "" },
	/* cgroup v1 fallback */
	{ "cgroup v1, docker",
	  "12:memory:/docker/" ID "\n11:cpu,cpuacct:/docker/" ID "\n1:name=systemd:/docker/" ID
	  "\n0::/\n", ID, "" },
	{ "cgroup v1, kubernetes systemd",
	  "10:pids:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-" ID ".scope\n", ID, UID },
	{ "hybrid: the v2 line is / and v1 names the container",
	  "0::/\n4:devices:/system.slice/docker-" ID ".scope\n", ID, "" },
	/* nothing */
	{ "a host service", "0::/system.slice/nginx.service\n", NULL, NULL },
	{ "a login session", "0::/user.slice/user-1000.slice/session-3.scope\n", NULL, NULL },
	{ "the root cgroup", "0::/\n", NULL, NULL },
	{ "CRI-O's monitor (conmon) is not the container",
	  "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-conmon-" ID ".scope\n", NULL, NULL },
	{ "podman's monitor", "0::/machine.slice/libpod-conmon-" ID ".scope\n", NULL, NULL },
	{ "an ID one digit short", "0::/system.slice/docker-" "3f9a6b0c1d2e4f5061728394a5b6c7d8e9f00112233445566778899aabbccd" ".scope\n", NULL, NULL },
	{ "upper-case hex is no runtime's", "0::/docker/3F9A6B0C1D2E4F5061728394A5B6C7D8E9F00112233445566778899AABBCCDDE\n", NULL, NULL },
	{ "a bare ID under an unknown parent", "0::/mystuff/" ID "\n", NULL, NULL },
	{ "a bare ID under pod<UID> outside kubepods", "0::/other/pod" UID "/" ID "\n", NULL, NULL },
	{ "an unknown runtime prefix", "0::/system.slice/rkt-" ID ".scope\n", NULL, NULL },
	{ "empty", "", NULL, NULL },
};

static void names(void)
{
	char dir[] = "/tmp/lbp-k8slogs.XXXXXX", path[512];
	struct container_ref c;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	chmod(dir, 0755);
	snprintf(path, sizeof(path), "%s/web-7d9f_shop_nginx-" ID2 ".log", dir);
	f = fopen(path, "w");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/api-5c_prod_lua-app-" ID ".log", dir);
	f = fopen(path, "w");
	if (f)
		fclose(f);
	memset(&c, 0, sizeof(c));
	strcpy(c.id, ID);
	CHECK("kubelet log link: found", !container_names_k8s(dir, &c));
	CHECK_STR("kubelet log link: the ID stays", c.id, ID);
	CHECK_STR("kubelet log link: pod", c.pod_name, "api-5c");
	CHECK_STR("kubelet log link: namespace", c.pod_namespace, "prod");
	CHECK_STR("kubelet log link: container (a '-' in it)", c.name, "lua-app");
	memset(&c, 0, sizeof(c));
	memset(c.id, 'f', CONTAINER_ID_LEN);
	CHECK("another ID: not found", container_names_k8s(dir, &c) && !c.name[0]);
	chmod(dir, 0777);
	memset(&c, 0, sizeof(c));
	strcpy(c.id, ID);
	CHECK("a directory others may write: not read", container_names_k8s(dir, &c) && !c.name[0]);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		return;
}

static void put_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, mode);
}

/* Docker's config.v2.json and Podman's containers.json, in directories
 * made like the runtimes make them (root's, 0700). */
static void runtime_files(void)
{
	char dir[] = "/tmp/lbp-runtime.XXXXXX", path[512];
	struct container_ref c;

	if (!mkdtemp(dir))
		return;
	memset(&c, 0, sizeof(c));
	strcpy(c.id, ID);
	snprintf(path, sizeof(path), "%s/%s", dir, ID);
	mkdir(path, 0710);
	snprintf(path, sizeof(path), "%s/%s/config.v2.json", dir, ID);
	put_file(path, "{\"Config\":{\"Labels\":{\"Name\":\"/no\"}},\"Name\":\"/shop-web\",\"ID\":\"" ID "\"}",
		 0600);
	CHECK("docker: config.v2.json's Name", !container_names_docker(dir, &c));
	CHECK_STR("docker: without its '/'", c.name, "shop-web");
	chmod(path, 0666);
	memset(c.name, 0, sizeof(c.name));
	CHECK("docker: a file others may write is not read",
	      container_names_docker(dir, &c) && !c.name[0]);
	snprintf(path, sizeof(path), "%s/containers.json", dir);
	put_file(path, "[{\"id\":\"" ID2 "\",\"names\":[\"other\"]},"
		 "{\"id\":\"" ID "\",\"names\":[\"lua-worker\",\"alias\"]}]", 0600);
	CHECK("podman: containers.json, the element of this ID", !container_names_podman(dir, &c));
	CHECK_STR("podman: its first name", c.name, "lua-worker");
	memset(c.id, 'f', CONTAINER_ID_LEN);
	memset(c.name, 0, sizeof(c.name));
	CHECK("podman: an ID it does not list", container_names_podman(dir, &c) && !c.name[0]);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		return;
}

/* A fake /proc: PROC/1/mountinfo names the hierarchies, PROC/1/root is
 * the root they are mounted in. */
static void trust(void)
{
	char dir[] = "/tmp/lbp-unit-cgtrust.XXXXXX", path[512], cmd[700];
	const char *cg = "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
			 ".slice/cri-containerd-" ID ".scope";
	struct cgroup_where w = { "", "" };
	const char *why = NULL;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/1 %s/fs/cg2/%s %s/fs/cgv1/pids/docker/%s && "
		 "chmod -R 755 %s/fs && ln -s %s/fs %s/1/root", dir, dir, cg, dir, ID, dir, dir, dir);
	if (system(cmd))
		return;
	snprintf(path, sizeof(path), "%s/1/mountinfo", dir);
	f = fopen(path, "w");
	fputs("22 1 0:21 / / rw - ext4 /dev/root rw\n"
	      "30 22 0:26 /sub /cg2 rw - cgroup2 cgroup2 rw\n"		/* not the whole tree */
	      "31 22 0:27 / /cg2 rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
	      "32 22 0:28 / /cgv1/pids rw - cgroup cgroup rw,pids\n", f);
	fclose(f);
	snprintf(w.path, sizeof(w.path), "/%s", cg);
	CHECK("trust: a kubelet's cgroup, all root's 0755, is believed",
	      cgroup_root_made(dir, &w, &why));
	snprintf(cmd, sizeof(cmd), "chown 65534 %s/fs/cg2/kubepods.slice/kubepods-besteffort.slice", dir);
	CHECK("trust: a user's directory on the way is not", !system(cmd) &&
	      !cgroup_root_made(dir, &w, &why) && strstr(why, "not root's"));
	snprintf(cmd, sizeof(cmd), "chown 0 %s/fs/cg2/kubepods.slice/kubepods-besteffort.slice && "
		 "chmod 775 %s/fs/cg2/kubepods.slice", dir, dir);
	CHECK("trust: nor one its group may write", !system(cmd) && !cgroup_root_made(dir, &w, &why));
	snprintf(cmd, sizeof(cmd), "chmod 755 %s/fs/cg2/kubepods.slice && "
		 "chown 65534 %s/fs/cg2/%s", dir, dir, cg);
	CHECK("trust: nor the container's own element a user made", !system(cmd) &&
	      !cgroup_root_made(dir, &w, &why));
	snprintf(w.path, sizeof(w.path), "/../../%s", cg);
	CHECK("trust: a path outside our cgroup namespace cannot be checked",
	      !cgroup_root_made(dir, &w, &why) && strstr(why, "namespace"));
	snprintf(w.path, sizeof(w.path), "/docker/%s", ID);
	snprintf(w.controllers, sizeof(w.controllers), "pids");
	CHECK("trust: cgroup v1, found by its controller", cgroup_root_made(dir, &w, &why));
	snprintf(w.controllers, sizeof(w.controllers), "memory");
	CHECK("trust: a hierarchy that is not mounted", !cgroup_root_made(dir, &w, &why) &&
	      strstr(why, "not mounted"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct container_ref c;
		int rc = container_from_cgroup(cases[i].cgroup, &c);
		char name[200];

		snprintf(name, sizeof(name), "%s: %s", cases[i].what,
			 cases[i].id ? "container found" : "no container");
		CHECK(name, cases[i].id ? rc == 0 : rc == -1 && !c.id[0] && !c.pod_uid[0]);
		if (!cases[i].id)
			continue;
		snprintf(name, sizeof(name), "%s: the ID", cases[i].what);
		CHECK_STR(name, c.id, cases[i].id);
		snprintf(name, sizeof(name), "%s: the pod UID", cases[i].what);
		CHECK_STR(name, c.pod_uid, cases[i].pod);
	}
	if (geteuid()) {
		CHECK("names: not root, the trust checks refuse our files (skipped)", 1);
		UNIT_EXIT();
	}
	names();
	runtime_files();
	trust();
	UNIT_EXIT();
}
