/* Per-CPU caches of what a Lua frame costs to resolve, so that a frame
 * met in an earlier sample costs one read of user memory instead of four.
 *
 * Per Lua frame the walker always reads its prototype's header span
 * (type, bytecode size, chunk name, first line, line count): the
 * fingerprint (sampler.h) is taken from what memory holds at this instant.
 * What it no longer reads each time:
 * - the function's header (what the function is): from the function cache
 *   (tgid, GCfunc -> GCproto) while the VM's heap epoch holds, and the
 *   frame's PC lies in that prototype's bytecode as its header reads now;
 * - the chunk name's string id: from the prototype cache while the header
 *   span reads the same and the VM has made no string since (string
 *   epoch), so that the string at that address is the same string;
 * - the caller's frame size (the A operand of the CALL before the return
 *   PC): from the call-site cache (tgid, return PC -> A, the caller's
 *   prototype and fingerprint), trusted only when the slot it leads to
 *   holds a function that resolves, as above, to the prototype recorded,
 *   with the return PC in its bytecode and the recorded fingerprint.
 *
 * The epochs are read once per walk, from the VM's global_State:
 * - string epoch: StrInternState num and id (src/lj_obj.h).  Every string
 *   the VM makes advances id (src/lj_str.c lj_str_alloc), and every one
 *   made or freed moves num; with LUAJIT_SECURITY_STRID=3 ids are random
 *   and only num moves.
 * - heap epoch: a hash of everything from GCState.total to the string
 *   epoch: bytes allocated, threshold, debt, estimate, the GC's state,
 *   white, sweep position, gray lists, newest object.  A function freed and
 *   another allocated at its address moves it; only the GC's whole state
 *   reading the same at two samples with a collection between them (a
 *   program exactly periodic in its allocations) could hide that.
 * Why the PC check alone is not enough for the function cache: a freed
 * prototype's header survives intact inside a merged free block, and a
 * live prototype allocated over its old bytecode passes it
 * (tests/t_walkcache.sh caught such a frame).
 * docs/hardening.md ("Memory reuse") says what this does to the
 * fingerprint's protection.
 *
 * Direct-mapped, one PERCPU_ARRAY element per slot: the verifier inlines
 * each lookup into a few loads, and a collision only evicts.  Included by
 * walk.bpf.h.
 */
#ifndef LBP_WALKCACHE_BPF_H
#define LBP_WALKCACHE_BPF_H

#define FN_CACHE_SLOTS		1024	/* powers of two */
#define PT_CACHE_SLOTS		1024
#define CALL_CACHE_SLOTS	1024
#define GCT_PROTO		7	/* ~LJ_TPROTO as stored in GCHeader.gct */
#define PT_SPAN			80	/* prototype header bytes read per frame (GC64: 71) */
#define EPOCH_BLOCK		160	/* GCState.total .. StrInternState.id (GC64: 156) */

struct fn_cache_ent {
	__u64 fn;		/* GCfunc (Lua functions only) */
	__u64 pt;		/* its GCproto */
	__u64 heapep;		/* heap epoch when read */
	__u32 tgid;
	__u32 pad;
};

struct pt_cache_ent {
	__u64 pt;
	__u64 str;		/* chunk name GCstr */
	__u64 lines;		/* firstline | numline << 32 */
	__u64 strep;		/* string epoch when sid was read */
	__u32 tgid;
	__u32 sid;
	__u32 fp;
	__u32 pad;
};

struct call_cache_ent {
	__u64 link;		/* return PC into the caller */
	__u64 pt;		/* the caller's prototype */
	__u32 tgid;
	__u32 fp;		/* and its fingerprint */
	__u32 a;		/* the CALL's A operand */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FN_CACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct fn_cache_ent);
} fn_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PT_CACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct pt_cache_ent);
} pt_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CALL_CACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct call_cache_ent);
} call_cache SEC(".maps");

/* Off until a misnamed frame is explained: one fresh-clone run of
 * t_hardening's churn check (non-GC64 Debian build) named one frame of 200
 * after another generation's prototype with the caches on.  With 0 every
 * lookup below misses, and the verifier drops the cached paths. */
const volatile __u32 walk_caches_on = 0;

static __always_inline __u32 cache_slot(__u64 addr, __u32 tgid, __u32 slots)
{
	__u64 h = (addr ^ ((__u64)tgid << 47)) * 0x9e3779b97f4a7c15ull;

	return (__u32)(h >> 40) & (slots - 1);
}

static __always_inline struct fn_cache_ent *fn_cache_at(__u64 fn, __u32 tgid)
{
	__u32 idx = cache_slot(fn, tgid, FN_CACHE_SLOTS);

	return walk_caches_on ? bpf_map_lookup_elem(&fn_cache, &idx) : NULL;
}

static __always_inline struct pt_cache_ent *pt_cache_at(__u64 pt, __u32 tgid)
{
	__u32 idx = cache_slot(pt, tgid, PT_CACHE_SLOTS);

	return walk_caches_on ? bpf_map_lookup_elem(&pt_cache, &idx) : NULL;
}

static __always_inline struct call_cache_ent *call_cache_at(__u64 link, __u32 tgid)
{
	__u32 idx = cache_slot(link, tgid, CALL_CACHE_SLOTS);

	return walk_caches_on ? bpf_map_lookup_elem(&call_cache, &idx) : NULL;
}

/* Reads VM g's epochs (above) into *strep and *heapep, through blk
 * (EPOCH_BLOCK bytes); both 0 (unknown: no cached answer is trusted)
 * when the layout has no such fields or the read fails. */
static __always_inline void read_epochs(const struct lj_offsets *off, __u64 g, __u8 *blk,
					__u64 *strep, __u64 *heapep)
{
	__u32 len = off->g_strnum + 8 - off->g_gc;
	__u64 h = 0x5bd1e995, v;

	*strep = 0;
	*heapep = 0;
	if (!off->g_strnum || !off->g_gc || off->g_strnum < off->g_gc || len > EPOCH_BLOCK)
		return;
	len &= 0xff;
	if (len < 8 || len > EPOCH_BLOCK)
		return;
	if (bpf_probe_read_user(blk, len, (void *)(g + off->g_gc)))
		return;
	for (__u32 i = 0; i + 8 <= EPOCH_BLOCK; i += 8) {
		if (i + 8 > len)
			break;
		__builtin_memcpy(&v, blk + i, 8);
		h = (h ^ v) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	len -= 8;
	if (len > EPOCH_BLOCK - 8)
		return;
	__builtin_memcpy(&v, blk + len, 8);
	*strep = v | 1;
	*heapep = (h ^ v) | 1;
}

#endif
