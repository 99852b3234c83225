// SPDX-License-Identifier: MIT
/* Protocol buffers fields from a bounded buffer (see pbreader.h). */
#include "base/pbreader.h"

void pbr_init(struct pb_reader *r, const void *data, size_t n)
{
	r->p = data;
	r->end = data ? r->p + n : r->p;
}

/* At most ten bytes, none past end: -1 otherwise. */
static int read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (p >= end)
			return -1;
		v |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return -1;
}

static int read_fixed(struct pb_reader *r, unsigned n, uint64_t *out)
{
	uint64_t v = 0;

	if ((size_t)(r->end - r->p) < n)
		return -1;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	*out = v;
	return 0;
}

int pbr_next(struct pb_reader *r, struct pb_field *f)
{
	uint64_t key, len;

	if (r->p >= r->end)
		return 0;
	if (read_varint(&r->p, r->end, &key) || key >> 35 || !(key >> 3))
		goto bad;
	f->num = (uint32_t)(key >> 3);
	f->wire = (enum pb_wire)(key & 7);
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	switch (key & 7) {
	case PB_VARINT:
		if (read_varint(&r->p, r->end, &f->v))
			goto bad;
		return 1;
	case PB_I64:
		if (read_fixed(r, 8, &f->v))
			goto bad;
		return 1;
	case PB_I32:
		if (read_fixed(r, 4, &f->v))
			goto bad;
		return 1;
	case PB_LEN:
		if (read_varint(&r->p, r->end, &len) || len > (uint64_t)(r->end - r->p))
			goto bad;
		f->data = r->p;
		f->len = (size_t)len;
		r->p += len;
		return 1;
	}
bad:
	/* Nothing after a malformed field can be trusted. */
	r->p = r->end;
	return -1;
}

int pbr_varints(const struct pb_field *f, void (*fn)(void *ctx, uint64_t v), void *ctx)
{
	const uint8_t *p, *end;
	uint64_t v;

	if (f->wire == PB_VARINT) {
		fn(ctx, f->v);
		return 0;
	}
	if (f->wire != PB_LEN)
		return -1;
	p = f->data;
	end = p + f->len;
	while (p < end) {
		if (read_varint(&p, end, &v))
			return -1;
		fn(ctx, v);
	}
	return 0;
}
