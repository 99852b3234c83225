import re, sys
def ffnames(src):
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
                ok = {"#if LJ_52": 0, "#if LJ_HASJIT": 1, "#if LJ_HASFFI": 1, "#if LJ_HASBUFFER": 1}.get(buf.rstrip(), 1)
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
    print("\n".join(ffnames(sys.argv[1])))
