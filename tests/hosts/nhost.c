// SPDX-License-Identifier: MIT
/* nhost: a C host whose stacks mix C and Lua, for --native (tests/t_native.sh).
 *
 * Built without frame pointers (-O2 -fomit-frame-pointer), as Debian builds
 * nginx and libluajit:
 *
 *   main -> run_frame (C work) -> lua_pcall -> Lua update (Lua work)
 *        -> FFI call physics_step (C work) -> callback Lua on_hit (Lua work)
 *        -> Lua C function c_work (C work), called work_c in Lua
 *
 * Every round's amount of work is random (so a fixed sampling period cannot
 * alias), and each part is timed in-process by the thread's CPU clock (a
 * loaded machine's preemptions would weigh on wall-clock times): at exit,
 * after SECONDS or on SIGTERM, the host prints the truth as CPU
 * nanoseconds per part:
 *   truth total=N run_frame=N update=N physics=N on_hit=N c_work=N frames=N
 * (update: the Lua work in update itself; physics: physics_step without
 * the callbacks it made; frames: rounds of run_frame, for throughput).
 *
 * Usage: nhost SECONDS [jit|nojit]
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

static uint64_t ns_run_frame, ns_physics, ns_on_hit, ns_c_work, ns_lua_calls, nframes;
static uint64_t rng = 88172645463325252ull;
static volatile double sink;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Plain floating-point work the compiler cannot fold away. */
static __attribute__((noinline)) double spin(uint32_t n)
{
	double x = 1.0;

	for (uint32_t i = 0; i < n; i++)
		x = x * 1.0000001 + 0.5 / (x + (double)i);
	return x;
}

typedef void (*hit_cb)(int);

/* Called from Lua through the FFI: C work, and now and then a callback
 * into Lua. */
__attribute__((noinline, visibility("default"))) void physics_step(int n, hit_cb cb)
{
	uint64_t t0 = now_ns(), in_cb = 0;

	for (int k = 0; k < 3; k++) {
		uint64_t c0;

		sink = spin(20000 + rnd(20000) + (uint32_t)n);
		c0 = now_ns();
		cb(k);
		in_cb += now_ns() - c0;
	}
	ns_on_hit += in_cb;
	ns_physics += now_ns() - t0 - in_cb;
}

/* A Lua C function. */
static __attribute__((noinline)) int c_work(lua_State *L)
{
	uint64_t t0 = now_ns();

	sink = spin(30000 + rnd(30000) + (uint32_t)luaL_checkinteger(L, 1));
	ns_c_work += now_ns() - t0;
	return 0;
}

static const char script[] =
	"local ffi = require('ffi')\n"
	"ffi.cdef[[\n"
	"typedef void (*hit_cb)(int);\n"
	"void physics_step(int n, hit_cb cb);\n"
	"]]\n"
	"local C = ffi.C\n"
	"acc = 0\n"
	"function on_hit(k)\n"
	"  local s = 0\n"
	"  for i = 1, 20000 + math.random(20000) do s = s + i % 13 end\n"
	"  acc = acc + s\n"
	"end\n"
	"local cb = ffi.cast('hit_cb', on_hit)\n"
	"function update(r)\n"
	"  local s = 0\n"
	"  for i = 1, 30000 + r do s = s + i % 7 end\n"
	"  acc = acc + s\n"
	"  C.physics_step(r, cb)\n"
	"  work_c(r)\n"
	"end\n";

static __attribute__((noinline)) int run_frame(lua_State *L)
{
	uint64_t t0 = now_ns(), t1;

	sink = spin(40000 + rnd(40000));
	t1 = now_ns();
	ns_run_frame += t1 - t0;
	lua_getglobal(L, "update");
	lua_pushinteger(L, rnd(20000));
	if (lua_pcall(L, 1, 0, 0)) {
		fprintf(stderr, "nhost: %s\n", lua_tostring(L, -1));
		return -1;
	}
	ns_lua_calls += now_ns() - t1;
	nframes++;
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	lua_State *L = luaL_newstate();
	uint64_t start, end, lua_own;
	struct timespec wall;
	double deadline;

	luaL_openlibs(L);
	/* Named differently in Lua, so that its two names can be told apart. */
	lua_register(L, "work_c", c_work);
	if (argc > 2 && !strcmp(argv[2], "nojit")) {
		if (luaL_dostring(L, "jit.off()"))
			return 1;
	}
	if (luaL_loadbuffer(L, script, sizeof(script) - 1, "=nhost") || lua_pcall(L, 0, 0, 0)) {
		fprintf(stderr, "nhost: %s\n", lua_tostring(L, -1));
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	signal(SIGTERM, on_term);
	clock_gettime(CLOCK_MONOTONIC, &wall);
	deadline = (double)wall.tv_sec + wall.tv_nsec / 1e9 + secs;
	start = now_ns();
	while (!stop) {
		if (run_frame(L))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &wall);
		if ((double)wall.tv_sec + wall.tv_nsec / 1e9 >= deadline)
			break;
	}
	end = now_ns();
	lua_own = ns_lua_calls - ns_physics - ns_on_hit - ns_c_work;
	printf("truth total=%llu run_frame=%llu update=%llu physics=%llu on_hit=%llu c_work=%llu "
	       "frames=%llu\n",
	       (unsigned long long)(end - start), (unsigned long long)ns_run_frame,
	       (unsigned long long)lua_own, (unsigned long long)ns_physics,
	       (unsigned long long)ns_on_hit, (unsigned long long)ns_c_work,
	       (unsigned long long)nframes);
	lua_close(L);
	return 0;
}
