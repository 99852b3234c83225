/* SPDX-License-Identifier: MIT */
/* A minimal protocol buffers reader, the inverse of pbwriter: fields of
 * one message, one at a time, every length checked against the buffer.
 * Nested messages are read by a reader over a field's bytes.  Input is
 * untrusted (a file someone gave us): a malformed field ends the message
 * with pbr_next returning -1, never a read past the end. */
#ifndef LBP_PBREADER_H
#define LBP_PBREADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pbwriter.h"

struct pb_reader {
	const uint8_t *p, *end;
};

struct pb_field {
	uint32_t num;
	enum pb_wire wire;
	uint64_t v;		/* varint, i64 and i32 values */
	const uint8_t *data;	/* PB_LEN: the bytes, len of them */
	size_t len;
};

void pbr_init(struct pb_reader *r, const void *data, size_t n);

/* The next field: 1, 0 at the end of the message, -1 when malformed
 * (a truncated varint or length, a group, an unknown wire type). */
int pbr_next(struct pb_reader *r, struct pb_field *f);

/* A repeated varint field is packed (PB_LEN) or one value per field:
 * calls fn for each value; -1 when a packed run is malformed. */
int pbr_varints(const struct pb_field *f, void (*fn)(void *ctx, uint64_t v), void *ctx);

#endif
