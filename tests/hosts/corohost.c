// SPDX-License-Identifier: MIT
/* corohost: runs Lua "requests" the way nginx's Lua module does: each one
 * is a coroutine created from C (lua_newthread) and driven by lua_resume
 * from a C loop, several in flight at once; every yield goes back to C.  It
 * also exports two C functions for the FFI (linked with -rdynamic, so
 * ffi.C finds them):
 *   double corohost_burn(int n)                  n rounds of CPU work in C
 *   void corohost_each(int n, void (*cb)(int))   calls the Lua callback cb
 *                                                n times (C -> Lua)
 *
 * Usage: corohost [-joff] SCRIPT [SECONDS]
 * SCRIPT returns a function; each request is a coroutine running it with the
 * request number as argument, until it returns.  A request that yields is
 * resumed after the other requests in flight had their turn.  Runs until
 * killed, or for SECONDS of wall time, then prints "corohost: N requests"
 * and exits 0.  At start it prints "corohost pid PID". */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>

#define INFLIGHT 4

__attribute__((noinline, visibility("default"))) double corohost_burn(int n)
{
	uint64_t x = 1;

	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return (double)(x >> 11);
}

__attribute__((noinline, visibility("default"))) void corohost_each(int n, void (*cb)(int))
{
	for (int i = 0; i < n; i++)
		cb(i);
}

struct request {
	lua_State *co;
	int ref;	/* registry anchor of the thread */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts request number no in r: a new thread with the handler on it. */
static void start_request(lua_State *L, int handler, struct request *r, long no)
{
	r->co = lua_newthread(L);
	r->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_rawgeti(L, LUA_REGISTRYINDEX, handler);
	lua_xmove(L, r->co, 1);
	lua_pushinteger(r->co, no);
}

/* Resumes r once; returns 1 when the request finished, -1 on error. */
static int step(lua_State *L, struct request *r)
{
	int nargs = 1, status;

	/* A fresh thread holds the function and its argument; a yielded one
	 * gets no values back. */
	if (lua_status(r->co) == LUA_YIELD) {
		lua_settop(r->co, 0);
		nargs = 0;
	}
	status = lua_resume(r->co, nargs);
	if (status == LUA_YIELD)
		return 0;
	if (status != 0) {
		fprintf(stderr, "corohost: %s\n", lua_tostring(r->co, -1));
		return -1;
	}
	luaL_unref(L, LUA_REGISTRYINDEX, r->ref);
	r->co = NULL;
	return 1;
}

int main(int argc, char **argv)
{
	struct request reqs[INFLIGHT] = { { 0 } };
	int argi = 1, joff = 0, handler, rc = 1;
	long started = 0, done = 0;
	double secs = 0, t_end;
	lua_State *L;

	if (argi < argc && strcmp(argv[argi], "-joff") == 0) {
		joff = 1;
		argi++;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: corohost [-joff] SCRIPT [SECONDS]\n");
		return 2;
	}
	if (argi + 1 < argc)
		secs = atof(argv[argi + 1]);

	L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "corohost: cannot create a Lua state\n");
		return 1;
	}
	luaL_openlibs(L);
	if (joff)
		luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
	if (luaL_loadfile(L, argv[argi]) || lua_pcall(L, 0, 1, 0)) {
		fprintf(stderr, "corohost: %s\n", lua_tostring(L, -1));
		goto out;
	}
	if (!lua_isfunction(L, -1)) {
		fprintf(stderr, "corohost: %s must return a function\n", argv[argi]);
		goto out;
	}
	handler = luaL_ref(L, LUA_REGISTRYINDEX);

	printf("corohost pid %d\n", (int)getpid());
	fflush(stdout);
	t_end = now() + secs;
	for (;;) {
		for (int i = 0; i < INFLIGHT; i++) {
			int s;

			if (!reqs[i].co)
				start_request(L, handler, &reqs[i], ++started);
			s = step(L, &reqs[i]);
			if (s < 0)
				goto out;
			done += s;
		}
		if (secs > 0 && now() >= t_end)
			break;
	}
	printf("corohost: %ld requests\n", done);
	rc = 0;
out:
	lua_close(L);
	return rc;
}
