// SPDX-License-Identifier: MIT
/* --label-from: what a program's output gives (label_hook_parse), and
 * running one (base/hook.c): its arguments, the deadline, the output cap,
 * and the files it refuses to run. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/hook.h"
#include "base/unit.h"
#include "container/label_hook.h"

static void parse_cases(void)
{
	struct container_ref c;
	int skipped;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "from-files");
	skipped = label_hook_parse("team=shop\r\ncontainer=web-1\npod=api-7\nnamespace=prod\n"
				   "# a comment\n\njob=nightly batch\n", &c);
	CHECK("parse: nothing skipped", skipped == 0);
	CHECK_STR("parse: container names the container (over the files)", c.name, "web-1");
	CHECK_STR("parse: pod and namespace", c.pod_name, "api-7");
	CHECK_STR("parse: namespace", c.pod_namespace, "prod");
	CHECK_STR("parse: other keys are labels, values cleaned", c.labels,
		  "team=shop\njob=nightly_batch\n");

	memset(&c, 0, sizeof(c));
	skipped = label_hook_parse("pid=1\n__name__=x\n9lives=x\nbad-key=x\nnoequals\nempty=\n"
				   "service_name=x\nteam=a\nteam=b\nq={\"x\"}\n", &c);
	CHECK("parse: reserved, __, bad keys, empty values and repeats skipped", skipped == 8);
	CHECK_STR("parse: what is left", c.labels, "team=a\nq=__x__\n");

	memset(&c, 0, sizeof(c));
	skipped = label_hook_parse("a=1\nb=1\nc=1\nd=1\ne=1\nf=1\ng=1\nh=1\ni=1\n", &c);
	CHECK("parse: at most LABEL_HOOK_MAX labels", skipped == 1 && !strstr(c.labels, "i=1"));
	{
		char big[300];

		memset(big, 'v', sizeof(big));
		memcpy(big, "k=", 2);
		big[sizeof(big) - 1] = '\0';
		CHECK("parse: a value over 127 bytes is skipped", label_hook_parse(big, &c) == 1);
	}
}

/* A script in a fresh root-owned 0755 directory under /run: not in the
 * checkout, which may lie below a directory others can write (a clone
 * under /tmp, sticky or not, is refused), nor in $TMPDIR.  Only root
 * may write it; nobody, whom the program runs as, may read and run it. */
static char dir[4200];

/* Every ancestor of path, and path: a real directory, root's (or ours),
 * writable by no one else; else the first that is not, in why. */
static int trusted_dir(const char *path, char *why, size_t whylen)
{
	char p[sizeof(dir)], *slash;
	struct stat st;

	snprintf(p, sizeof(p), "%s", path);
	for (;;) {
		if (lstat(p, &st) || !S_ISDIR(st.st_mode) ||
		    (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
			snprintf(why, whylen, "%s: not a directory only root (or we) can write", p);
			return 0;
		}
		slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	if (!lstat("/", &st) && st.st_uid == 0 && !(st.st_mode & 022))
		return 1;
	snprintf(why, whylen, "/: writable by others");
	return 0;
}

static int make_dir(void)
{
	char why[4300] = "chmod 0755 failed";

	snprintf(dir, sizeof(dir), "/run/lbp-test.XXXXXX");
	if (!mkdtemp(dir)) {
		printf("FAIL: a root-only directory for the scripts: mkdtemp %s: %s\n", dir,
		       strerror(errno));
		unit_failed++;
		return 0;
	}
	if (chmod(dir, 0755) || !trusted_dir(dir, why, sizeof(why))) {
		printf("FAIL: a root-only directory for the scripts: %s\n", why);
		unit_failed++;
		rmdir(dir);
		return 0;
	}
	return 1;
}

static const char *script(const char *name, const char *body, mode_t mode)
{
	static char path[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, mode);
	return path;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void run_cases(void)
{
	struct container_ref c;
	char err[300], out[64], big[512];
	const char *p;

	if (!make_dir())
		return;
	memset(&c, 0, sizeof(c));
	snprintf(c.id, sizeof(c.id), "%064d", 7);
	p = script("ok", "echo \"pid=$1\"; echo \"team=t$1\"; echo \"cid=$2\"; echo \"n=$#\"", 0755);
	CHECK("run: labels from the program's output",
	      label_hook_run(p, 4242, &c, err, sizeof(err)) == 1 &&
	      !strcmp(c.labels, "team=t4242\ncid=0000000000000000000000000000000000000000000000000000000000000007\nn=2\n"));
	p = script("slow", "sleep 5", 0755);
	CHECK("run: past the deadline it is killed",
	      label_hook_run(p, 1, &c, err, sizeof(err)) == -1 && strstr(err, "timed out"));
	p = script("chatty", "yes team=x", 0755);
	CHECK("run: more than the cap is refused",
	      label_hook_run(p, 1, &c, err, sizeof(err)) == -1 && strstr(err, "too much output"));
	p = script("fails", "echo team=x; exit 3", 0755);
	CHECK("run: a non-zero exit gives nothing",
	      label_hook_run(p, 1, &c, err, sizeof(err)) == -1 && strstr(err, "non-zero"));
	p = script("fdleak", "ls /proc/self/fd | wc -l | sed 's/^/fds=/'", 0755);
	CHECK("run: only stdin, stdout and stderr are inherited (and ls's own)",
	      !hook_run(p, (char *[]){ (char *)p, NULL }, 2000, out, sizeof(out), err, sizeof(err)) &&
	      !strcmp(out, "fds=4\n"));
	/* Not root's privileges (issue 42): HOOK_USER, no capability, "/". */
	p = script("privs", "echo \"caps=$(sed -n 's/^CapEff:[[:space:]]*//p;s/^CapPrm:[[:space:]]*//p' "
		   "/proc/self/status | tr '\\n' ,)\"; echo \"uid=$(id -u) gid=$(id -g) "
		   "groups=$(id -G)\"; echo \"cwd=$(pwd)\"", 0755);
	CHECK("run: as nobody, no capabilities, no groups, in /",
	      !hook_run(p, (char *[]){ (char *)p, NULL }, 2000, big, sizeof(big), err, sizeof(err)) &&
	      !strcmp(big, "caps=0000000000000000,0000000000000000,\n"
			   "uid=65534 gid=65534 groups=65534\ncwd=/\n"));
	/* A program whose child keeps the pipe in a session of its own: its
	 * labels are read when it exits, and the child is killed. */
	p = script("daemon", "echo team=d; setsid sleep 30 & echo \"child=$!\"", 0755);
	{
		long long t0, took;
		int ok;

		memset(&c, 0, sizeof(c));
		t0 = mono_ms();
		ok = label_hook_run(p, 1, &c, err, sizeof(err)) == 0;
		const char *child = strstr(c.labels, "child=");
		pid_t cpid = child ? (pid_t)atoi(child + 6) : 0;

		took = mono_ms() - t0;
		printf("# setsid child: %lld ms, child %d\n", took, (int)cpid);
		CHECK("run: a setsid child holding stdout: the labels at the program's exit",
		      ok && strstr(c.labels, "team=d\n") && took < 1000);
		CHECK("run: ... and the child is gone (killed and reaped)",
		      cpid > 0 && kill(cpid, 0) == -1 && errno == ESRCH);
	}
	p = script("groupw", "echo team=x", 0775);
	CHECK("check: a file others may write is refused", hook_check(p, err, sizeof(err)) == -1);
	CHECK("check: a relative path is refused", hook_check("bin/x", err, sizeof(err)) == -1);
	p = script("noexec", "echo team=x", 0644);
	CHECK("check: a file without x is refused", hook_check(p, err, sizeof(err)) == -1);
	chmod(dir, 0777);
	p = script("indir", "echo team=x", 0755);
	CHECK("check: in a directory others may write, refused", hook_check(p, err, sizeof(err)) == -1);
	chmod(dir, 0755);
	CHECK("check: the same in a safe directory is accepted", hook_check(p, err, sizeof(err)) == 0);
	{
		char link[4300];

		snprintf(link, sizeof(link), "%s/link", dir);
		CHECK("check: a symlink is refused",
		      !symlink(p, link) && hook_check(link, err, sizeof(err)) == -1);
	}
	{
		char cmd[4300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			CHECK("clean up", 0);
	}
}

int main(void)
{
	parse_cases();
	run_cases();
	return unit_failed != 0;
}
