/* SPDX-License-Identifier: MIT */
/* The native modules of a process, for --native: which file maps each
 * code address, its .eh_frame CFI, its function symbols and build ID. */
#ifndef LBP_NMODS_H
#define LBP_NMODS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct nmods;
struct Dwarf_CFI_s;

/* Where a code address is. */
struct nmod_loc {
	const char *path;	/* the mapped file, "[vdso]"; NULL: no file (JIT code) */
	const char *build_id;	/* lower-case hex, or NULL */
	uint64_t start, limit, offset;	/* the mapping, offset into the file */
	uint64_t bias;		/* address - link-time address */
	struct Dwarf_CFI_s *cfi;	/* its .eh_frame, NULL when it has none */
	bool exec;
};

struct nmods *nmods_new(pid_t pid);
void nmods_free(struct nmods *m);

/* Rereads the process's maps (new libraries); files already open stay. */
int nmods_refresh(struct nmods *m);

/* The mapping holding addr; -1 when none does (refresh, and try again). */
int nmods_find(struct nmods *m, uint64_t addr, struct nmod_loc *loc);

/* Up to len bytes of the code at addr, from the file mapped there (the
 * target is not read); the number read, 0 when none. */
size_t nmods_code(struct nmods *m, uint64_t addr, uint8_t *buf, size_t len);

/* The function symbol covering addr (.symtab, then .dynsym) and addr's
 * offset into it; NULL when none does. */
const char *nmods_symbol(struct nmods *m, uint64_t addr, uint64_t *off);

#endif
