// SPDX-License-Identifier: MIT
/* Container IDs and pod UIDs from cgroup paths (see container.h). */
#include "container/container.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Runtime prefixes of a container's own cgroup (a monitor's, such as
 * "crio-conmon-", leaves no 64-digit ID after these and so matches none). */
static const char *const id_prefixes[] = { "docker-", "cri-containerd-", "crio-", "libpod-" };

static bool is_hex_id(const char *s, size_t n)
{
	if (n != CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return true;
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

enum id_match { ID_NONE, ID_PREFIXED, ID_UNDER_DOCKER, ID_UNDER_POD };

/* One path element: an ID with a runtime prefix (and ".scope" under
 * systemd), or a bare ID under a parent that only runtimes use. */
static enum id_match element_id(const char *s, size_t n, const char *parent, size_t pn, char *id)
{
	if (has_suffix(s, n, ".scope"))
		n -= 6;
	for (size_t i = 0; i < sizeof(id_prefixes) / sizeof(id_prefixes[0]); i++) {
		size_t k = strlen(id_prefixes[i]);

		if (n > k && !memcmp(s, id_prefixes[i], k) && is_hex_id(s + k, n - k)) {
			memcpy(id, s + k, CONTAINER_ID_LEN);
			return ID_PREFIXED;
		}
	}
	/* cgroupfs drivers: /docker/ID, /kubepods/QOS/podUID/ID */
	if (!is_hex_id(s, n) || !parent)
		return ID_NONE;
	memcpy(id, s, CONTAINER_ID_LEN);
	if (pn == 6 && !memcmp(parent, "docker", 6))
		return ID_UNDER_DOCKER;
	if (pn == POD_UID_LEN + 3 && !memcmp(parent, "pod", 3))
		return ID_UNDER_POD;
	return ID_NONE;
}

/* A pod UID: 8-4-4-4-12 hex digits, with '-' or (systemd) '_'. */
static bool pod_uid(const char *s, size_t n, char *uid)
{
	static const size_t dash[] = { 8, 13, 18, 23 };

	if (n != POD_UID_LEN)
		return false;
	for (size_t i = 0, d = 0; i < n; i++) {
		if (d < 4 && i == dash[d]) {
			if (s[i] != '-' && s[i] != '_')
				return false;
			uid[i] = '-';
			d++;
		} else if (isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f')) {
			uid[i] = s[i];
		} else {
			return false;
		}
	}
	uid[n] = '\0';
	return true;
}

/* "kubepods-besteffort-pod<UID>.slice", "kubepods-pod<UID>.slice" or
 * "pod<UID>" (cgroupfs) under a kubepods element. */
static bool element_pod(const char *s, size_t n, char *uid)
{
	const char *p;

	if (has_suffix(s, n, ".slice")) {
		n -= 6;
		if (n < 9 || memcmp(s, "kubepods-", 9))
			return false;
		p = s + n - POD_UID_LEN - 3;
		if (n < POD_UID_LEN + 3 || memcmp(p, "pod", 3))
			return false;
		return pod_uid(p + 3, POD_UID_LEN, uid);
	}
	return n == POD_UID_LEN + 3 && !memcmp(s, "pod", 3) && pod_uid(s + 3, POD_UID_LEN, uid);
}

/* One cgroup path: the innermost container, and its pod when the path is
 * under kubepods.  *used: the length of the path up to the container's
 * element, what must be root's for the label to be believed. */
static bool parse_path(const char *path, size_t len, struct container_ref *out, size_t *used)
{
	const char *el[64];
	size_t el_len[64], n = 0;
	bool kube = false;

	for (size_t i = 0; i < len && n < 64; ) {
		size_t j = i;

		while (j < len && path[j] != '/')
			j++;
		if (j > i) {
			el[n] = path + i;
			el_len[n++] = j - i;
		}
		i = j + 1;
	}
	for (size_t i = n; i-- > 0; ) {
		enum id_match m = element_id(el[i], el_len[i], i ? el[i - 1] : NULL,
					     i ? el_len[i - 1] : 0, out->id);

		if (m == ID_NONE)
			continue;
		out->id[CONTAINER_ID_LEN] = '\0';
		for (size_t k = 0; k < i; k++)
			kube |= el_len[k] >= 8 && !memcmp(el[k], "kubepods", 8);
		for (size_t k = i; kube && k-- > 0; )
			if (element_pod(el[k], el_len[k], out->pod_uid))
				break;
		/* A bare ID under pod<UID> counts only in Kubernetes' tree;
		 * elsewhere the path is no layout we know. */
		if (m == ID_UNDER_POD && !kube)
			break;
		*used = (size_t)(el[i] + el_len[i] - path);
		return true;
	}
	memset(out, 0, sizeof(*out));
	return false;
}

int container_from_cgroup(const char *text, struct container_ref *out)
{
	struct cgroup_where w;

	return container_from_cgroup_where(text, out, &w);
}

int container_from_cgroup_where(const char *text, struct container_ref *out,
				struct cgroup_where *w)
{
	/* Pass 0: the v2 line ("0::"); pass 1: the v1 hierarchies. */
	for (int pass = 0; pass < 2; pass++) {
		for (const char *line = text; line && *line; ) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			const char *c1 = memchr(line, ':', len);
			const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
			bool v2 = c1 && c1 == line + 1 && line[0] == '0' && c2 == c1 + 1;

			size_t used, clen = c1 && c2 ? (size_t)(c2 - c1 - 1) : 0;

			memset(out, 0, sizeof(*out));
			if (c2 && v2 == (pass == 0) && clen < sizeof(w->controllers) &&
			    parse_path(c2 + 1, len - (size_t)(c2 + 1 - line), out, &used) &&
			    used < sizeof(w->path)) {
				memcpy(w->controllers, c1 + 1, clen);
				w->controllers[clen] = '\0';
				memcpy(w->path, c2 + 1, used);
				w->path[used] = '\0';
				return 0;
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	memset(out, 0, sizeof(*out));
	return -1;
}
