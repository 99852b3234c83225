/* System-wide discovery (-a): which processes on the host run LuaJIT,
 * found by a /proc scan at start and again every second while profiling,
 * and at once when a known LuaJIT file's luaL_newstate returns (uprobes,
 * see vmwatch.h), so processes that start later are profiled too and
 * exited ones are dropped. */
#ifndef LBP_SYSSCAN_H
#define LBP_SYSSCAN_H

#include <stdint.h>

struct targets;

/* Adds every LuaJIT process not yet a target (never luabpfprof itself).
 * Returns the number added. */
int sysscan_add_all(struct targets *ts);

/* Called from the sampling loop about ten times a second; rescans /proc
 * when due and forgets targets that exited. */
void sysscan_poll(struct targets *ts, uint64_t now_ns);

/* Releases the probes and tables (at exit). */
void sysscan_free(void);

#endif
