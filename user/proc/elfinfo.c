// SPDX-License-Identifier: MIT
/* ELF reading with libelf: PT_LOAD translation, .eh_frame FDEs, symbols. */
#include "proc/elfinfo.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct elf_file {
	int fd;
	Elf *elf;
};

/* DWARF pointer encodings (DW_EH_PE_*) used by .eh_frame. */
#define PE_OMIT		0xff
#define PE_FORMAT	0x0f
#define PE_ABSPTR	0x00
#define PE_ULEB128	0x01
#define PE_UDATA2	0x02
#define PE_UDATA4	0x03
#define PE_UDATA8	0x04
#define PE_SLEB128	0x09
#define PE_SDATA2	0x0a
#define PE_SDATA4	0x0b
#define PE_SDATA8	0x0c
#define PE_APPL		0x70
#define PE_PCREL	0x10

struct elf_file *elf_file_open(const char *path)
{
	struct elf_file *ef;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	ef = calloc(1, sizeof(*ef));
	if (!ef)
		return NULL;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		goto fail;
	ef->elf = elf_begin(ef->fd, ELF_C_READ, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF)
		goto fail;
	return ef;
fail:
	elf_file_close(ef);
	return NULL;
}

void elf_file_close(struct elf_file *ef)
{
	if (!ef)
		return;
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	free(ef);
}

/* Translates between file offsets and virtual addresses through the
 * PT_LOAD segment that contains the address. */
static int translate(struct elf_file *ef, uint64_t in, bool from_offset, uint64_t *out)
{
	size_t n;

	if (elf_getphdrnum(ef->elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t start;

		if (!gelf_getphdr(ef->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		start = from_offset ? ph.p_offset : ph.p_vaddr;
		if (in >= start && in < start + ph.p_filesz) {
			*out = (from_offset ? ph.p_vaddr : ph.p_offset) + (in - start);
			return 0;
		}
	}
	return -1;
}

int elf_offset_to_vaddr(struct elf_file *ef, uint64_t offset, uint64_t *vaddr)
{
	return translate(ef, offset, true, vaddr);
}

int elf_vaddr_to_offset(struct elf_file *ef, uint64_t vaddr, uint64_t *offset)
{
	return translate(ef, vaddr, false, offset);
}

static Elf_Scn *find_section(struct elf_file *ef, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(ef->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(ef->elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* A bounded cursor over section bytes. */
struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t get_uleb(struct cursor *c)
{
	uint64_t v = 0;
	int shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static int64_t get_sleb(struct cursor *c)
{
	int64_t v = 0;
	int shift = 0;
	uint8_t b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= -((int64_t)1 << shift);
			return v;
		}
	}
	c->bad = true;
	return 0;
}

static uint64_t get_fixed(struct cursor *c, int n)
{
	uint64_t v = 0;

	if (c->end - c->p < n) {
		c->bad = true;
		return 0;
	}
	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | c->p[i];
	c->p += n;
	return v;
}

/* Reads a pointer in encoding enc; field_vaddr is where it is stored. */
static uint64_t get_encoded(struct cursor *c, uint8_t enc, uint64_t field_vaddr)
{
	uint64_t v;

	switch (enc & PE_FORMAT) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		v = get_fixed(c, 8);
		break;
	case PE_UDATA4:
		v = get_fixed(c, 4);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)get_fixed(c, 4);
		break;
	case PE_UDATA2:
		v = get_fixed(c, 2);
		break;
	case PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)get_fixed(c, 2);
		break;
	case PE_ULEB128:
		v = get_uleb(c);
		break;
	case PE_SLEB128:
		v = (uint64_t)get_sleb(c);
		break;
	default:
		c->bad = true;
		return 0;
	}
	if ((enc & PE_APPL) == PE_PCREL)
		v += field_vaddr;
	return v;
}

/* The FDE pointer encoding a CIE declares ('R' augmentation). */
static uint8_t cie_fde_encoding(const uint8_t *cie, const uint8_t *end, uint64_t cie_vaddr)
{
	struct cursor c = { cie, end, false };
	const char *aug;
	uint8_t version, enc = PE_ABSPTR;

	version = (uint8_t)get_fixed(&c, 1);
	aug = (const char *)c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	c.p++;
	if (version >= 4)
		c.p += 2;	/* address and segment sizes */
	get_uleb(&c);		/* code alignment */
	get_sleb(&c);		/* data alignment */
	if (version == 1)
		c.p++;
	else
		get_uleb(&c);	/* return register */
	if (aug[0] != 'z')
		return enc;
	get_uleb(&c);		/* augmentation data length */
	for (const char *a = aug + 1; *a && !c.bad && c.p < c.end; a++) {
		if (*a == 'R') {
			enc = (uint8_t)get_fixed(&c, 1);
		} else if (*a == 'P') {
			uint8_t penc = (uint8_t)get_fixed(&c, 1);

			get_encoded(&c, penc, cie_vaddr + (uint64_t)(c.p - cie));
		} else if (*a == 'L') {
			c.p++;
		} else if (*a != 'S' && *a != 'B') {
			break;
		}
	}
	return enc;
}

int elf_fde_range(struct elf_file *ef, uint64_t vaddr, uint64_t *lo, uint64_t *hi)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(ef, ".eh_frame", &sh);
	Elf_Data *data;
	const uint8_t *base, *p, *end;

	if (!scn || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
		return -1;
	base = data->d_buf;
	end = base + data->d_size;
	for (p = base; end - p >= 8;) {
		struct cursor c = { p, end, false };
		uint64_t len = get_fixed(&c, 4), id_pos, id;
		const uint8_t *next;

		if (len == 0)
			break;
		if (len == 0xffffffffu)
			return -1;	/* 64-bit DWARF: not emitted for x86-64 code */
		next = c.p + len;
		if (next > end)
			break;
		id_pos = (uint64_t)(c.p - base);
		id = get_fixed(&c, 4);
		if (id != 0 && id <= id_pos) {
			const uint8_t *cie = base + id_pos - id;
			uint8_t enc;
			uint64_t start, range;

			if (end - cie < 9)
				break;
			/* Skip the CIE's own length and id fields. */
			enc = cie_fde_encoding(cie + 8, end, sh.sh_addr + (uint64_t)(cie + 8 - base));
			start = get_encoded(&c, enc, sh.sh_addr + (uint64_t)(c.p - base));
			range = get_encoded(&c, enc & PE_FORMAT, 0);
			if (!c.bad && vaddr >= start && vaddr < start + range) {
				*lo = start;
				*hi = start + range;
				return 0;
			}
		}
		p = next;
	}
	return -1;
}

/* The first defined function symbol of a symbol table whose name (by
 * name) or value (by vaddr) matches; its name into out when out is given,
 * its value into *vaddr. */
static int symtab_find(struct elf_file *ef, const char *section, const char *name,
		       uint64_t *vaddr, char *out, size_t len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(ef, section, &sh);
	Elf_Data *data;
	size_t n;

	if (!scn || !(data = elf_getdata(scn, NULL)) || !sh.sh_entsize)
		return -1;
	n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || (!name && sym.st_value != *vaddr))
			continue;
		s = elf_strptr(ef->elf, sh.sh_link, sym.st_name);
		if (!s || !*s || (name && strcmp(s, name)))
			continue;
		*vaddr = sym.st_value;
		if (out)
			snprintf(out, len, "%s", s);
		return 0;
	}
	return -1;
}

int elf_symbol(struct elf_file *ef, const char *name, uint64_t *vaddr)
{
	if (!symtab_find(ef, ".dynsym", name, vaddr, NULL, 0))
		return 0;
	return symtab_find(ef, ".symtab", name, vaddr, NULL, 0);
}

int elf_symbol_at(struct elf_file *ef, uint64_t vaddr, char *name, size_t len)
{
	if (!symtab_find(ef, ".symtab", NULL, &vaddr, name, len))
		return 0;
	return symtab_find(ef, ".dynsym", NULL, &vaddr, name, len);
}

/* The GNU build-id note in one note-bearing section or segment's bytes. */
static int build_id_in_notes(Elf_Data *data, char *hex, size_t len)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const uint8_t *desc = (const uint8_t *)data->d_buf + desc_off;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) || !nh.n_descsz ||
		    nh.n_descsz * 2 + 1 > len)
			continue;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(hex + 2 * i, 3, "%02x", desc[i]);
		return 0;
	}
	return -1;
}

int elf_build_id(struct elf_file *ef, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && !build_id_in_notes(data, hex, len))
			return 0;
	}
	return -1;
}
