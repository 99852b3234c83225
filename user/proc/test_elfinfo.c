// SPDX-License-Identifier: MIT
/* ELF symbol lookup by address and the GNU build ID, on this test program
 * itself (/proc/self/exe: it has .symtab, .dynsym and a build-id note). */
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "proc/elfinfo.h"

/* A function of this file, found by name and then by its address. */
__attribute__((noinline, used)) int elfinfo_probe_function(int x)
{
	return x * 3 + 1;
}

int main(void)
{
	struct elf_file *ef = elf_file_open("/proc/self/exe");
	uint64_t vaddr = 0, offset = 0, back = 0;
	char name[128] = "", hex[129] = "";
	size_t n;

	CHECK("the test program opens", ef != NULL);
	if (!ef)
		UNIT_EXIT();
	CHECK("elfinfo_probe_function by name",
	      !elf_symbol(ef, "elfinfo_probe_function", &vaddr) && vaddr);
	CHECK("and back by its address", !elf_symbol_at(ef, vaddr, name, sizeof(name)));
	CHECK_STR("the same name", name, "elfinfo_probe_function");
	CHECK("an address inside a function is no function's start",
	      elf_symbol_at(ef, vaddr + 1, name, sizeof(name)) < 0);
	CHECK("an address outside the file names nothing",
	      elf_symbol_at(ef, 0xfffffff0ull, name, sizeof(name)) < 0);
	CHECK("vaddr -> file offset -> vaddr",
	      !elf_vaddr_to_offset(ef, vaddr, &offset) && !elf_offset_to_vaddr(ef, offset, &back) &&
	      back == vaddr);
	CHECK("a GNU build ID", !elf_build_id(ef, hex, sizeof(hex)));
	n = strlen(hex);
	CHECK("as lower-case hex, 20 bytes or so", n >= 16 && n % 2 == 0 &&
	      strspn(hex, "0123456789abcdef") == n);
	CHECK("too small a buffer is refused", elf_build_id(ef, hex, 8) < 0);
	elf_file_close(ef);
	UNIT_EXIT();
}
