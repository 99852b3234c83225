/* Built-in fast-function names per LuaJIT family (upstream, OpenResty). */
#ifndef LBP_FFNAMES_H
#define LBP_FFNAMES_H

struct lj_layout;

/* "string.gsub" for the ffid of string.gsub in lay's family, or NULL for
 * ids that are not fast functions of that family. */
const char *ffnames_builtin(const struct lj_layout *lay, int ffid);

/* Entries in the family's table, [0] "Lua" and [1] "C" included. */
int ffnames_builtin_count(const struct lj_layout *lay);

#endif
