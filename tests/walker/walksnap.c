// SPDX-License-Identifier: MIT
/* Walker snapshots: the file format of walksnap.h. */
#include "walksnap.h"

#include "luajit/layout.h"
#include "walker.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The registers and the VM's addresses are read and written as one run. */
_Static_assert(offsetof(struct walksnap, obj_hi) - offsetof(struct walksnap, ip) == 8 * 11,
	       "struct walksnap: ip .. obj_hi are not twelve u64 in a row");

#define MAGIC	"LBPW"
#define VERSION	1

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

static void take(struct cursor *c, void *dst, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, c->p, n);
	c->p += n;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && n <= (long)WALKSNAP_MAX_BYTES &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

static int fail(char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	return -1;
}

static int load_regions(struct cursor *c, struct walksnap *s)
{
	take(c, &s->nregions, 4);
	if (c->bad || s->nregions > WALKSNAP_MAX_REGIONS)
		return -1;
	s->regions = calloc(s->nregions ? s->nregions : 1, sizeof(*s->regions));
	if (!s->regions)
		return -1;
	for (uint32_t i = 0; i < s->nregions; i++) {
		struct walksnap_region *r = &s->regions[i];

		take(c, &r->addr, 8);
		take(c, &r->len, 4);
		if (c->bad || r->len > (size_t)(c->end - c->p) || r->addr + r->len < r->addr ||
		    (i && r->addr < s->regions[i - 1].addr + s->regions[i - 1].len))
			return -1;
		r->data = malloc(r->len ? r->len : 1);
		if (!r->data)
			return -1;
		take(c, r->data, r->len);
	}
	return c->bad || c->p != c->end ? -1 : 0;
}

int walksnap_parse(const uint8_t *buf, size_t len, struct walksnap *s)
{
	struct cursor c = { buf, buf + len, 0 };
	char magic[4];
	uint32_t version;

	memset(s, 0, sizeof(*s));
	take(&c, magic, 4);
	take(&c, &version, 4);
	take(&c, s->layout, sizeof(s->layout));
	take(&c, &s->tgid, 4);
	take(&c, &s->tid, 4);
	take(&c, &s->ip, 8 * 12);	/* ip .. obj_hi: twelve u64 in a row */
	if (c.bad || memcmp(magic, MAGIC, 4) || version != VERSION ||
	    !memchr(s->layout, 0, sizeof(s->layout)) || load_regions(&c, s)) {
		walksnap_free(s);
		return -1;
	}
	return 0;
}

int walksnap_load(const char *path, struct walksnap *s, char *err, size_t errlen)
{
	size_t len = 0;
	uint8_t *buf;
	int rc;

	errno = 0;
	buf = slurp(path, &len);
	memset(s, 0, sizeof(*s));
	if (!buf)
		return fail(err, errlen, path, errno ? strerror(errno) : "empty or too large");
	rc = walksnap_parse(buf, len, s);
	free(buf);
	return rc ? fail(err, errlen, path, "not a walker snapshot of version 1") : 0;
}

int walksnap_save(const char *path, const struct walksnap *s)
{
	FILE *f = fopen(path, "wb");
	uint32_t version = VERSION;
	int bad;

	if (!f)
		return -1;
	bad = fwrite(MAGIC, 1, 4, f) != 4 || fwrite(&version, 4, 1, f) != 1 ||
	      fwrite(s->layout, sizeof(s->layout), 1, f) != 1 ||
	      fwrite(&s->tgid, 4, 1, f) != 1 || fwrite(&s->tid, 4, 1, f) != 1 ||
	      fwrite(&s->ip, 8, 12, f) != 12 || fwrite(&s->nregions, 4, 1, f) != 1;
	for (uint32_t i = 0; !bad && i < s->nregions; i++)
		bad = fwrite(&s->regions[i].addr, 8, 1, f) != 1 ||
		      fwrite(&s->regions[i].len, 4, 1, f) != 1 ||
		      fwrite(s->regions[i].data, 1, s->regions[i].len, f) != s->regions[i].len;
	return fclose(f) || bad ? -1 : 0;
}

void walksnap_free(struct walksnap *s)
{
	for (uint32_t i = 0; s->regions && i < s->nregions; i++)
		free(s->regions[i].data);
	free(s->regions);
	s->regions = NULL;
	s->nregions = 0;
}

int walksnap_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	const struct walksnap *s = ctx;
	uint32_t lo = 0, hi = s->nregions;

	/* The last region starting at or below addr. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->regions[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (!s->nregions || addr < s->regions[lo].addr || addr + len < addr ||
	    addr + len > s->regions[lo].addr + s->regions[lo].len)
		return -1;
	memcpy(dst, s->regions[lo].data + (addr - s->regions[lo].addr), len);
	return 0;
}

int walksnap_input(const struct walksnap *s, int arm64, struct walker_in *in)
{
	const struct lj_layout *lay = NULL;

	for (int i = 0; i < layout_count(); i++)
		if (!strcmp(layout_at(i)->name, s->layout))
			lay = layout_at(i);
	if (!lay)
		return -1;
	memset(in, 0, sizeof(*in));
	in->tgid = s->tgid;
	in->tid = s->tid;
	in->ip = s->ip;
	in->sp = s->sp;
	in->base = s->base;
	in->pc = s->pc;
	in->rb = arm64 ? s->base : s->rb;
	in->vm.g = s->g;
	in->vm.zone_tab = s->zone_tab;
	in->vm.vm_lo = s->vm_lo;
	in->vm.vm_hi = s->vm_hi;
	in->vm.obj_lo = s->obj_lo;
	in->vm.obj_hi = s->obj_hi;
	layout_bpf_offsets(lay, &in->vm.off);
	/* x86-64's DISPATCH is g + g2disp where arm64's GL is g: the same
	 * register by role, whatever C code left in it. */
	in->disp = arm64 ? s->disp - in->vm.off.g2disp : s->disp;
	return 0;
}
