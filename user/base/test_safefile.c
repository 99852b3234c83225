// SPDX-License-Identifier: MIT
/* The safe writer: directory checks, whole files, no temporaries left. */
#define _GNU_SOURCE
#include "base/safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/unit.h"

static char root[] = "/tmp/lbp-safefile.XXXXXX";
static char path[4096];

static const char *at(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", root, name);
	return path;
}

/* Entries of dir other than . and .., as "a,b,"; "" if none. */
static const char *entries(const char *dir)
{
	static char buf[4096];
	struct dirent *de;
	DIR *d = opendir(dir);

	buf[0] = '\0';
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			strncat(buf, de->d_name, sizeof(buf) - strlen(buf) - 2);
			strcat(buf, ",");
		}
	if (d)
		closedir(d);
	return buf;
}

static void test_dirs(void)
{
	char err[256];
	int fd;

	fd = safe_dir_open(at("new"), "--out-dir", 0700, err, sizeof(err));
	CHECK("a missing directory is created and accepted", fd >= 0);
	if (fd >= 0)
		close(fd);
	chmod(at("new"), 0777);
	fd = safe_dir_open(at("new"), "--out-dir", 0700, err, sizeof(err));
	CHECK("a world-writable directory is refused", fd < 0 && strstr(err, "writable by group or others"));
	chmod(at("new"), 0720);
	fd = safe_dir_open(at("new"), "--out-dir", 0, err, sizeof(err));
	CHECK("a group-writable directory is refused", fd < 0);
	chmod(at("new"), 0755);
	symlink("new", at("link"));
	fd = safe_dir_open(at("link"), "--spool-dir", 0, err, sizeof(err));
	CHECK("a symlink to a good directory is refused", fd < 0 && strstr(err, "symbolic link"));
	fd = safe_dir_open(at("link/"), "--spool-dir", 0, err, sizeof(err));
	CHECK("... also with a trailing slash", fd < 0);
	if (chown(at("new"), 65534, 65534) == 0) {
		fd = safe_dir_open(at("new"), "--spool-dir", 0, err, sizeof(err));
		CHECK("another user's directory is refused", fd < 0 && strstr(err, "owned by uid 65534"));
	}
}

static void test_files(int dfd)
{
	struct stat st;
	struct safe_file *f;
	char err[256], buf[16] = "";
	int fd;

	CHECK("write_file creates", !safe_write_file(dfd, "a", "one", 3, 0600, false));
	CHECK("with its mode", !stat(at("f/a"), &st) && (st.st_mode & 07777) == 0600);
	errno = 0;
	CHECK("without replace an existing name is kept",
	      safe_write_file(dfd, "a", "two", 3, 0600, false) && errno == EEXIST);
	fd = open(at("f/a"), O_RDONLY);
	CHECK("... and its content unchanged", read(fd, buf, sizeof(buf)) == 3 && !strcmp(buf, "one"));
	close(fd);
	CHECK("with replace it is replaced", !safe_write_file(dfd, "a", "3", 1, 0640, true));
	CHECK("... mode as asked", !stat(at("f/a"), &st) && (st.st_mode & 07777) == 0640);
	symlink("/etc/passwd-not-here", at("f/b"));
	CHECK("a symlink at the name is replaced, not followed",
	      !safe_write_file(dfd, "b", "x", 1, 0600, true) && !lstat(at("f/b"), &st) &&
	      S_ISREG(st.st_mode) && access("/etc/passwd-not-here", F_OK));
	CHECK("no temporary left after commits", strlen(entries(at("f"))) == 4 &&
	      !strstr(entries(at("f")), ".luabpfprof."));
	f = safe_file_create(dfd, "c", 0600, err, sizeof(err));
	CHECK("an open file has no name yet", f && !strstr(entries(at("f")), "c,"));
	safe_file_abort(f);
	CHECK("abort leaves nothing", !strstr(entries(at("f")), "c,") &&
	      !strstr(entries(at("f")), ".luabpfprof."));
}

static void test_clean(int dfd)
{
	char own[128];
	int fd;

	fd = openat(dfd, ".luabpfprof.999999999-5.1", O_CREAT | O_WRONLY, 0600);
	close(fd);
	fd = openat(dfd, ".luabpfprof.1-1.1", O_CREAT | O_WRONLY, 0600);	/* init, wrong start */
	close(fd);
	snprintf(own, sizeof(own), ".luabpfprof.%d-0.1", (int)getpid());
	fd = openat(dfd, own, O_CREAT | O_WRONLY, 0600);
	close(fd);
	fd = openat(dfd, ".luabpfprof.keep", O_CREAT | O_WRONLY, 0600);
	close(fd);
	safe_dir_clean(dfd);
	CHECK("a dead PID's temporary is removed", !strstr(entries(at("f")), ".luabpfprof.999999999"));
	CHECK("a reused PID's (other start time) is removed", !strstr(entries(at("f")), ".luabpfprof.1-1"));
	CHECK("a name not ours is kept", strstr(entries(at("f")), ".luabpfprof.keep,") != NULL);
}

static void test_append(int dfd)
{
	int fd;

	symlink("/tmp/lbp-safefile-target", at("f/log"));
	errno = 0;
	fd = safe_open_append(dfd, "log", 0640);
	CHECK("append refuses a symlink", fd < 0 && errno == ELOOP &&
	      access("/tmp/lbp-safefile-target", F_OK));
	mkfifo(at("f/fifo"), 0600);
	errno = 0;
	fd = safe_open_append(dfd, "fifo", 0640);
	CHECK("append refuses a FIFO without blocking", fd < 0 && errno == EINVAL);
	fd = safe_open_append(dfd, "real.log", 0640);
	CHECK("append creates a regular file", fd >= 0);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	char err[256];
	int dfd;

	if (!mkdtemp(root))
		return 1;
	test_dirs();
	dfd = safe_dir_open(at("f"), "dir", 0700, err, sizeof(err));
	CHECK("a private directory opens", dfd >= 0);
	if (dfd >= 0) {
		test_files(dfd);
		test_clean(dfd);
		test_append(dfd);
		close(dfd);
	}
	if (fork() == 0)
		execlp("rm", "rm", "-rf", root, (char *)NULL);
	UNIT_EXIT();
}
