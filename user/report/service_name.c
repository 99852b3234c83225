// SPDX-License-Identifier: MIT
/* --service templates (service_name.h). */
#include "report/service_name.h"

#include <stdio.h>
#include <string.h>

#define SHORT_ID	12	/* as `docker ps` shows an id */

static const char *const names[] = {
	"comm", "pid", "container", "container_id", "pod", "namespace", "pod_uid",
};

bool service_is_template(const char *tmpl)
{
	return tmpl && strchr(tmpl, '{');
}

static bool known(const char *name, size_t n)
{
	if (n > 6 && !strncmp(name, "label:", 6))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !strncmp(names[i], name, n))
			return true;
	return false;
}

int service_template_check(const char *tmpl, char *err, size_t errlen)
{
	for (const char *c = tmpl; (c = strchr(c, '{')); ) {
		const char *end = strchr(c, '}');

		if (!end) {
			snprintf(err, errlen, "--service %s: '{' without '}'", tmpl);
			return -1;
		}
		if (!known(c + 1, (size_t)(end - c - 1))) {
			snprintf(err, errlen, "--service %s: unknown {%.*s} (known: {comm} {pid} {container} {container_id} {pod} {namespace} {pod_uid} {label:K})",
				 tmpl, (int)(end - c - 1), c + 1);
			return -1;
		}
		c = end + 1;
	}
	return 0;
}

/* {label:K}: --label-from's for this process, else --label's; *len its
 * length (the former end at a newline). */
static const char *label_value(const struct service_vars *v, const char *key, size_t n,
			       size_t *len)
{
	const char *l = v->ctr ? v->ctr->labels : NULL;

	for (; l && *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, key, n) && l[n] == '=') {
			*len = strcspn(l + n + 1, "\n");
			return l + n + 1;
		}
	for (int i = 0; i < v->nlabels; i++)
		if (!strncmp(v->labels[i], key, n) && v->labels[i][n] == '=') {
			*len = strlen(v->labels[i] + n + 1);
			return v->labels[i] + n + 1;
		}
	return NULL;
}

static void put_var(struct strbuf *out, const char *name, size_t n, const struct service_vars *v)
{
	const struct proc_container *c = v->ctr;
	const char *s = NULL;
	size_t len;

#define IS(lit) (n == sizeof(lit) - 1 && !strncmp(name, lit, n))
	if (IS("comm"))
		s = v->comm;
	else if (IS("pid"))
		sb_printf(out, "%u", v->pid);
	else if (IS("container") && c && c->name)
		s = c->name;
	else if (IS("container") && c && c->id)
		sb_printf(out, "%.*s", SHORT_ID, c->id);
	else if (IS("container_id") && c)
		s = c->id;
	else if (IS("pod") && c)
		s = c->pod_name;
	else if (IS("namespace") && c)
		s = c->pod_namespace;
	else if (IS("pod_uid") && c)
		s = c->pod_uid;
	else if (n > 6 && !strncmp(name, "label:", 6)) {
		const char *lv = label_value(v, name + 6, n - 6, &len);

		if (lv)
			sb_printf(out, "%.*s", (int)len, lv);
	}
#undef IS
	if (s)
		sb_puts(out, s);
}

void service_expand(struct strbuf *out, const char *tmpl, const struct service_vars *v)
{
	size_t start = out->len;
	bool vars = false, filled = false;

	for (const char *c = tmpl; *c; c++) {
		const char *end = *c == '{' ? strchr(c, '}') : NULL;
		size_t before = out->len;

		if (!end) {
			sb_putc(out, *c);
			continue;
		}
		vars = true;
		put_var(out, c + 1, (size_t)(end - c - 1), v);
		filled |= out->len > before;
		c = end;
	}
	if (vars && !filled) {
		sb_truncate(out, start);
		sb_puts(out, v->comm ? v->comm : "unknown");
	}
}
