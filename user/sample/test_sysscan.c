// SPDX-License-Identifier: MIT
/* Unit tests for host scanning (-a) over a recorded /proc: a directory
 * tree this test builds, one folder per process with its maps.  The
 * classification (LuaJIT mapped or not, gone, ourselves), the cache of
 * classified files and the rescan that forgets gone processes are checked
 * without BPF (no VM-creation probes). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/unit.h"
#include "sample/sysscan.h"
#include "sample/targets.h"
#include "sample/test_proc.h"

#define NO_SUCH_PID	4194301		/* above any pid_max in use */

static char root[] = "/tmp/lbp-unit-proc.XXXXXX";
static int flushes;

static const char *const maps_plain =
	"00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/dbus-daemon\n"
	"00651000-00652000 rw-p 00051000 08:02 173521 /usr/bin/dbus-daemon\n"
	"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n";
static const char *const maps_luajit =
	"00400000-00480000 r-xp 00000000 08:02 900001 /usr/local/bin/luajit-2.1.0-beta3\n"
	"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n";
static const char *const maps_reused =
	"00400000-00480000 r-xp 00000000 08:02 900004 /opt/app/bin/luajit\n";
static const char *const maps_lib =
	"00400000-00480000 r-xp 00000000 08:02 900002 /usr/sbin/nginx\n"
	"7f1000000000-7f1000080000 r-xp 00000000 08:02 900003 /usr/lib/libluajit-5.1.so.2.1.0\n"
	"7f1000080000-7f1000090000 r--p 00080000 08:02 900003 /usr/lib/libluajit-5.1.so.2.1.0\n";

static void put_proc(pid_t pid, const char *maps)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, (int)pid);
	mkdir(path, 0700);
	if (!maps)
		return;
	snprintf(path, sizeof(path), "%s/%d/maps", root, (int)pid);
	f = fopen(path, "w");
	fputs(maps, f);
	fclose(f);
}

/* A /proc/PID/stat saying when the process started (field 22). */
static void put_stat(pid_t pid, unsigned long long start)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/stat", root, (int)pid);
	f = fopen(path, "w");
	fprintf(f, "%d (a (b) c) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %llu 1000 10\n",
		(int)pid, start);
	fclose(f);
}

static void drop_proc(pid_t pid)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%d/stat", root, (int)pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d/maps", root, (int)pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", root, (int)pid);
	rmdir(path);
}

static void on_flush(void *ctx)
{
	(void)ctx;
	flushes++;
}

int main(void)
{
	struct targets *ts = targets_new();
	struct sysscan_opts o = { .proc_root = root, .flush = on_flush };
	struct sysscan *ss;
	struct sysscan_counts c, before;
	pid_t zombie;
	siginfo_t exited;
	pid_t luajit = test_spawn_sleep(NULL), lib = test_spawn_sleep(NULL);
	uint64_t now;
	char path[256];

	if (!mkdtemp(root) || luajit <= 0 || lib <= 0)
		return 1;
	/* Live processes whose recorded maps name LuaJIT (they run sleep: no
	 * VM, so they wait as pending); one without; one gone; ourselves. */
	put_proc(luajit, maps_luajit);
	put_proc(lib, maps_lib);
	put_proc(NO_SUCH_PID - 1, maps_plain);
	put_proc(NO_SUCH_PID, maps_luajit);
	put_proc(NO_SUCH_PID - 2, NULL);
	put_proc(getpid(), maps_luajit);
	snprintf(path, sizeof(path), "%s/self", root);
	mkdir(path, 0700);

	ss = sysscan_new(ts, &o);
	CHECK("scan: no process profiled yet (none has a VM)", sysscan_add_all(ss) == 0);
	sysscan_counts(ss, &c);
	CHECK("scan: a LuaJIT binary and a host of libluajit wait for their VM", c.pending == 2);
	CHECK("scan: a process without LuaJIT is left alone", c.other == 1);
	CHECK("scan: gone, refused and ourselves are done", c.done == 3);
	CHECK("scan: only numeric folders are processes",
	      c.other + c.pending + c.targets + c.done == 6);
	/* luajit binary, libluajit, nginx, dbus-daemon: each classified once. */
	CHECK("scan: each mapped file classified once", c.objects == 4);
	CHECK("scan: pending ones are not targets", targets_count(ts) == 0);

	/* A second later: the process without LuaJIT went away. */
	zombie = fork();
	if (zombie == 0)
		_exit(0);
	/* A zombie only once it has exited: until then it is a live copy of
	 * us, which -a would keep waiting for a VM. */
	waitid(P_PID, (id_t)zombie, &exited, WEXITED | WNOWAIT);
	drop_proc(NO_SUCH_PID - 1);
	now = clock_ns(CLOCK_MONOTONIC) + 2000000000ull;
	sysscan_poll(ss, now);
	sysscan_counts(ss, &c);
	CHECK("rescan: a gone process is forgotten", c.other == 0 &&
	      c.other + c.pending + c.targets + c.done == 5);
	CHECK("rescan: nothing to flush without exited targets", flushes == 0);
	CHECK("rescan: files stay classified", c.objects == 4);

	/* A pid reused: the zombie's entry is done (refused), then a new
	 * process (a later start time) maps another LuaJIT file under the
	 * same pid.  It is examined again: its file gets classified. */
	put_proc(zombie, maps_luajit);
	put_stat(zombie, 100);
	sysscan_poll(ss, now + 2000000000ull);
	sysscan_counts(ss, &before);
	put_proc(zombie, maps_reused);
	sysscan_poll(ss, now + 4000000000ull);
	sysscan_counts(ss, &c);
	CHECK("pid reuse: the same process is left alone", c.objects == before.objects);
	put_stat(zombie, 200);
	sysscan_poll(ss, now + 6000000000ull);
	sysscan_counts(ss, &c);
	CHECK("pid reuse: a new process under an old pid is examined",
	      c.objects == before.objects + 1);
	drop_proc(zombie);
	waitpid(zombie, NULL, 0);

	sysscan_free(ss);
	targets_free(ts);
	kill(luajit, SIGKILL);
	kill(lib, SIGKILL);
	waitpid(luajit, NULL, 0);
	waitpid(lib, NULL, 0);
	drop_proc(luajit);
	drop_proc(lib);
	drop_proc(NO_SUCH_PID);
	drop_proc(NO_SUCH_PID - 2);
	drop_proc(getpid());
	rmdir(path);
	rmdir(root);
	UNIT_EXIT();
}
