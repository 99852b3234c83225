/* SPDX-License-Identifier: MIT */
/* A minimal protocol buffers writer: varints, scalar fields and
 * length-delimited fields appended to a strbuf.  Nested messages are built
 * in a scratch buffer and added with pb_bytes. */
#ifndef LBP_PBWRITER_H
#define LBP_PBWRITER_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

enum pb_wire { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

void pb_varint(struct strbuf *b, uint64_t v);
void pb_tag(struct strbuf *b, uint32_t field, enum pb_wire wire);

/* Scalars are skipped when zero, as proto3 leaves default values out. */
void pb_uint(struct strbuf *b, uint32_t field, uint64_t v);
void pb_int(struct strbuf *b, uint32_t field, int64_t v);	/* int64: two's complement */
void pb_bool(struct strbuf *b, uint32_t field, int v);
void pb_fixed64(struct strbuf *b, uint32_t field, uint64_t v);	/* also skipped when zero */

/* Always written: a repeated string may be empty (string_table[0]). */
void pb_bytes(struct strbuf *b, uint32_t field, const void *data, size_t n);

/* A packed repeated varint field; nothing for n == 0. */
void pb_packed(struct strbuf *b, uint32_t field, const uint64_t *v, size_t n);

#endif
