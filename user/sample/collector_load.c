// SPDX-License-Identifier: MIT
/* Loading the sampler: the knobs and map sizes the options set, which
 * programs a run needs, and what to say when the kernel refuses one. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "sample/collector_int.h"
#include "sample/verifier.h"
#include "sampler.skel.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!log_is_verbose)
		return 0;	/* failures are reported by the caller in one line */
	return vfprintf(stderr, fmt, ap);
}

/* What each program serves, for messages. */
static const struct {
	const char *prog, *serves;
} prog_roles[] = {
	{ "on_sample", "CPU sampling" },
	{ "on_switch", "-e off-cpu and -e wall" },
	{ "on_alloc", "-e alloc" },
};

static const char *role_of(const char *prog)
{
	for (size_t i = 0; i < sizeof(prog_roles) / sizeof(prog_roles[0]); i++)
		if (!strcmp(prog_roles[i].prog, prog))
			return prog_roles[i].serves;
	return "the sampler";
}

/* A fixed --off-cpu-rate as the BPF program's threshold (bpf/offcpu.bpf.h):
 * a switch is kept when a uniform 32-bit draw is below it; 2^32 keeps all
 * without a draw (1, and 0: the automatic rate). */
uint64_t collector_offcpu_keep(double rate)
{
	if (!(rate > 0) || rate >= 1)
		return 1ull << 32;
	return (uint64_t)(rate * 4294967296.0 + 0.5);
}

/* The automatic rate's budget per CPU and window, 0 for a fixed rate. */
static uint32_t offcpu_budget(double rate)
{
	return rate > 0 ? 0 : (uint32_t)(OFFCPU_AUTO_PER_SEC * OFFCPU_PACE_NS / 1000000000ull);
}

bool collector_wants_cpu_clock(const struct collector_opts *o)
{
	return !o->no_cpu_clock && !o->alloc_every;
}

/* Whether n more file descriptors can be opened.  Loading needs one per
 * map, plus the program, BTF and libbpf's feature probes; libbpf turns
 * running out into misleading errors (a failed probe, then a verifier
 * rejection), so this is checked first. */
static bool fds_available(int n)
{
	int fds[64], got = 0;
	bool ok = true;

	if (n > 64)
		n = 64;
	while (got < n) {
		fds[got] = dup(STDERR_FILENO);
		if (fds[got] < 0) {
			ok = errno != EMFILE && errno != ENFILE;
			break;
		}
		got++;
	}
	while (got > 0)
		close(fds[--got]);
	return ok;
}

/* The knobs, map sizes and programs of a run with options o.  A program
 * not asked for is not even loaded (the sched_switch one would run on
 * every context switch of the host). */
static void configure(struct sampler_bpf *skel, const struct collector_opts *o)
{
	bpf_map__set_max_entries(skel->maps.stacks, o->max_stacks);
	bpf_map__set_max_entries(skel->maps.counts, o->max_counts);
	skel->rodata->walk_max_frames = o->max_frames;
	skel->rodata->cframe_max_dist = LBP_CFRAME_MAX_DIST;
	skel->rodata->walk_caches_on = !o->no_walk_caches;
	skel->rodata->min_block_ns = o->min_block_ns;
	skel->rodata->offcpu_keep = collector_offcpu_keep(o->offcpu_rate);
	skel->rodata->offcpu_budget = offcpu_budget(o->offcpu_rate);
	skel->rodata->alloc_every = o->alloc_every;
	skel->rodata->native_stack = o->native;
	skel->rodata->time_slot_ns = o->time_slot_ns;
	/* -e wall (both clocks): each tick weighs its own time. */
	skel->rodata->wall_tick_ns = o->offcpu && !o->no_cpu_clock && o->hz ?
				     1000000000ull / o->hz : 0;
	bpf_map__set_max_entries(skel->maps.native_ring, o->native ? NATIVE_RING_BYTES : 4096);
	bpf_program__set_autoload(skel->progs.on_sample, collector_wants_cpu_clock(o));
	bpf_program__set_autoload(skel->progs.on_switch, o->offcpu);
	bpf_program__set_autoload(skel->progs.on_alloc, o->alloc_every != 0);
	bpf_map__set_max_entries(skel->maps.parked, o->offcpu ? o->max_counts : 1);
}

/* What the sampler needs that a kernel may lack, newest first, probed
 * (libbpf's feature probes) only once a load has failed: to say which is
 * missing rather than how the load failed.  5.10 is the oldest kernel
 * tested (tests/kernels/matrix). */
static int has_ringbuf(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
}

static int has_probe_read_user(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_probe_read_user, NULL);
}

static int has_tracing(void)
{
	return libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACING, NULL);
}

/* The first feature this kernel lacks, as "what (Linux since)", or NULL. */
static const char *missing_feature(const struct collector_opts *o)
{
	if (has_ringbuf() == 0)
		return "the BPF ring buffer (Linux 5.8)";
	if (has_probe_read_user() == 0)
		return "bpf_probe_read_user (Linux 5.5)";
	if (o->offcpu && has_tracing() == 0)
		return "BTF-typed tracepoints for sched_switch (Linux 5.5)";
	return NULL;
}

/* The one line for a load that failed with -e (positive errno). */
static void explain_failure(int e, const char *btf, const struct verifier_log *vlog,
			    const struct collector_opts *o, char *err, size_t errlen)
{
	const char *missing;
	char why[320];

	if (e == EMFILE || e == ENFILE) {
		snprintf(err, errlen, "loading BPF: too many open files (raise ulimit -n)");
	} else if (e == ENOSYS) {
		snprintf(err, errlen, "BPF is not available: this kernel has no bpf() system call (CONFIG_BPF_SYSCALL)");
	} else if (btf && *btf) {
		snprintf(err, errlen, "loading BPF with the kernel BTF from LUABPFPROF_BTF=%s failed: %s (is it this kernel's BTF?)",
			 btf, strerror(e));
	} else if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "kernel BTF unavailable: /sys/kernel/btf/vmlinux is missing (needs CONFIG_DEBUG_INFO_BTF, or LUABPFPROF_BTF=FILE)");
	} else if (e == EPERM || (e == EACCES && geteuid() != 0)) {
		snprintf(err, errlen, "loading BPF: permission denied (needs root, or CAP_BPF and CAP_PERFMON)");
	} else if (e != EPERM && (missing = missing_feature(o))) {
		snprintf(err, errlen, "Linux %s lacks %s, which luabpfprof needs (README: Kernels)",
			 verifier_kernel_release(), missing);
	} else if (verifier_log_refusal(vlog, why, sizeof(why))) {
		const char *colon = strchr(why, ':');
		char prog[64];

		snprintf(prog, sizeof(prog), "%.*s", (int)(colon ? colon - why : 0), why);
		snprintf(err, errlen, "the BPF verifier of Linux %s refused %s (%s): %s (-v prints its log)",
			 verifier_kernel_release(), prog, role_of(prog), colon ? colon + 2 : why);
	} else if (e == EACCES || e == EINVAL) {
		snprintf(err, errlen, "the BPF verifier of Linux %s rejected the sampler (-v prints its log)",
			 verifier_kernel_release());
	} else {
		snprintf(err, errlen, "loading the BPF sampler on Linux %s failed: %s (-v for the verifier log)",
			 verifier_kernel_release(), strerror(e));
	}
}

struct sampler_bpf *collector_load(const struct collector_opts *o, verifier_fn fn, void *ctx,
				   char *err, size_t errlen)
{
	struct verifier_log *vlog = NULL;
	struct sampler_bpf *skel;
	struct bpf_map *map;
	const char *btf;
	int e, nmaps = 0;

	libbpf_set_print(libbpf_print);
	/* LUABPFPROF_BTF: the kernel's BTF from a file, for kernels without
	 * /sys/kernel/btf/vmlinux (and to test that case). */
	btf = getenv("LUABPFPROF_BTF");
	if (btf && *btf && access(btf, R_OK)) {
		snprintf(err, errlen, "kernel BTF unavailable: LUABPFPROF_BTF=%s: %s", btf,
			 strerror(errno));
		return NULL;
	}
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = btf && *btf ? btf : NULL);

		skel = sampler_bpf__open_opts(&oo);
	}
	if (!skel) {
		snprintf(err, errlen, "cannot open the BPF sampler: %s", strerror(errno));
		return NULL;
	}
	configure(skel, o);
	bpf_object__for_each_map(map, skel->obj)
		nmaps++;
	if (!fds_available(nmaps + 6)) {
		snprintf(err, errlen, "loading BPF: too many open files (raise ulimit -n)");
		sampler_bpf__destroy(skel);
		return NULL;
	}
	vlog = verifier_log_attach(skel->obj, log_is_verbose);
	e = -sampler_bpf__load(skel);
	for (int i = 0; fn && i < verifier_log_count(vlog); i++) {
		struct verifier_stats st;

		verifier_log_stats(vlog, i, &st);
		fn(ctx, &st);
	}
	if (e)
		explain_failure(e, btf, vlog, o, err, errlen);
	verifier_log_free(vlog);
	if (e) {
		sampler_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

int collector_check(const struct collector_opts *o, verifier_fn fn, void *ctx, char *err,
		    size_t errlen)
{
	struct sampler_bpf *skel = collector_load(o, fn, ctx, err, errlen);

	if (!skel)
		return -1;
	sampler_bpf__destroy(skel);
	return 0;
}
