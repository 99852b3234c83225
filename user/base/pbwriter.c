// SPDX-License-Identifier: MIT
/* Protocol buffers wire format, the writing half only. */
#include "base/pbwriter.h"

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb_varint(struct strbuf *b, uint64_t v)
{
	char tmp[10];
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (char)(0x80 | (v & 0x7f));
		v >>= 7;
	}
	tmp[n++] = (char)v;
	sb_putn(b, tmp, n);
}

void pb_tag(struct strbuf *b, uint32_t field, enum pb_wire wire)
{
	pb_varint(b, ((uint64_t)field << 3) | wire);
}

void pb_uint(struct strbuf *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_int(struct strbuf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

void pb_bool(struct strbuf *b, uint32_t field, int v)
{
	pb_uint(b, field, v ? 1 : 0);
}

void pb_fixed64(struct strbuf *b, uint32_t field, uint64_t v)
{
	char le[8];

	if (!v)
		return;
	for (int i = 0; i < 8; i++)
		le[i] = (char)(v >> (8 * i));
	pb_tag(b, field, PB_I64);
	sb_putn(b, le, sizeof(le));
}

void pb_bytes(struct strbuf *b, uint32_t field, const void *data, size_t n)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, n);
	sb_putn(b, data, n);
}

void pb_packed(struct strbuf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	pb_tag(b, field, PB_LEN);
	pb_varint(b, len);
	for (size_t i = 0; i < n; i++)
		pb_varint(b, v[i]);
}
