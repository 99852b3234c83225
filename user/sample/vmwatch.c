// SPDX-License-Identifier: MIT
/* Uretprobes on luaL_newstate/lua_newstate, and their ring buffer. */
#include "sample/vmwatch.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/elfinfo.h"
#include "base/log.h"
#include "sample/verifier.h"
#include "uprobes.skel.h"

#define MAX_OBJECTS	64	/* distinct LuaJIT files probed */
#define MAX_LINKS	(2 * MAX_OBJECTS)

/* 64-bit LuaJIT only creates VMs through luaL_newstate; 32-bit builds and
 * embedders with their own allocator use lua_newstate. */
static const char *const create_funcs[] = { "luaL_newstate", "lua_newstate" };

struct watched {
	uint64_t dev, ino;
};

struct vmwatch {
	struct uprobes_bpf *skel;
	struct ring_buffer *rb;
	struct watched objs[MAX_OBJECTS];
	int nobjs;
	struct bpf_link *links[MAX_LINKS];
	int nlinks;
	vmwatch_fn fn;		/* set for the duration of a poll */
	void *ctx;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct vmwatch *w = ctx;
	uint32_t tgid;

	if (size < sizeof(tgid))
		return 0;
	memcpy(&tgid, data, sizeof(tgid));
	if (w->fn)
		w->fn(w->ctx, (pid_t)tgid);
	return 0;
}

struct vmwatch *vmwatch_open(char *err, size_t errlen)
{
	struct vmwatch *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->skel = uprobes_bpf__open_and_load();
	if (!w->skel) {
		snprintf(err, errlen, "cannot load the VM creation probes: %s", strerror(errno));
		goto fail;
	}
	w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.vm_events), on_event, w, NULL);
	if (!w->rb) {
		snprintf(err, errlen, "cannot open the VM event ring buffer: %s", strerror(errno));
		goto fail;
	}
	return w;
fail:
	vmwatch_close(w);
	return NULL;
}

int vmwatch_check(verifier_fn fn, void *ctx, char *err, size_t errlen)
{
	struct uprobes_bpf *skel = uprobes_bpf__open();
	struct verifier_log *vlog;
	char why[320];
	int e;

	if (!skel) {
		snprintf(err, errlen, "cannot open the VM creation probes: %s", strerror(errno));
		return -1;
	}
	vlog = verifier_log_attach(skel->obj, false);
	e = uprobes_bpf__load(skel);
	for (int i = 0; i < verifier_log_count(vlog); i++) {
		struct verifier_stats st;

		verifier_log_stats(vlog, i, &st);
		fn(ctx, &st);
	}
	if (e && verifier_log_refusal(vlog, why, sizeof(why)))
		snprintf(err, errlen, "the BPF verifier of Linux %s refused %s", verifier_kernel_release(), why);
	else if (e)
		snprintf(err, errlen, "cannot load the VM creation probes: %s", strerror(-e));
	verifier_log_free(vlog);
	uprobes_bpf__destroy(skel);
	return e ? -1 : 0;
}

void vmwatch_close(struct vmwatch *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nlinks; i++)
		bpf_link__destroy(w->links[i]);
	ring_buffer__free(w->rb);
	uprobes_bpf__destroy(w->skel);
	free(w);
}

static bool watched(const struct vmwatch *w, uint64_t dev, uint64_t ino)
{
	for (int i = 0; i < w->nobjs; i++)
		if (w->objs[i].dev == dev && w->objs[i].ino == ino)
			return true;
	return false;
}

int vmwatch_add_object(struct vmwatch *w, const char *path, uint64_t dev, uint64_t ino)
{
	struct elf_file *ef;
	int attached = 0;

	if (!w || watched(w, dev, ino))
		return 0;
	if (w->nobjs == MAX_OBJECTS) {
		log_verbose("%s: too many LuaJIT objects to probe; relying on rescans", path);
		return 0;
	}
	ef = elf_file_open(path);
	if (!ef)
		return -1;
	w->objs[w->nobjs].dev = dev;
	w->objs[w->nobjs].ino = ino;
	w->nobjs++;
	for (size_t i = 0; i < sizeof(create_funcs) / sizeof(create_funcs[0]); i++) {
		uint64_t vaddr, offset;
		struct bpf_link *link;

		if (elf_symbol(ef, create_funcs[i], &vaddr) ||
		    elf_vaddr_to_offset(ef, vaddr, &offset))
			continue;
		/* pid -1: every process that maps this file, now or later. */
		link = bpf_program__attach_uprobe(w->skel->progs.vm_created, true, -1, path,
						  (size_t)offset);
		if (!link) {
			log_verbose("%s: cannot probe %s: %s", path, create_funcs[i], strerror(errno));
			continue;
		}
		w->links[w->nlinks++] = link;
		attached++;
	}
	elf_file_close(ef);
	return attached;
}

int vmwatch_poll(struct vmwatch *w, vmwatch_fn fn, void *ctx)
{
	int n;

	if (!w)
		return 0;
	w->fn = fn;
	w->ctx = ctx;
	n = ring_buffer__consume(w->rb);
	w->fn = NULL;
	return n;
}
