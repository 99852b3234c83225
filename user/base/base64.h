/* SPDX-License-Identifier: MIT */
/* Standard base64 (RFC 4648, with padding), for profiles inside JSON. */
#ifndef LBP_BASE64_H
#define LBP_BASE64_H

#include <stddef.h>

#include "base/strbuf.h"

/* Appends the encoding of data[0..len) to sb. */
void base64_append(struct strbuf *sb, const void *data, size_t len);

#endif
