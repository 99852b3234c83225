/* SPDX-License-Identifier: MIT */
/* bpf_helpers.h for the user-space build of the BPF sources
 * (tests/walker/README.md): the section and inlining attributes, map
 * definitions that keep their type, key, value and size in the type of
 * their members as libbpf's do, and the helpers, implemented by
 * tests/walker/shim.c over a recorded (or live) process image.  Never
 * part of the BPF build. */
#ifndef LBP_SHIM_BPF_HELPERS_H
#define LBP_SHIM_BPF_HELPERS_H

#include <stdint.h>

#define SEC(name)
#undef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#define __noinline		__attribute__((noinline))
#define barrier_var(var)	asm volatile("" : "+r"(var))

#define __uint(name, val)	int (*name)[val]
#define __type(name, val)	__typeof__(val) *name

/* A map's shape, from its definition's member types. */
#define SHIM_N(map, member)	(sizeof(*(map)->member) / sizeof(int))
#define SHIM_MAP(map)		(map), SHIM_N(map, type), sizeof(*(map)->key), \
				sizeof(*(map)->value), SHIM_N(map, max_entries)

void *shim_map_lookup(const void *map, unsigned type, size_t ksz, size_t vsz, unsigned max,
		      const void *key);
long shim_map_update(const void *map, unsigned type, size_t ksz, size_t vsz, unsigned max,
		     const void *key, const void *value, __u64 flags);
long shim_map_delete(const void *map, unsigned type, size_t ksz, size_t vsz, unsigned max,
		     const void *key);

#define bpf_map_lookup_elem(map, key)		shim_map_lookup(SHIM_MAP(map), (key))
#define bpf_map_update_elem(map, key, v, fl)	shim_map_update(SHIM_MAP(map), (key), (v), (fl))
#define bpf_map_delete_elem(map, key)		shim_map_delete(SHIM_MAP(map), (key))

/* Ring buffers: what is sent is counted, not kept. */
long shim_ringbuf_output(const void *ring, const void *data, __u64 size);
void *shim_ringbuf_reserve(const void *ring, __u64 size);
#define bpf_ringbuf_output(ring, data, size, fl)	shim_ringbuf_output((ring), (data), (size))
#define bpf_ringbuf_reserve(ring, size, fl)		shim_ringbuf_reserve((ring), (size))
#define bpf_ringbuf_submit(rec, fl)			((void)(rec))
#define bpf_ringbuf_discard(rec, fl)			((void)(rec))

/* Target memory: the image's bytes, -EFAULT (dst zeroed) outside it. */
long shim_read_user(void *dst, __u32 size, const void *src);
#define bpf_probe_read_user(dst, size, src)	shim_read_user((dst), (size), (src))
long shim_read_kernel(void *dst, __u32 size, const void *src);
#define bpf_probe_read_kernel(dst, size, src)	shim_read_kernel((dst), (size), (src))

/* The sampled thread, and a clock and generator that repeat. */
extern __u64 shim_pid_tgid;
#define bpf_get_current_pid_tgid()	(shim_pid_tgid)
__u64 shim_ktime(void);
#define bpf_ktime_get_ns()		shim_ktime()
#define bpf_jiffies64()			(shim_ktime() / 4000000)
__u32 shim_prandom(void);
#define bpf_get_prandom_u32()		shim_prandom()
#define bpf_get_current_task()		0ull
#define bpf_get_current_task_btf()	((struct task_struct *)0)
#define bpf_task_pt_regs(task)		0ull

#endif
