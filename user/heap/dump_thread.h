/* SPDX-License-Identifier: MIT */
/* One coroutine (lua_State) of a target, read for `dump`: its status as
 * coroutine.status would tell it (src/lib_base.c), its frames as
 * lua_frame entries the symbolizer names, and each Lua frame's named
 * local variables with short values.  Only reads; the target may run
 * meanwhile, so everything read is checked and what is not believed is
 * counted, never followed. */
#ifndef LBP_DUMP_THREAD_H
#define LBP_DUMP_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sampler_types.h"
#include "heap/heap_obj.h"

#define DUMP_MAX_FRAMES	256	/* frames kept per thread, from the top */
#define DUMP_NAME	48
#define DUMP_VALUE	96

enum dump_status {
	DUMP_RUNNING,		/* the VM's current thread, inside a VM activation */
	DUMP_SUSPENDED,		/* yielded, or created and never resumed */
	DUMP_NORMAL,		/* resumed another coroutine, waits for it */
	DUMP_DEAD,		/* returned or raised an error */
	DUMP_IDLE,		/* the main thread, no Lua running in it */
};

struct dump_thread_raw {
	uint64_t L;
	enum dump_status status;
	bool main;		/* g->mainthref */
	bool current;		/* g->cur_L */
	bool fresh;		/* never resumed: frames[0] is its function */
	bool torn;		/* a frame link made no sense: frames below lost */
	bool cut;		/* more than DUMP_MAX_FRAMES frames */
	uint8_t lua_status;	/* L->status: 0, LUA_YIELD (1), an error code */
	uint32_t n;
	struct lua_frame frames[DUMP_MAX_FRAMES];	/* frames[0] is the top */
	uint64_t fn[DUMP_MAX_FRAMES];			/* each frame's GCfunc */
	uint64_t base[DUMP_MAX_FRAMES], hi[DUMP_MAX_FRAMES];	/* its slots */
};

/* Reads thread L of the VM in c (cur_L and the main thread from c->g).
 * -1 when L is not a readable thread. */
int dump_thread_read(const struct heap_ctx *c, uint64_t L, struct dump_thread_raw *t);

/* "running", "suspended", ... */
const char *dump_status_name(enum dump_status s);

/* The named locals of frame i of t, in slot order: calls fn with each
 * name and its value as dump_value_short prints it.  Returns the count;
 * none for a C frame or a frame whose position is unknown. */
typedef void (*dump_local_fn)(void *ud, const char *name, const char *value);
int dump_frame_locals(const struct heap_ctx *c, const struct dump_thread_raw *t, uint32_t i,
		      size_t width, dump_local_fn fn, void *ud);

/* A short text for the TValue tv (8 raw bytes): 42, true, nil,
 * "text" (cut to width bytes), table: 0x… (N entries), function:
 * file.lua:12, ...  Reads what it names from target memory. */
void dump_value_short(const struct heap_ctx *c, uint64_t tv, size_t width, char *buf,
		      size_t len);

#endif
