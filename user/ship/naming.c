// SPDX-License-Identifier: MIT
/* One process's names in continuous mode (see naming.h). */
#include "ship/naming.h"

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "report/service_name.h"

#define SHORT_ID	12

/* A label value every backend takes (push_label_check's rules): bytes
 * outside printable ASCII and {},=" and backslash become '_'.  Names come
 * from the runtime's files, which a container's owner may choose. */
static void clean_value(const char *in, char *out, size_t len)
{
	size_t n = 0;

	for (; *in && n + 1 < len; in++) {
		unsigned char c = (unsigned char)*in;

		out[n++] = c > ' ' && c < 0x7f && !strchr("{},=\"\\", c) ? (char)c : '_';
	}
	out[n] = '\0';
}

static void add_label(struct naming *n, const char *name, const char *value)
{
	char *slot;

	if (!value || !*value || n->nvalues == NAMING_OWN_LABELS)
		return;
	slot = n->values[n->nvalues++];
	clean_value(value, slot, NAMING_VALUE_MAX);
	n->labels[n->nlabels].name = name;
	n->labels[n->nlabels++].value = slot;
}

/* --label-from's labels, after the container's. */
static void hook_labels(struct naming *n, const struct proc_container *c)
{
	char value[NAMING_VALUE_MAX];

	for (const char *at = c->labels; n->nkeys < NAMING_HOOK_LABELS &&
	     proc_label_next(&at, n->keys[n->nkeys], sizeof(n->keys[0]), value, sizeof(value)); )
		add_label(n, n->keys[n->nkeys++], value);
}

/* The service name, and in base the same without the suffix. */
static void service_of(struct naming *n, const struct naming_in *in, char *base, size_t len)
{
	struct strbuf s = STRBUF_INIT;
	const char *kv[NAMING_MAX_BASE];
	struct strbuf pairs = STRBUF_INIT;
	struct service_vars v = {
		.comm = in->comm, .pid = in->pid, .ctr = in->ctr, .labels = kv,
		.nlabels = in->nlabels < NAMING_MAX_BASE ? in->nlabels : NAMING_MAX_BASE,
	};
	size_t at[NAMING_MAX_BASE];

	/* service_expand takes "k=v" strings. */
	for (int i = 0; i < v.nlabels; i++) {
		at[i] = pairs.len;
		sb_printf(&pairs, "%s=%s", in->labels[i].name, in->labels[i].value);
		sb_putc(&pairs, '\0');
	}
	for (int i = 0; i < v.nlabels; i++)
		kv[i] = pairs.buf + at[i];
	service_expand(&s, in->service ? in->service : "{comm}", &v);
	push_service_name(sb_str(&s), base, len);
	sb_puts(&s, in->suffix ? in->suffix : "");
	push_service_name(sb_str(&s), n->service, sizeof(n->service));
	sb_free(&s);
	sb_free(&pairs);
}

void naming_fill(struct naming *n, const struct naming_in *in)
{
	const struct proc_container *c = in->ctr;
	char pid[16], short_id[SHORT_ID + 2] = "", base[sizeof(n->service)];

	memset(n, 0, sizeof(*n));
	service_of(n, in, base, sizeof(base));
	memcpy(n->labels, in->labels, (size_t)in->nlabels * sizeof(*n->labels));
	n->nlabels = in->nlabels;
	if (in->pid) {
		snprintf(pid, sizeof(pid), "%u", in->pid);
		add_label(n, "pid", pid);
	}
	if (c) {
		add_label(n, "container_id", c->id);
		add_label(n, "container", c->name);
		add_label(n, "pod", c->pod_name);
		add_label(n, "pod_uid", c->pod_uid);
		add_label(n, "namespace", c->pod_namespace);
		hook_labels(n, c);
		if (c->id)
			snprintf(short_id, sizeof(short_id), "-%.*s", SHORT_ID, c->id);
	}
	if (in->pid)
		snprintf(n->stem, sizeof(n->stem), "%s-%u%s%s", base, in->pid, short_id, in->mark);
	else
		snprintf(n->stem, sizeof(n->stem), "%s%s", base, in->mark);
}
