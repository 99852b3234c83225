/* First sightings of prototypes, announced to user space at once.
 *
 * A frame is recorded as (prototype address, PC offset, fingerprint) and
 * resolved by user space when it next drains the maps.  Code loaded anew
 * and collected soon after (test runners loading files every round,
 * template engines, load()-heavy programs) can be freed before that drain.
 * So the first time a walk meets a prototype, its address goes to a ring
 * buffer; user space, woken by it, reads and caches the prototype's names
 * and lines within milliseconds, and later samples resolve from that copy
 * even after the prototype died (user/symbolize/symbolize.c sym_prefetch).
 *
 * "Seen" is a direct-mapped table of tags (pid, prototype, fingerprint):
 * one array slot per check, which the verifier inlines into a few loads.
 * A collision only evicts a tag, so that prototype is announced again, and
 * user space finds it cached; a race between CPUs does the same.
 * Included by sampler.bpf.c before walk.bpf.h.
 */
#ifndef LBP_PROTOS_BPF_H
#define LBP_PROTOS_BPF_H

#define PROTO_SEEN_SLOTS	16384	/* power of two */
#define PROTO_RING_BYTES	(256 * 1024)

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

/* Announces (tgid, g, pt, fp) unless its tag is in the table; returns 1
 * when the announcement was lost (the ring buffer was full). */
static __always_inline int proto_announce(__u32 tgid, __u64 g, __u64 pt, __u32 fp)
{
	__u64 tag = pt ^ ((__u64)fp << 32 | tgid), *slot;
	__u32 idx;
	struct proto_news news;

	tag *= 0x9e3779b97f4a7c15ull;
	tag ^= tag >> 31;
	tag |= 1;		/* 0 is an empty slot */
	idx = (__u32)(tag >> 40) & (PROTO_SEEN_SLOTS - 1);
	slot = bpf_map_lookup_elem(&proto_seen, &idx);
	if (!slot || *slot == tag)
		return 0;
	news.pid = tgid;
	news.fp = fp;
	news.g = g;
	news.pt = pt;
	if (bpf_ringbuf_output(&proto_ring, &news, sizeof(news), 0))
		return 1;	/* not marked: announced again next time */
	*slot = tag;
	return 0;
}

#endif
