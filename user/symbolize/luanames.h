/* SPDX-License-Identifier: MIT */
/* The names Lua code knows C and fast functions by ("ngx.say",
 * "cjson.encode", "string.gsub"), read from the tables that hold them in
 * target memory: package.loaded (the registry's _LOADED), the global
 * table through it, and the classes (metatables) the registry holds.  Every read is validated and every walk bounded: the
 * target keeps running while it is read.
 */
#ifndef LBP_LUANAMES_H
#define LBP_LUANAMES_H

#include <stdint.h>

struct lj_layout;
struct mem_reader;

struct lua_names;

struct lua_names *luanames_new(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g);
void luanames_free(struct lua_names *ln);

/* Walks the VM's tables again, replacing what an earlier walk found.
 * Returns the number of functions named, -1 when the roots are unreadable
 * (the names of an earlier walk are kept then). */
int luanames_walk(struct lua_names *ln);

/* The name of the lua_CFunction at cfunc / of fast function ffid, or NULL.
 * When one function is reachable under several names, a library's name
 * wins over a plain global's, then the one with the fewest dots, then the
 * smallest in byte order: the choice does not depend on hash order, so it
 * is the same in every run. */
const char *luanames_cfunc(const struct lua_names *ln, uint64_t cfunc);
const char *luanames_ff(const struct lua_names *ln, int ffid);

/* Walks done so far. */
unsigned luanames_walks(const struct lua_names *ln);

#endif
