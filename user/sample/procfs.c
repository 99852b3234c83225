/* What /proc says about a process: its state, name, mapped files,
 * children and program.  Plain reads, nothing cached. */
#define _GNU_SOURCE
#include "sample/procfs.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "target/procmaps.h"

/* State letter and flags from /proc/PID/stat; -1 when gone. */
int proc_read_stat(pid_t pid, char *state, unsigned *flags)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may contain spaces and parentheses: parse after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", state, flags) != 2)
		return -1;
	return 0;
}

void proc_read_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(comm, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
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
