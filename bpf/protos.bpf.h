/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* First sightings of prototypes, announced to user space at once.
 *
 * A frame is recorded as (prototype address, PC offset, fingerprint) and
 * resolved by user space when it next drains the maps.  Code loaded anew
 * and collected soon after (test runners loading files every round,
 * template engines, load()-heavy programs) can be freed before that drain.
 * So the first time a walk meets a prototype, a copy of it (the whole
 * GCproto block: bytecode, line table, names) and of its chunk name goes
 * to a ring buffer; user space, woken by it, reads names and lines from
 * that copy, which outlives the prototype, and later samples resolve from
 * its cache (user/symbolize/prefetch.c sym_prefetch).  Reading the live
 * prototype when woken instead lost 1-3% of such frames under load.
 *
 * "Seen" is a direct-mapped table of tags (pid, prototype, fingerprint):
 * one array slot per check, which the verifier inlines into a few loads.
 * A collision only evicts a tag, so that prototype is announced again, and
 * user space finds it cached; a race between CPUs does the same.
 * Included by sampler.bpf.c before walk.bpf.h.
 */
#ifndef LBP_PROTOS_BPF_H
#define LBP_PROTOS_BPF_H

#include "prelude.bpf.h"

#define PROTO_SEEN_SLOTS	16384	/* power of two */
#define PROTO_RING_BYTES	(2 * 1024 * 1024)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PROTO_SEEN_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} proto_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PROTO_RING_BYTES);
} proto_ring SEC(".maps");

/* Where the news is put together (too large for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct proto_news);
} proto_buf SEC(".maps");

/* Copies the prototype's block and its chunk name into n: the memory as
 * it is while the prototype runs, so that user space still has it when
 * the GC has freed it before user space woke up.  Returns block_len. */
static __always_inline __u32 proto_capture(const struct lj_offsets *off, struct proto_news *n)
{
	__u32 size = 0, len = 0;

	n->block_len = 0;
	n->str_len = 0;
	if (!bpf_probe_read_user(&size, 4, (void *)(n->pt + off->pt_sizept)) &&
	    size >= off->sizeof_proto && size <= PROTO_NEWS_BLOCK &&
	    !bpf_probe_read_user(n->block, size & (2 * PROTO_NEWS_BLOCK - 1), (void *)n->pt))
		n->block_len = size;
	/* A fixed span: bytes past the string are sent, not used. */
	if (!bpf_probe_read_user(&len, 4, (void *)(n->str + off->str_len)) &&
	    !bpf_probe_read_user(n->str_bytes, PROTO_NEWS_STR, (void *)n->str)) {
		len += off->str_data + 1;	/* with the NUL LuaJIT keeps */
		n->str_len = len < PROTO_NEWS_STR ? len : PROTO_NEWS_STR;
	}
	return n->block_len ? size : 0;
}

/* Announces (tgid, g, pt, fp), with a copy of the prototype, unless its
 * tag is in the table; returns 1 when the announcement was lost (the ring
 * buffer was full). */
static __always_inline int proto_announce(const struct lj_offsets *off, __u32 tgid, __u64 g,
					  __u64 pt, __u64 str, __u32 fp)
{
	__u64 tag = pt ^ ((__u64)fp << 32 | tgid), *slot;
	__u32 idx, zero = 0;
	struct proto_news *n;
	__u32 sent;

	tag *= 0x9e3779b97f4a7c15ull;
	tag ^= tag >> 31;
	tag |= 1;		/* 0 is an empty slot */
	idx = (__u32)(tag >> 40) & (PROTO_SEEN_SLOTS - 1);
	slot = bpf_map_lookup_elem(&proto_seen, &idx);
	if (!slot || *slot == tag)
		return 0;
	n = bpf_map_lookup_elem(&proto_buf, &zero);
	if (!n)
		return 0;
	n->pid = tgid;
	n->fp = fp;
	n->g = g;
	n->pt = pt;
	n->str = str;
	sent = proto_capture(off, n);
	if (sent > PROTO_NEWS_BLOCK)
		return 0;
	if (bpf_ringbuf_output(&proto_ring, n, offsetof(struct proto_news, block) + sent, 0))
		return 1;	/* not marked: announced again next time */
	*slot = tag;
	return 0;
}

#endif
