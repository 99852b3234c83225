/* SPDX-License-Identifier: MIT */
/* What the exporters share: the exported stack (synthetic frames around a
 * sample's frames), frame labels, a key table and UTF-8 decoding.
 */
#ifndef LBP_EXPORT_STACK_H
#define LBP_EXPORT_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "base/hashidx.h"
#include "base/utf8.h"
#include "report/export.h"

/* Copies in (or the defaults when NULL) to out, with scope resolved to
 * 'f', 'F' or 'l'.  -1 with EINVAL for any other scope letter. */
int export_opts_norm(struct export_opts *out, const struct export_opts *in);

/* Maps write errors of out to -1 with errno, after flushing. */
int export_finish(FILE *out);

/* The sampled VM state as jit.p's profile callback classifies it. */
enum vm_class { VM_COMPILED, VM_INTERP, VM_C, VM_GC, VM_JIT, VM_NCLASS };

enum vm_class vm_class_of(int32_t vmstate);
char vm_class_letter(enum vm_class c);		/* 'N', 'I', 'C', 'G', 'J' */
const char *vm_class_name(enum vm_class c);	/* jit.p's: "Compiled" ... */

/* Labels of the stacks with an unknown part, the same in every view and
 * format.  The sampler's own causes ([unknown: bad frame], [unknown: read
 * fault], [unknown: stack lost] ...) are frames of the sample
 * (sample/drain.c). */
#define LABEL_TRUNCATED	"[unknown: truncated]"
#define LABEL_EMPTY	"[unknown: empty stack]"

enum xframe_kind {
	XF_FRAME,	/* one of the sample's frames */
	XF_COMM,	/* root: the process name */
	XF_PID,		/* the pid (per process) or the program's first pid, under comm */
	XF_ZONE,	/* [zone:NAME], or [zone:(none)] as jit.p names it */
	XF_GROUP,	/* --group: [group:KEY], or [group:(other)] */
	XF_TRUNCATED,	/* [unknown: truncated]: the bottom is past the depth limit */
	XF_HOST,	/* [host]: a host sample that carries no frame */
	XF_EMPTY,	/* [unknown: empty stack]: Lua ran, no frame was read */
	XF_VMSTATE,	/* [Compiled], [Interpreted] ...: the leaf; always for GC and JIT */
};

struct xframe {
	enum xframe_kind kind;
	const struct frame_sym *sym;	/* XF_FRAME only */
};

struct xstack {
	struct xframe *f;		/* root first */
	uint32_t n, cap;
};

#define XS_PROCESS	(1u << 0)	/* comm as the root frame */
#define XS_PID		(1u << 1)	/* a pid frame under comm */

/* Fills st with the exported stack of s, root first: [comm [pid]]
 * [zone] [group] [unknown: truncated] frames... [host] [vmstate], as o and flags
 * ask.  A stack of Lua that holds no frame gets [unknown: empty stack]. */
void xstack_build(struct xstack *st, const struct sample *s,
		  const struct export_opts *o, unsigned flags);
void xstack_free(struct xstack *st);

/* Appends the raw (unescaped) label of f for the normalized options o. */
void xframe_put(struct strbuf *sb, const struct xframe *f, const struct profile *p,
		const struct sample *s, const struct export_opts *o);

/* True when the samples come from more than one process. */
bool export_multi_pid(const struct profile *p);

/* The XS_* flags of folded and SVG stacks: comm always; a pid frame per
 * process with o->per_process, else per program only when two programs
 * share a comm (two unrelated luajit scripts), so that they stay apart. */
unsigned export_process_flags(const struct profile *p, const struct export_opts *o);

/* The source file a frame's chunk names, for pprof and speedscope:
 * "@path" -> path, "=name" -> name, source text -> [string "first line"],
 * builtin bytecode -> [builtin:name]; nothing for C and fast functions. */
void export_chunk_file(struct strbuf *sb, const struct frame_sym *f);

/* Appends s[0..n) with every invalid byte replaced by U+FFFD. */
void utf8_put_valid(struct strbuf *sb, const char *s, size_t n);

/* Byte strings to dense 0-based indexes, in insertion order. */
struct keytab {
	char **keys;		/* keys[i]: the NUL-terminated copy */
	size_t *lens;
	uint32_t n, cap;
	struct hashidx idx;	/* over keys */
};

#define KEYTAB_INIT { NULL, NULL, 0, 0, HASHIDX_INIT }

uint32_t keytab_intern(struct keytab *t, const void *key, size_t len, bool *added);
void keytab_free(struct keytab *t);

#endif
