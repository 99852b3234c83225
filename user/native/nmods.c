// SPDX-License-Identifier: MIT
/* The native modules of a process: its executable file mappings, each file
 * opened once (through /proc/PID/map_files, the exact inode mapped, never a
 * path the target could redirect), with its .eh_frame CFI from libdw and
 * its function symbols from libelf.  The vDSO is not a file: the kernel
 * maps the same image into every process, so ours is read instead.
 *
 * No pointer into a mapping of a file: the target's user can truncate it
 * under us, and the next read of a page past the new end is SIGBUS (a
 * symbol name's strlen, a CFI entry).  libelf reads with pread (ELF_C_READ,
 * never ELF_C_READ_MMAP) into copies of its own, so a truncated file is an
 * error there, and code bytes are read with pread too.  The copies are
 * bounded: a file whose symbol, string, note and frame sections together
 * claim more than READ_BUDGET is not read (a sparse file claims anything). */
#include "native/nmods.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "proc/procmaps.h"

#define MAX_FILES	512
#define READ_BUDGET	(512u << 20)	/* bytes of sections libelf may copy per file */

struct nsym {
	uint64_t lo, hi;	/* link-time [lo, hi) */
	const char *name;
	int rank;		/* among aliases, the lowest names the function */
};

struct nfile {
	uint64_t inode;
	char path[256];
	int fd;
	Elf *elf;
	int dbg_fd;		/* its Debian debug file (/usr/lib/debug/.build-id) */
	Elf *dbg_elf;
	void *image;		/* the vDSO's copy */
	Dwarf_CFI *cfi;
	struct nsym *syms;
	size_t nsyms;
	char build_id[41];
	/* PT_LOAD: link-time address of a file offset */
	GElf_Phdr *load;
	size_t nload;
};

struct nmods {
	pid_t pid;
	struct proc_maps maps;
	struct nfile *files[MAX_FILES];
	int nfiles;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct nsym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* The best last, lookups find it first: the lowest rank, then the
	 * shortest name (cbrt, not its alias cbrtf32x). */
	if (x->rank != y->rank)
		return y->rank - x->rank;
	return (int)strlen(y->name) - (int)strlen(x->name);
}

/* Which of several names at one address is the function's: exported
 * (.dynsym) before local, global before weak, unversioned and without
 * leading underscores before the rest (cbrt, not cbrtf32x or __cbrt). */
static int sym_rank(const GElf_Shdr *sh, const GElf_Sym *s, const char *name)
{
	int r = 0;

	if (sh->sh_type != SHT_DYNSYM)
		r += 8;
	if (GELF_ST_BIND(s->st_info) != STB_GLOBAL)
		r += 4;
	if (strchr(name, '@'))
		r += 2;
	if (name[0] == '_')
		r += 1;
	return r;
}

/* Whether the sections nmods reads (symbols, their strings, notes, frame
 * tables) fit READ_BUDGET: what libelf would copy out of the file. */
static bool within_budget(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, total = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_STRTAB ||
		    sh.sh_type == SHT_NOTE || (name && !strncmp(name, ".eh_frame", 9))) {
			if (sh.sh_size > READ_BUDGET - total)
				return false;
			total += sh.sh_size;
		}
	}
	return true;
}

/* Function symbols of elf's .symtab and .dynsym, added to f's; returns
 * whether elf has a .symtab. */
static bool read_symbols(struct nfile *f, Elf *elf, size_t *cap)
{
	Elf_Scn *scn = NULL;
	bool symtab = false;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		symtab |= sh.sh_type == SHT_SYMTAB;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || !s.st_value || s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (f->nsyms == *cap) {
				*cap = *cap ? *cap * 2 : 256;
				f->syms = xrealloc(f->syms, *cap * sizeof(*f->syms));
			}
			f->syms[f->nsyms++] = (struct nsym){ s.st_value, s.st_value + (s.st_size ? s.st_size : 1),
							     name, sym_rank(&sh, &s, name) };
		}
	}
	return symtab;
}

/* A stripped file's symbols from its Debian debug file, found by build ID
 * in /usr/lib/debug/.build-id (root's, and writable by root only). */
static void read_debug_symbols(struct nfile *f, size_t *cap)
{
	char p[128];
	struct stat sb;

	if (strlen(f->build_id) < 4)
		return;
	snprintf(p, sizeof(p), "/usr/lib/debug/.build-id/%.2s/%s.debug", f->build_id,
		 f->build_id + 2);
	f->dbg_fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (f->dbg_fd < 0) {
		/* Debian's .build-id entries are symlinks into the package's
		 * tree: follow them only when the link is root's. */
		if (lstat(p, &sb) || !S_ISLNK(sb.st_mode) || sb.st_uid != 0)
			return;
		f->dbg_fd = open(p, O_RDONLY | O_CLOEXEC);
		if (f->dbg_fd < 0)
			return;
	}
	if (fstat(f->dbg_fd, &sb) || sb.st_uid != 0 || (sb.st_mode & 022) || !S_ISREG(sb.st_mode))
		return;
	f->dbg_elf = elf_begin(f->dbg_fd, ELF_C_READ, NULL);
	if (f->dbg_elf && elf_kind(f->dbg_elf) == ELF_K_ELF && within_budget(f->dbg_elf))
		read_symbols(f, f->dbg_elf, cap);
}

static void read_build_id(struct nfile *f)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name_off, "GNU", 4))
				continue;
			for (size_t i = 0; i < nh.n_descsz && i < 20; i++)
				snprintf(f->build_id + 2 * i, 3, "%02x",
					 ((unsigned char *)d->d_buf)[desc_off + i]);
			return;
		}
	}
}

static void read_loads(struct nfile *f)
{
	size_t n = 0;

	if (elf_getphdrnum(f->elf, &n) || !n)
		return;
	f->load = xcalloc(n, sizeof(*f->load));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->load[f->nload++] = ph;
	}
}

/* Our own vDSO image, the same bytes as the target's. */
static void *own_vdso(size_t *len)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	struct proc_maps self = { 0 };
	const struct map_entry *e;
	void *copy = NULL;

	if (!base || procmaps_read(getpid(), &self))
		return NULL;
	e = procmaps_find(&self, base);
	if (e) {
		*len = e->end - base;
		copy = xmalloc(*len);
		memcpy(copy, (void *)(uintptr_t)base, *len);
	}
	procmaps_free(&self);
	return copy;
}

static struct nfile *open_file(struct nmods *m, const struct map_entry *e)
{
	struct nfile *f;
	char p[96];

	for (int i = 0; i < m->nfiles; i++)
		if (m->files[i]->inode == e->inode && !strcmp(m->files[i]->path, e->path))
			return m->files[i];
	if (m->nfiles >= MAX_FILES)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->inode = e->inode;
	f->fd = -1;
	f->dbg_fd = -1;
	snprintf(f->path, sizeof(f->path), "%s", e->path);
	if (!strcmp(e->path, "[vdso]")) {
		size_t len = 0;

		f->image = own_vdso(&len);
		if (f->image)
			f->elf = elf_memory(f->image, len);
	} else {
		snprintf(p, sizeof(p), "/proc/%d/map_files/%llx-%llx", (int)m->pid,
			 (unsigned long long)e->start, (unsigned long long)e->end);
		f->fd = open(p, O_RDONLY | O_CLOEXEC);
		if (f->fd >= 0)
			f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	}
	if (f->elf && elf_kind(f->elf) == ELF_K_ELF && within_budget(f->elf)) {
		size_t cap = 0;

		f->cfi = dwarf_getcfi_elf(f->elf);
		read_build_id(f);
		if (!read_symbols(f, f->elf, &cap))
			read_debug_symbols(f, &cap);
		if (f->nsyms)
			qsort(f->syms, f->nsyms, sizeof(*f->syms), sym_cmp);
		read_loads(f);
	}
	m->files[m->nfiles++] = f;
	return f;
}

static void close_file(struct nfile *f)
{
	if (f->cfi)
		dwarf_cfi_end(f->cfi);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dbg_elf)
		elf_end(f->dbg_elf);
	if (f->dbg_fd >= 0)
		close(f->dbg_fd);
	free(f->image);
	free(f->syms);
	free(f->load);
	free(f);
}

struct nmods *nmods_new(pid_t pid)
{
	struct nmods *m = xcalloc(1, sizeof(*m));

	elf_version(EV_CURRENT);
	m->pid = pid;
	nmods_refresh(m);
	return m;
}

void nmods_free(struct nmods *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nfiles; i++)
		close_file(m->files[i]);
	procmaps_free(&m->maps);
	free(m);
}

int nmods_refresh(struct nmods *m)
{
	struct proc_maps fresh = { 0 };

	if (procmaps_read(m->pid, &fresh))
		return -1;
	procmaps_free(&m->maps);
	m->maps = fresh;
	return 0;
}

/* The link-time address of the mapping's first byte (bias = start - it). */
static int link_base(const struct nfile *f, const struct map_entry *e, uint64_t *vaddr)
{
	for (size_t i = 0; i < f->nload; i++) {
		const GElf_Phdr *ph = &f->load[i];

		if (e->offset >= ph->p_offset && e->offset < ph->p_offset + (ph->p_filesz ? ph->p_filesz : 1)) {
			*vaddr = ph->p_vaddr + (e->offset - ph->p_offset);
			return 0;
		}
	}
	return -1;
}

static struct nfile *file_of(struct nmods *m, const struct map_entry *e, uint64_t *bias)
{
	struct nfile *f;
	uint64_t base = 0;

	if (!map_is_file(e) && strcmp(e->path, "[vdso]"))
		return NULL;
	f = open_file(m, e);
	if (!f || !f->elf)
		return f;
	if (!strcmp(e->path, "[vdso]"))
		base = 0;
	else if (link_base(f, e, &base))
		return f;
	*bias = e->start - base;
	return f;
}

int nmods_find(struct nmods *m, uint64_t addr, struct nmod_loc *loc)
{
	const struct map_entry *e = procmaps_find(&m->maps, addr);
	struct nfile *f;
	uint64_t bias = 0;

	memset(loc, 0, sizeof(*loc));
	if (!e)
		return -1;
	loc->start = e->start;
	loc->limit = e->end;
	loc->offset = e->offset;
	loc->exec = e->x;
	f = file_of(m, e, &bias);
	if (!f)
		return 0;
	loc->path = f->path;
	loc->build_id = f->build_id[0] ? f->build_id : NULL;
	loc->bias = bias;
	loc->cfi = f->cfi;
	return 0;
}

const char *nmods_symbol(struct nmods *m, uint64_t addr, uint64_t *off)
{
	const struct map_entry *e = procmaps_find(&m->maps, addr);
	struct nfile *f;
	uint64_t bias = 0, v;
	size_t lo = 0, hi;

	if (!e || !(f = file_of(m, e, &bias)) || !f->nsyms)
		return NULL;
	v = addr - bias;
	hi = f->nsyms;
	while (lo < hi) {		/* the last symbol starting at or below v */
		size_t mid = (lo + hi) / 2;

		if (f->syms[mid].lo <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Overlapping symbols (aliases, nested): the nearest start that
	 * still covers v. */
	for (size_t i = lo; i-- > 0 && lo - i <= 8;) {
		if (v < f->syms[i].hi) {
			*off = v - f->syms[i].lo;
			return f->syms[i].name;
		}
	}
	return NULL;
}

size_t nmods_code(struct nmods *m, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct map_entry *e = procmaps_find(&m->maps, addr);
	struct nfile *f;
	ssize_t n;

	if (!e || !e->x || !(f = file_of(m, e, &(uint64_t){ 0 })) || f->fd < 0 || !f->elf)
		return 0;
	if (len > e->end - addr)
		len = e->end - addr;
	/* pread, not the file mapped: a truncated file reads short. */
	n = pread(f->fd, buf, len, (off_t)(addr - e->start + e->offset));
	return n > 0 ? (size_t)n : 0;
}
