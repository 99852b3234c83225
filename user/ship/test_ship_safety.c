// SPDX-License-Identifier: MIT
/* Unit tests for what keeps the agent safe as root: request paths a spool
 * file may hold, credentials files and header values, long requests in
 * the disk spool, and two agents sharing one spool directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/unit.h"
#include "ship/push.h"
#include "ship/spool.h"

#define DEST "ingest http://a.example tenant=a"

static char tmpdir[] = "/tmp/lbp-unit-ship.XXXXXX";

static const char *at(const char *name)
{
	static char path[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmpdir, name);
	return path[k];
}

static void put(const char *name, const char *content)
{
	FILE *f = fopen(at(name), "w");

	fputs(content, f);
	fclose(f);
}

static void test_paths(void)
{
	CHECK("path: ingest with an escaped query", push_path_ok("/ingest?name=a.cpu%7Bx%3D1%7D&from=1"));
	CHECK("path: Push route", push_path_ok("/push.v1.PusherService/Push"));
	CHECK("path: Parca route", push_path_ok("/profiles/writeraw"));
	CHECK("path: another host refused", !push_path_ok("@127.0.0.1:5051/steal?x="));
	CHECK("path: a relative path refused", !push_path_ok("ingest?x=1"));
	CHECK("path: .. refused", !push_path_ok("/ingest?x=/../../admin"));
	CHECK("path: CR LF refused", !push_path_ok("/ingest?x=1\r\nX: y"));
	CHECK("path: unknown route refused", !push_path_ok("/admin/delete"));
	CHECK("path: Push route with a suffix refused", !push_path_ok("/push.v1.PusherService/Push/x"));
}

static void test_secrets(void)
{
	char buf[64], err[256], big[100];

	mkfifo(at("fifo"), 0600);
	CHECK("secret: a FIFO is refused at once", push_read_secret(at("fifo"), buf, sizeof(buf), err, sizeof(err)) &&
	      strstr(err, "not a regular file"));
	mkdir(at("dir"), 0700);
	CHECK("secret: a directory is not a regular file",
	      push_read_secret(at("dir"), buf, sizeof(buf), err, sizeof(err)) &&
	      strstr(err, "a directory, not a regular file"));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put("big", big);
	CHECK("secret: too long is refused, not cut",
	      push_read_secret(at("big"), buf, sizeof(buf), err, sizeof(err)) && strstr(err, "longer than 63"));
	big[63] = '\0';
	put("fits", big);
	CHECK("secret: 63 bytes fit in 64", !push_read_secret(at("fits"), buf, sizeof(buf), err, sizeof(err)) &&
	      strlen(buf) == 63);
	put("ctl", "tok\x01en\n");
	CHECK("secret: control characters refused",
	      push_read_secret(at("ctl"), buf, sizeof(buf), err, sizeof(err)) && strstr(err, "control"));
	put("crlf", "token\r\n");
	CHECK("secret: a CRLF line end is fine", !push_read_secret(at("crlf"), buf, sizeof(buf), err, sizeof(err)) &&
	      !strcmp(buf, "token"));
}

static void test_client_opts(void)
{
	struct push_client_opts o = { .url = "http://user:s3cret@127.0.0.1:1/" };
	struct push_client *c;
	char err[300];

	c = push_client_new(&o, err, sizeof(err));
	CHECK("url: user:password@ refused", !c && strstr(err, "--basic-auth-file"));
	CHECK("url: the password is not in the message", !strstr(err, "s3cret"));
	o.url = "http://127.0.0.1:1/a@b";
	c = push_client_new(&o, err, sizeof(err));
	CHECK("url: an @ in the path is fine", c != NULL);
	push_client_free(c);
	o.tenant = "t\r\nX-Injected: yes";
	c = push_client_new(&o, err, sizeof(err));
	CHECK("tenant: CR LF refused", !c && strstr(err, "--tenant"));
	o.tenant = "team-a";
	o.bearer = "abc\ndef";
	c = push_client_new(&o, err, sizeof(err));
	CHECK("bearer: a newline refused", !c && strstr(err, "control"));
}

static struct push_req long_req(void)
{
	struct push_req r = { NULL, strdup("application/octet-stream"), strdup("gz"), 2 };
	size_t n = 32 * 1100 * 3 + 100;	/* 32 labels of 1100 bytes, %-escaped */

	r.path = malloc(n + 16);
	strcpy(r.path, "/ingest?name=");
	memset(r.path + 13, 'a', n);
	r.path[13 + n] = '\0';
	return r;
}

static int count(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (strlen(de->d_name) > strlen(suffix) &&
		    !strcmp(de->d_name + strlen(de->d_name) - strlen(suffix), suffix))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void test_spool(void)
{
	struct push_req r = long_req(), bad = long_req(), got;
	struct spool *a, *b;
	struct spool_stats st;
	char err[300];
	uint64_t id;

	a = spool_open(at("spool"), DEST, 1 << 22, err, sizeof(err));
	CHECK("spool: opens", a != NULL);
	if (!a)
		return;
	CHECK("spool: a 100 KiB request line is kept", spool_add(a, &r) == 0);
	CHECK("spool: and read back whole", !spool_peek(a, &got, &id) && !strcmp(got.path, r.path));
	push_req_free(&got);
	bad.path[0] = '@';
	CHECK("spool: an unsafe path is never stored", spool_add(a, &bad) == SPOOL_TOO_LARGE);

	b = spool_open(at("spool"), DEST, 1 << 22, err, sizeof(err));
	spool_get_stats(b, &st);
	CHECK("spool: a second agent on the directory leaves a live agent's files alone", st.queued == 0);
	spool_add(b, &r);
	CHECK("spool: both agents' files exist side by side", count(at("spool"), ".req") == 2);
	spool_close(a);
	spool_close(b);
	b = spool_open(at("spool"), DEST, 1 << 22, err, sizeof(err));
	spool_get_stats(b, &st);
	CHECK("spool: a later agent adopts what both left", st.queued == 2);
	a = spool_open(at("spool"), DEST, 1 << 22, err, sizeof(err));
	spool_get_stats(a, &st);
	CHECK("spool: ... and no one else takes them while it runs", st.queued == 0);
	spool_close(a);
	spool_close(b);
	/* A write that fails (a full disk; here the directory is gone) is told
	 * apart from a full spool. */
	a = spool_open(at("spool2"), DEST, 1 << 22, err, sizeof(err));
	if (a) {
		DIR *d = opendir(at("spool2"));
		struct dirent *de;

		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.' || (de->d_name[1] && de->d_name[1] != '.'))
				unlinkat(dirfd(d), de->d_name, 0);
		if (d)
			closedir(d);
		rmdir(at("spool2"));
		CHECK("spool: a failed write is SPOOL_WRITE_FAILED, not a full spool",
		      spool_add(a, &r) == SPOOL_WRITE_FAILED);
		spool_close(a);
	}
	chmod(at("spool"), 0777);
	a = spool_open(at("spool"), DEST, 1 << 22, err, sizeof(err));
	CHECK("spool: a world-writable directory is refused", !a && strstr(err, "--spool-dir") &&
	      strstr(err, "writable by group or others"));
	push_req_free(&r);
	push_req_free(&bad);
}

/* Requests spooled for one backend and tenant are never sent to another:
 * an agent of another destination leaves them; the next agent of theirs
 * sends them. */
static void test_spool_dest(void)
{
	const char *to_b = "ingest http://b.example tenant=b", *to_a2 = DEST "2";
	struct push_req r = long_req(), got;
	struct spool *a, *b;
	struct spool_stats st;
	char err[300];
	uint64_t id;

	mkdir(at("spool_dest"), 0700);
	a = spool_open(at("spool_dest"), DEST, 1 << 22, err, sizeof(err));
	CHECK("spool dest: opens", a != NULL);
	if (!a)
		return;
	spool_add(a, &r);
	spool_add(a, &r);
	spool_close(a);
	b = spool_open(at("spool_dest"), to_b, 1 << 22, err, sizeof(err));
	spool_get_stats(b, &st);
	CHECK("spool dest: another backend's agent adopts none of A's requests", st.queued == 0);
	CHECK("spool dest: ... and has nothing to send", spool_peek(b, &got, &id) == -1);
	spool_add(b, &r);
	spool_close(b);
	/* The tenant is part of it too, and a prefix of ours is not ours. */
	b = spool_open(at("spool_dest"), to_a2, 1 << 22, err, sizeof(err));
	spool_get_stats(b, &st);
	CHECK("spool dest: another tenant (whose name extends A's) adopts none", st.queued == 0);
	spool_close(b);
	CHECK("spool dest: the other destinations' files stay", count(at("spool_dest"), ".req") == 3);
	a = spool_open(at("spool_dest"), DEST, 1 << 22, err, sizeof(err));
	spool_get_stats(a, &st);
	CHECK("spool dest: A's next agent adopts exactly A's two", a && st.queued == 2);
	spool_close(a);
	b = spool_open(at("spool_dest"), to_b, 1 << 22, err, sizeof(err));
	spool_get_stats(b, &st);
	CHECK("spool dest: and B's its one", b && st.queued == 1);
	spool_close(b);
	b = spool_open(at("spool_dest"), "x\ny", 1 << 22, err, sizeof(err));
	CHECK("spool dest: a destination of two lines is refused", !b && strstr(err, "control"));
	push_req_free(&r);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	test_paths();
	test_secrets();
	test_client_opts();
	test_spool();
	test_spool_dest();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", tmpdir, (char *)NULL);
	UNIT_EXIT();
}
