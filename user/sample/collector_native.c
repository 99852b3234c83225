// SPDX-License-Identifier: MIT
/* --native: the samples the sampler sent with a copy of their user stack
 * (bpf/native.bpf.h), read from their ring buffer. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sample/collector_int.h"
#include "sampler.skel.h"

static int on_native(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	const struct native_sample *s = data;
	const struct stack_trace *st = NULL;

	if (size < sizeof(*s) || s->stack_len > NATIVE_STACK_MAX || !c->native_cb)
		return 0;
	if (s->key.stack_id)
		st = collector_stack_for(c, s->key.stack_id);
	c->native_cb(c->native_ctx, s, st);
	return 0;
}

int collector_native_open(struct collector *c, char *err, size_t errlen)
{
	c->native = ring_buffer__new(bpf_map__fd(c->skel->maps.native_ring), on_native, c, NULL);
	if (!c->native) {
		snprintf(err, errlen, "setting up the native stack ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int collector_drain_native(struct collector *c, native_fn fn, void *ctx)
{
	int n;

	if (!c->native)
		return 0;
	c->native_cb = fn;
	c->native_ctx = ctx;
	n = ring_buffer__consume(c->native);
	c->native_cb = NULL;
	return n;
}
