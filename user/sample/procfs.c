// SPDX-License-Identifier: MIT
/* What /proc says about a process: its state, name, mapped files,
 * children and program.  Plain reads, nothing cached. */
#define _GNU_SOURCE
#include "sample/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/procmaps.h"

#define PF_KTHREAD	0x00200000u	/* /proc/PID/stat flags: a kernel thread */

int proc_read_stat_line(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/* State letter and flags from /proc/PID/stat; -1 when gone. */
int proc_read_stat(pid_t pid, char *state, unsigned *flags)
{
	char buf[1024], *p;

	if (proc_read_stat_line(pid, buf, sizeof(buf)))
		return -1;
	/* comm may contain spaces and parentheses: parse after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", state, flags) != 2)
		return -1;
	return 0;
}

static void read_comm_file(const char *path, char *comm, size_t len)
{
	FILE *f;

	snprintf(comm, len, "?");
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

void proc_read_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	read_comm_file(path, comm, len);
}

void proc_read_thread_comm(pid_t pid, pid_t tid, char *comm, size_t len)
{
	char path[80];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	read_comm_file(path, comm, len);
}

/* Whether any LuaJIT file is mapped: then a missing VM is worth waiting for. */
bool proc_maps_luajit(pid_t pid)
{
	struct proc_maps maps;
	bool found = false;

	if (procmaps_read(pid, &maps))
		return false;
	for (int i = 0; i < maps.n && !found; i++)
		found = strstr(maps.e[i].path, "luajit") != NULL;
	procmaps_free(&maps);
	return found;
}

/* The children of pid (as /proc/PID/task/TID/children lists them) into
 * out; returns how many. */
int proc_children(pid_t pid, pid_t *out, int max)
{
	char path[300];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		FILE *f;
		int child;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)pid, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (n < max && fscanf(f, "%d", &child) == 1)
			out[n++] = child;
		fclose(f);
	}
	closedir(d);
	return n;
}

bool proc_same_program(pid_t a, pid_t b)
{
	char pa[64], pb[64], ea[PATH_MAX], eb[PATH_MAX];
	ssize_t na, nb;

	snprintf(pa, sizeof(pa), "/proc/%d/exe", (int)a);
	snprintf(pb, sizeof(pb), "/proc/%d/exe", (int)b);
	na = readlink(pa, ea, sizeof(ea));
	nb = readlink(pb, eb, sizeof(eb));
	return na > 0 && na == nb && !memcmp(ea, eb, (size_t)na);
}

int proc_descendants(pid_t root, pid_t *out, int max)
{
	int n = proc_children(root, out, max);

	/* Breadth first: out doubles as the queue. */
	for (int i = 0; i < n && n < max; i++)
		n += proc_children(out[i], out + n, max - n);
	return n;
}

/* The field after the ")" that ends the comm in /proc/PID/stat (a comm may
 * hold ") "). */
pid_t proc_parent(pid_t pid)
{
	char path[64], buf[512], *close;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	close = strrchr(buf, ')');
	if (!close || sscanf(close + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

pid_t proc_program_root(pid_t pid)
{
	pid_t cur = pid;

	for (int depth = 0; depth < 64; depth++) {
		pid_t parent = proc_parent(cur);

		if (parent <= 1 || !proc_same_program(parent, cur))
			break;
		cur = parent;
	}
	return cur;
}

/* Why the kernel refused /proc/PID/maps.  Holding CAP_SYS_PTRACE (main
 * checks it before anything starts) passes the capability check, so a
 * refusal then comes from a security module (Landlock, Yama, a BPF LSM)
 * guarding the process, not from a missing capability. */
const char *proc_maps_denied_reason(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) ||
	    !(data[CAP_SYS_PTRACE / 32].effective & (1u << (CAP_SYS_PTRACE % 32))))
		return "permission denied (needs CAP_SYS_PTRACE)";
	return "permission denied although luabpfprof holds CAP_SYS_PTRACE: a security "
	       "module (Landlock, Yama, a BPF LSM) protects this process";
}

int proc_check_user_process(pid_t pid, char *err, size_t errlen)
{
	unsigned flags = 0;
	char state = 0;

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH) || proc_read_stat(pid, &state, &flags)) {
		snprintf(err, errlen, "PID %d: no such process", (int)pid);
		return -1;
	}
	if (flags & PF_KTHREAD) {
		snprintf(err, errlen, "PID %d: is a kernel thread, not a LuaJIT process", (int)pid);
		return -1;
	}
	if (state == 'Z' || state == 'X') {
		snprintf(err, errlen, "PID %d: is a zombie (it has exited)", (int)pid);
		return -1;
	}
	return 0;
}

void proc_read_cwd(pid_t pid, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}
