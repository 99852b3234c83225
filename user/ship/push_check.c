// SPDX-License-Identifier: MIT
/* What may go into a request: labels, credentials files, header values,
 * the --push URL, and the request paths a spool file may hold.  Root sends
 * these with its credentials, so each is checked before anything starts. */
#include "ship/push.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const reserved_labels[] = { "service_name", "pid" };

int push_label_check(const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : 0;

	if (!eq || !klen) {
		snprintf(err, errlen, "invalid --label '%s': expected KEY=VALUE", kv);
		return -1;
	}
	for (size_t i = 0; i < klen; i++) {
		unsigned char c = (unsigned char)kv[i];

		if (!(isalpha(c) || c == '_' || (i && isdigit(c)))) {
			snprintf(err, errlen, "invalid --label '%s': the name must match [A-Za-z_][A-Za-z0-9_]*",
				 kv);
			return -1;
		}
	}
	if (klen >= 2 && kv[0] == '_' && kv[1] == '_') {
		snprintf(err, errlen, "invalid --label '%s': names starting with __ are reserved", kv);
		return -1;
	}
	for (size_t i = 0; i < sizeof(reserved_labels) / sizeof(reserved_labels[0]); i++) {
		if (strlen(reserved_labels[i]) == klen && !strncmp(kv, reserved_labels[i], klen)) {
			snprintf(err, errlen, "invalid --label '%s': '%s' is set by luabpfprof", kv,
				 reserved_labels[i]);
			return -1;
		}
	}
	if (!eq[1]) {
		snprintf(err, errlen, "invalid --label '%s': empty value", kv);
		return -1;
	}
	for (const char *v = eq + 1; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if (c < 0x20 || c == 0x7f || strchr("{},=\"\\", c)) {
			snprintf(err, errlen, "invalid --label '%s': the value may not contain {},=\" or control characters",
				 kv);
			return -1;
		}
	}
	return 0;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Opens a credentials file: never another user's symlink, never blocking
 * on a FIFO.  -1 with a reason. */
static int open_secret(const char *path, char *err, size_t errlen)
{
	struct stat lst, st = { 0 };
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, fd;

	/* Root's own links are followed (Kubernetes mounts secrets so). */
	if (lstat(path, &lst) || !S_ISLNK(lst.st_mode) ||
	    (lst.st_uid != 0 && lst.st_uid != geteuid()))
		flags |= O_NOFOLLOW;
	fd = open(path, flags);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 errno == ELOOP ? "another user's symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is %s, not a regular file", path,
			 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			 "a special file");
		close(fd);
		return -1;
	}
	return fd;
}

int push_read_secret(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	int fd = open_secret(path, err, errlen);
	size_t n = 0;
	ssize_t got;

	if (fd < 0)
		return -1;
	/* One byte more than fits: a longer secret is refused, not cut. */
	while (n < len && (got = read(fd, buf + n, len - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		n += (size_t)got;
	}
	close(fd);
	if (n == len && !memchr(buf, '\n', len)) {
		memset(buf, 0, len);
		snprintf(err, errlen, "%s: the credentials are longer than %zu bytes", path, len - 1);
		return -1;
	}
	buf[n < len ? n : len - 1] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	if (!n) {
		snprintf(err, errlen, "%s: empty credentials file", path);
		return -1;
	}
	if (has_control(buf)) {
		memset(buf, 0, len);
		snprintf(err, errlen, "%s: the credentials hold control characters", path);
		return -1;
	}
	return 0;
}

bool push_path_ok(const char *path)
{
	static const char *const routes[] = {
		"/push.v1.PusherService/Push", "/profiles/writeraw", PUSH_OTLP_ROUTE,
	};

	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (!strcmp(path, routes[i]))
			return true;
	if (strncmp(path, "/ingest?", 8))
		return false;
	for (const char *p = path + 8; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-._~%&=", *p))
			return false;
	return true;
}

/* The URL's user:password@, if any: ps shows it and every delivery error
 * would log it. */
static bool url_has_userinfo(const char *url)
{
	const char *host = strstr(url, "://");
	size_t authority;

	if (!host)
		return false;
	host += 3;
	authority = strcspn(host, "/?#");
	return memchr(host, '@', authority) != NULL;
}

int push_opts_check(const struct push_client_opts *o, char *err, size_t errlen)
{
	if (url_has_userinfo(o->url)) {
		/* Not the URL itself: it holds the password. */
		snprintf(err, errlen, "invalid --push URL: credentials in the URL are visible to every user (ps) and in logs; put them in a file for --basic-auth-file or --auth-token-file");
		return -1;
	}
	if (has_control(o->url)) {
		snprintf(err, errlen, "invalid --push URL: it holds control characters");
		return -1;
	}
	if (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8)) {
		snprintf(err, errlen, "invalid --push URL '%s': expected http:// or https://", o->url);
		return -1;
	}
	if (o->tenant && (!*o->tenant || has_control(o->tenant))) {
		snprintf(err, errlen, "invalid --tenant: %s",
			 *o->tenant ? "it holds control characters (CR, LF ...)" : "empty");
		return -1;
	}
	if ((o->bearer && has_control(o->bearer)) || (o->basic && has_control(o->basic))) {
		snprintf(err, errlen, "invalid credentials: they hold control characters");
		return -1;
	}
	return 0;
}
