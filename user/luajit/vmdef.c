// SPDX-License-Identifier: MIT
/* jit/vmdef.lua reader: just the ffnames list. */
#include "luajit/vmdef.h"

#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VMDEF_MAX_SIZE	(1 << 20)

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(VMDEF_MAX_SIZE + 1);
	if (buf) {
		n = fread(buf, 1, VMDEF_MAX_SIZE, f);
		buf[n] = '\0';
	}
	fclose(f);
	return buf;
}

int vmdef_load(const char *path, struct vmdef *vd)
{
	char *text = slurp(path), *p;
	int cap = 0, err = -1;

	memset(vd, 0, sizeof(*vd));
	if (!text)
		return -1;
	p = strstr(text, "ffnames = {");
	if (!p)
		goto cleanup;
	p += strlen("ffnames = {");
	/* Entries are quoted names in id order, the first tagged [0]=. */
	while (*p && *p != '}') {
		char *q, *end;

		q = strchr(p, '"');
		if (!q || (strchr(p, '}') && strchr(p, '}') < q))
			break;
		end = strchr(q + 1, '"');
		if (!end)
			break;
		if (vd->nff == cap) {
			char **n;

			cap = cap ? cap * 2 : 256;
			n = realloc(vd->ffnames, (size_t)cap * sizeof(*n));
			if (!n)
				goto cleanup;
			vd->ffnames = n;
		}
		vd->ffnames[vd->nff] = strndup(q + 1, (size_t)(end - q - 1));
		if (!vd->ffnames[vd->nff])
			goto cleanup;
		vd->nff++;
		p = end + 1;
	}
	if (vd->nff < 2 || strcmp(vd->ffnames[0], "Lua") || strcmp(vd->ffnames[1], "C"))
		goto cleanup;
	snprintf(vd->path, sizeof(vd->path), "%s", path);
	err = 0;
cleanup:
	free(text);
	if (err)
		vmdef_free(vd);
	return err;
}

void vmdef_free(struct vmdef *vd)
{
	for (int i = 0; i < vd->nff; i++)
		free(vd->ffnames[i]);
	free(vd->ffnames);
	vd->ffnames = NULL;
	vd->nff = 0;
}

const char *vmdef_ffname(const struct vmdef *vd, int ffid)
{
	return vd && ffid >= 0 && ffid < vd->nff ? vd->ffnames[ffid] : NULL;
}

static bool family_matches(const struct vmdef *vd, bool openresty)
{
	bool has_exdata = false;

	for (int i = 0; i < vd->nff; i++)
		if (!strcmp(vd->ffnames[i], "thread.exdata"))
			has_exdata = true;
	return has_exdata == openresty;
}

/* Tries every share/luajit-* / jit/vmdef.lua below root+prefix. */
static int try_prefix(const char *root, const char *prefix, bool openresty, struct vmdef *vd)
{
	char pattern[1024];
	glob_t g;
	int err = -1;

	snprintf(pattern, sizeof(pattern), "%s%s/share/luajit*/jit/vmdef.lua", root, prefix);
	if (glob(pattern, 0, NULL, &g))
		return -1;
	for (size_t i = 0; i < g.gl_pathc && err; i++) {
		if (vmdef_load(g.gl_pathv[i], vd))
			continue;
		if (family_matches(vd, openresty))
			err = 0;
		else
			vmdef_free(vd);
	}
	globfree(&g);
	return err;
}

int vmdef_find(pid_t pid, const char *elf_path, bool openresty, struct vmdef *vd)
{
	char root[64], dir[512], prefix[512];
	static const char *const fallbacks[] = { "/usr", "/usr/local",
						 "/usr/local/openresty/luajit" };

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	snprintf(dir, sizeof(dir), "%s", elf_path);
	/* <prefix>/bin/luajit or <prefix>/lib[/<triplet>]/libluajit*.so: walk
	 * up to three levels. */
	for (int up = 0; up < 3; up++) {
		snprintf(prefix, sizeof(prefix), "%s", dirname(dir));
		snprintf(dir, sizeof(dir), "%s", prefix);
		if (up > 0 && !try_prefix(root, prefix, openresty, vd))
			return 0;
		if (!strcmp(prefix, "/"))
			break;
	}
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
		if (!try_prefix(root, fallbacks[i], openresty, vd))
			return 0;
	return -1;
}
