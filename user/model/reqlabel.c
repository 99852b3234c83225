// SPDX-License-Identifier: MIT
/* nginx request labels of a sample (see reqlabel.h). */
#include "model/reqlabel.h"

#include <stdio.h>
#include <string.h>

#define SEP	'\x1f'	/* never in an escaped field: a control character */

static const struct {
	const char *name, *attr;
} fields[] = {
#define REQ_FIELD_ROW(id, name, attr) { name, attr },
	REQ_FIELDS(REQ_FIELD_ROW)
#undef REQ_FIELD_ROW
};

int reqlabel_field_parse(const char *name)
{
	for (int i = 0; i < REQ_F__N; i++)
		if (!strcmp(fields[i].name, name))
			return i;
	return -1;
}

const char *reqlabel_field_name(enum req_field f)
{
	return f < REQ_F__N ? fields[f].name : "";
}

const char *reqlabel_field_attr(enum req_field f)
{
	return f < REQ_F__N ? fields[f].attr : "";
}

const char *reqlabel_encode(const char *const in[REQ_F__N], char *out, size_t len)
{
	size_t at = 0;

	if (!len)
		return out;
	out[0] = 0;
	for (int i = 0; i < REQ_F__N && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%s", i ? "\x1f" : "",
				       in[i] ? in[i] : "");
	return out;
}

const char *reqlabel_field(const char *label, enum req_field f, char *out, size_t len)
{
	const char *s = label ? label : "", *end;
	size_t n;

	for (int i = 0; i < (int)f && s; i++) {
		s = strchr(s, SEP);
		if (s)
			s++;
	}
	if (!len)
		return out;
	if (!s) {
		out[0] = 0;
		return out;
	}
	end = strchr(s, SEP);
	n = end ? (size_t)(end - s) : strlen(s);
	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = 0;
	return out;
}

const char *reqlabel_key(const char *label, enum req_field f, char *out, size_t len)
{
	char phase[64], uri[8];

	if (!label) {
		snprintf(out, len, "%s", REQ_NONE_KEY);
		return out;
	}
	/* A request nginx made up (sample/reqlabels.c leaves its client's
	 * fields empty): named by its phase, whatever the field. */
	reqlabel_field(label, REQ_F_PHASE, phase, sizeof(phase));
	if (!*reqlabel_field(label, REQ_F_URI, uri, sizeof(uri))) {
		snprintf(out, len, "(%s)", phase);
		return out;
	}
	reqlabel_field(label, f, out, len);
	if (!*out)
		snprintf(out, len, "(none)");
	return out;
}

void profile_by(struct profile *p, enum req_field f, bool with_group)
{
	char key[REQ_KEY_MAX], both[2 * REQ_KEY_MAX];

	for (size_t i = 0; i < p->nsamples; i++) {
		struct sample *s = &p->samples[i];

		reqlabel_key(s->req, f, key, sizeof(key));
		if (with_group) {
			snprintf(both, sizeof(both), "%s  %s", key, s->group ? s->group : "(other)");
			s->group = profile_str(p, both);
		} else {
			s->group = profile_str(p, key);
		}
	}
}
