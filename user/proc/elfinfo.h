/* SPDX-License-Identifier: MIT */
/* What the loader needs from a LuaJIT ELF file (stripped binaries too):
 * address translation, the unwind entry that spans the interpreter, and
 * exported symbols for uprobes. */
#ifndef LBP_ELFINFO_H
#define LBP_ELFINFO_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

struct elf_file *elf_file_open(const char *path);
void elf_file_close(struct elf_file *ef);

/* File offset -> link-time virtual address, through the PT_LOAD headers. */
int elf_offset_to_vaddr(struct elf_file *ef, uint64_t offset, uint64_t *vaddr);

/* Virtual address -> file offset (what uprobes attach by). */
int elf_vaddr_to_offset(struct elf_file *ef, uint64_t vaddr, uint64_t *offset);

/* The .eh_frame FDE covering vaddr: [*lo, *hi). */
int elf_fde_range(struct elf_file *ef, uint64_t vaddr, uint64_t *lo, uint64_t *hi);

/* Value of a defined function symbol in .dynsym (or .symtab). */
int elf_symbol(struct elf_file *ef, const char *name, uint64_t *vaddr);

/* Name of the function symbol that starts at vaddr: .symtab first, then
 * .dynsym.  -1 when none does (stripped, or not a function entry). */
int elf_symbol_at(struct elf_file *ef, uint64_t vaddr, char *name, size_t len);

/* The GNU build ID as lower-case hex into hex[len]; -1 when there is none. */
int elf_build_id(struct elf_file *ef, char *hex, size_t len);

#endif
