// SPDX-License-Identifier: MIT
/* The helpers and maps of the BPF sources compiled as user-space code
 * (shim/bpf/bpf_helpers.h): maps are found by the address of their
 * definition and made on first use; hash maps are a list searched in
 * order (a sample touches a few entries).  One CPU: per-CPU maps are
 * arrays. */
#include "shim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#define SHIM_MAPS	32
#define HASH		1	/* BPF_MAP_TYPE_HASH, _LRU_HASH: 9 */
#define LRU_HASH	9

struct shim_map {
	const void *id;
	unsigned type, max;
	size_t ksz, vsz;	/* rounded up to 8, as the kernel aligns values */
	uint8_t *vals;		/* arrays: max values; hashes: max (key, value) */
	unsigned used;		/* hashes: entries in use */
};

static struct shim_map maps[SHIM_MAPS];
static unsigned nmaps;
static shim_read_fn reader;
static void *reader_ctx;
static uint64_t nreads, nrecords, clock_ns, rnd = 0x2545f4914f6cdd1dull;
__u64 shim_pid_tgid;

void shim_set_reader(shim_read_fn fn, void *ctx)
{
	reader = fn;
	reader_ctx = ctx;
}

void shim_reset(uint32_t tgid, uint32_t tid)
{
	for (unsigned i = 0; i < nmaps; i++)
		free(maps[i].vals);
	memset(maps, 0, sizeof(maps));
	nmaps = 0;
	nreads = nrecords = 0;
	clock_ns = 1000000000;
	rnd = 0x2545f4914f6cdd1dull;
	shim_pid_tgid = (uint64_t)tgid << 32 | tid;
}

uint64_t shim_reads(void)
{
	return nreads;
}

uint64_t shim_ring_records(void)
{
	return nrecords;
}

static int is_hash(unsigned type)
{
	return type == HASH || type == LRU_HASH;
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static struct shim_map *map_of(const void *id, unsigned type, size_t ksz, size_t vsz,
			       unsigned max)
{
	struct shim_map *m;

	for (unsigned i = 0; i < nmaps; i++)
		if (maps[i].id == id)
			return &maps[i];
	if (nmaps == SHIM_MAPS)
		abort();	/* more maps than the sources define */
	m = &maps[nmaps++];
	*m = (struct shim_map){ .id = id, .type = type, .max = max, .ksz = round8(ksz),
				.vsz = round8(vsz) };
	m->vals = calloc(max, is_hash(type) ? m->ksz + m->vsz : m->vsz);
	if (!m->vals)
		abort();
	return m;
}

static uint8_t *hash_find(struct shim_map *m, const void *key, size_t ksz)
{
	for (unsigned i = 0; i < m->used; i++) {
		uint8_t *e = m->vals + (size_t)i * (m->ksz + m->vsz);

		if (!memcmp(e, key, ksz))
			return e;
	}
	return NULL;
}

void *shim_map_lookup(const void *id, unsigned type, size_t ksz, size_t vsz, unsigned max,
		      const void *key)
{
	struct shim_map *m = map_of(id, type, ksz, vsz, max);
	uint8_t *e;
	uint32_t idx;

	if (is_hash(type)) {
		e = hash_find(m, key, ksz);
		return e ? e + m->ksz : NULL;
	}
	memcpy(&idx, key, sizeof(idx));
	return idx < max ? m->vals + (size_t)idx * m->vsz : NULL;
}

long shim_map_update(const void *id, unsigned type, size_t ksz, size_t vsz, unsigned max,
		     const void *key, const void *value, __u64 flags)
{
	struct shim_map *m = map_of(id, type, ksz, vsz, max);
	uint8_t *e;

	if (!is_hash(type)) {
		e = shim_map_lookup(id, type, ksz, vsz, max, key);
		if (!e || flags == 1)	/* BPF_NOEXIST: array slots always exist */
			return e ? -EEXIST : -E2BIG;
		memcpy(e, value, vsz);
		return 0;
	}
	e = hash_find(m, key, ksz);
	if (e && flags == 1)
		return -EEXIST;
	if (!e && flags == 2)
		return -ENOENT;
	if (!e) {
		if (m->used == m->max)
			return -E2BIG;
		e = m->vals + (size_t)m->used++ * (m->ksz + m->vsz);
		memcpy(e, key, ksz);
	}
	memcpy(e + m->ksz, value, vsz);
	return 0;
}

long shim_map_delete(const void *id, unsigned type, size_t ksz, size_t vsz, unsigned max,
		     const void *key)
{
	struct shim_map *m = map_of(id, type, ksz, vsz, max);
	uint8_t *e = is_hash(type) ? hash_find(m, key, ksz) : NULL;
	size_t esz = m->ksz + m->vsz;

	if (!e)
		return -ENOENT;
	memmove(e, e + esz, (size_t)(m->vals + m->used * esz - (e + esz)));
	m->used--;
	return 0;
}

long shim_ringbuf_output(const void *ring, const void *data, __u64 size)
{
	(void)ring;
	(void)data;
	(void)size;
	nrecords++;
	return 0;
}

void *shim_ringbuf_reserve(const void *ring, __u64 size)
{
	static uint8_t *rec;
	static size_t cap;

	(void)ring;
	if (size > cap) {
		free(rec);
		rec = calloc(1, size);
		cap = rec ? size : 0;
	}
	if (rec)
		nrecords++;
	return rec;
}

long shim_read_user(void *dst, __u32 size, const void *src)
{
	nreads++;
	if (!size)
		return 0;
	if (reader && !reader(reader_ctx, (uint64_t)(uintptr_t)src, dst, size))
		return 0;
	memset(dst, 0, size);
	return -EFAULT;
}

long shim_read_kernel(void *dst, __u32 size, const void *src)
{
	(void)src;
	memset(dst, 0, size);
	return -EFAULT;
}

__u64 shim_ktime(void)
{
	return clock_ns += 1000;
}

__u32 shim_prandom(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return (__u32)rnd;
}
