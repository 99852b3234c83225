// SPDX-License-Identifier: MIT
/* Labels from a program of the user's (label_hook.h). */
#include "container/label_hook.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/hook.h"

#define KEY_MAX		63
#define VALUE_MAX	127
#define OUTPUT_MAX	4096

/* Set by luabpfprof itself, per sample or per process. */
static const char *const reserved[] = {
	"pid", "tid", "comm", "service_name", "container_id", "pod_uid", "vmstate", "zone",
	"trace", "thread", "state", "jit_abort",
};

static bool key_ok(const char *k, size_t n)
{
	if (!n || n > KEY_MAX || (k[0] >= '0' && k[0] <= '9') || (n >= 2 && !strncmp(k, "__", 2)))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
		      (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return false;
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strlen(reserved[i]) == n && !strncmp(reserved[i], k, n))
			return false;
	return true;
}

/* The value as every backend takes it; false when empty or too long. */
static bool clean_value(const char *v, size_t n, char *out, size_t outlen)
{
	if (!n || n > VALUE_MAX || n >= outlen)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		out[i] = c > ' ' && c < 0x7f && !strchr("{},=\"\\", c) ? (char)c : '_';
	}
	out[n] = '\0';
	return true;
}

static bool has_key(const char *labels, const char *k, size_t n)
{
	for (const char *l = labels; *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, k, n) && l[n] == '=')
			return true;
	return false;
}

/* A name field: the whole value or, when it does not fit, nothing. */
static bool set_name(char *field, size_t size, const char *value)
{
	size_t n = strlen(value);

	if (n >= size)
		return false;
	memcpy(field, value, n + 1);
	return true;
}

/* One "key=value" line; false when it breaks the rules. */
static bool apply(const char *line, size_t len, struct container_ref *c, int *nlabels)
{
	const char *eq = memchr(line, '=', len);
	char value[VALUE_MAX + 1];
	size_t kn, used;

	if (!eq || !key_ok(line, kn = (size_t)(eq - line)) ||
	    !clean_value(eq + 1, len - kn - 1, value, sizeof(value)))
		return false;
#define NAMED(lit, field) \
	if (kn == sizeof(lit) - 1 && !strncmp(line, lit, kn)) { \
		return set_name(c->field, sizeof(c->field), value); \
	}
	NAMED("container", name)
	NAMED("pod", pod_name)
	NAMED("namespace", pod_namespace)
#undef NAMED
	used = strlen(c->labels);
	if (*nlabels >= LABEL_HOOK_MAX || has_key(c->labels, line, kn) ||
	    used + kn + strlen(value) + 3 > sizeof(c->labels))
		return false;
	snprintf(c->labels + used, sizeof(c->labels) - used, "%.*s=%s\n", (int)kn, line, value);
	++*nlabels;
	return true;
}

int label_hook_parse(const char *text, struct container_ref *c)
{
	int skipped = 0, nlabels = 0;

	c->labels[0] = '\0';
	for (const char *l = text; *l; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len && l[len - 1] == '\r')
			len--;
		if (len && l[0] != '#' && !apply(l, len, c, &nlabels))
			skipped++;
		l += nl ? (size_t)(nl - l) + 1 : len;
	}
	return skipped;
}

int label_hook_run(const char *program, pid_t pid, struct container_ref *c, char *err,
		   size_t errlen)
{
	char out[OUTPUT_MAX + 1], pidbuf[16], id[sizeof(c->id)];
	char *argv[] = { (char *)program, pidbuf, id, NULL };

	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
	snprintf(id, sizeof(id), "%s", c->id);
	/* checked again each time: the file or a directory may have changed */
	if (hook_check(program, err, errlen) ||
	    hook_run(program, argv, LABEL_HOOK_TIMEOUT_MS, out, sizeof(out), err, errlen))
		return -1;
	return label_hook_parse(out, c);
}
