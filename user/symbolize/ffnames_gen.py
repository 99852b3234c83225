# SPDX-License-Identifier: MIT
# ffnames_gen.py: fast-function names in id order from a LuaJIT src/ tree,
# numbered as src/host/buildvm_lib.c numbers them (LJLIB_CF, LJLIB_ASM and
# LJLIB_ASM_ in the order of the lib_*.c files, top-level #if LJ_52 /
# LJ_HASJIT / LJ_HASFFI / LJ_HASBUFFER honoured).  Regenerates the tables
# of ffnames.c; test_ffnames checks them against real vmdef.lua files.
import re, sys
def ffnames(src, hasjit=1):
    libs = "base math bit string table io os package debug jit ffi buffer".split()
    names = ["Lua", "C"]
    for lib in libs:
        try:
            lines = open(f"{src}/lib_{lib}.c", errors="replace").read().split("\n")
        except FileNotFoundError:
            continue
        modname = ""
        i = 0
        while i < len(lines):
            buf = lines[i][:255]; i += 1
            if buf.startswith("#if"):
                ok = {"#if LJ_52": 0, "#if LJ_HASJIT": hasjit, "#if LJ_HASFFI": 1, "#if LJ_HASBUFFER": 1}.get(buf.rstrip(), 1)
                if not ok:
                    lvl = 1
                    while i < len(lines):
                        b = lines[i]; i += 1
                        if b.startswith("#en"):
                            lvl -= 1
                            if lvl == 0: break
                        elif b.startswith("#if"):
                            lvl += 1
                    continue
            for m in re.finditer(r"LJLIB_(MODULE_(\w+)|CF\((\w+)\)|ASM\((\w+)\)|ASM_\((\w+)\))", buf):
                if m.group(2):
                    modname = m.group(2)
                else:
                    p = list(m.group(3) or m.group(4) or m.group(5))
                    j = 1
                    while j < len(p) and j - 1 < len(modname):
                        if p[j] == "_": p[j] = "."
                        j += 1
                    names.append("".join(p))
    return names
if __name__ == "__main__":
    # ffnames_gen.py SRC [0]: the names of the src/ tree, without the JIT's
    # functions with a second argument 0.
    print("\n".join(ffnames(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)))
