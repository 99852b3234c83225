// SPDX-License-Identifier: MIT
/* lhost: a minimal program embedding LuaJIT through libluajit-5.1.so.2, so
 * the tests can profile a VM that lives in a shared library, created by
 * luaL_newstate from C, rather than in the luajit executable.
 *
 * Usage: lhost [-joff|-jon] [-jNAME[=ARG,...]]... SCRIPT [ARGS...]
 * Runs SCRIPT like `luajit SCRIPT ARGS...` (global `arg` included); -jp=MODE
 * loads jit.p as luajit -jp does, and its report is written at lua_close.
 * It also registers chost.spin(n), a lua_CFunction that burns CPU in C, for
 * the "C code" phase of tests/workloads/vmstates.lua, and chost.resume(co,
 * ...), a resume from C (tests/workloads/cresume.lua). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>

/* chost.spin(n): n rounds of a 64-bit LCG; the empty asm keeps the loop. */
__attribute__((noinline)) int chost_spin(lua_State *L)
{
	lua_Integer n = luaL_checkinteger(L, 1);
	uint64_t x = 1;

	for (lua_Integer i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	lua_pushnumber(L, (lua_Number)(x >> 11));
	return 1;
}

/* chost.resume(co, ...): coroutine.resume done by a C function through
 * lua_resume, for tests/workloads/cresume.lua: the coroutine's resumer is
 * C code running on the calling thread.  Returns the values yielded or
 * returned (an error is raised again). */
static int chost_resume(lua_State *L)
{
	lua_State *co = lua_tothread(L, 1);
	int nargs = lua_gettop(L) - 1, status, nres;

	luaL_argcheck(L, co != NULL, 1, "coroutine expected");
	lua_xmove(L, co, nargs);
	status = lua_resume(co, nargs);
	if (status != 0 && status != LUA_YIELD) {
		lua_xmove(co, L, 1);
		return lua_error(L);
	}
	nres = lua_gettop(co);
	lua_xmove(co, L, nres);
	return nres;
}

static const luaL_Reg chost_funcs[] = {
	{ "spin", chost_spin },
	{ "resume", chost_resume },
	{ NULL, NULL },
};

static int traceback(lua_State *L)
{
	luaL_traceback(L, L, lua_tostring(L, 1), 1);
	return 1;
}

/* Calls the function below nargs arguments, reporting errors on stderr. */
static int docall(lua_State *L, int nargs, int nres)
{
	int base = lua_gettop(L) - nargs;

	lua_pushcfunction(L, traceback);
	lua_insert(L, base);
	int status = lua_pcall(L, nargs, nres, base);
	lua_remove(L, base);
	if (status != 0) {
		fprintf(stderr, "lhost: %s\n", lua_tostring(L, -1));
		lua_pop(L, 1);
	}
	return status;
}

/* -jon, -joff, -jflush; or -jNAME=A,B: require("jit.NAME").start("A", "B"),
 * the way luajit's own -j option does it. */
static int jitcmd(lua_State *L, const char *cmd)
{
	if (!strcmp(cmd, "on") || !strcmp(cmd, "off") || !strcmp(cmd, "flush")) {
		int mode = cmd[1] == 'n' ? LUAJIT_MODE_ON :
			   cmd[1] == 'f' ? LUAJIT_MODE_OFF : LUAJIT_MODE_FLUSH;
		luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | mode);
		return 0;
	}
	const char *opt = strchr(cmd, '=');
	int len = opt ? (int)(opt - cmd) : (int)strlen(cmd);

	lua_getglobal(L, "require");
	lua_pushliteral(L, "jit.");
	lua_pushlstring(L, cmd, len);
	lua_concat(L, 2);
	if (docall(L, 1, 1))
		return 1;
	lua_getfield(L, -1, "start");
	lua_remove(L, -2);
	int nargs = 0;
	while (opt) {
		const char *arg = opt + 1;
		opt = strchr(arg, ',');
		lua_pushlstring(L, arg, opt ? (size_t)(opt - arg) : strlen(arg));
		nargs++;
	}
	return docall(L, nargs, 0);
}

int main(int argc, char **argv)
{
	int first = 1;

	while (first < argc && !strncmp(argv[first], "-j", 2))
		first++;
	if (first >= argc) {
		fprintf(stderr, "usage: %s [-jCMD]... SCRIPT [ARGS...]\n", argv[0]);
		return 2;
	}

	lua_State *L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "lhost: cannot create a Lua state\n");
		return 1;
	}
	luaL_openlibs(L);
	luaL_register(L, "chost", chost_funcs);
	lua_pop(L, 1);

	/* arg[0] = script, arg[1..] = its arguments, options below 0. */
	lua_createtable(L, argc - first - 1, first + 1);
	for (int i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i - first);
	}
	lua_setglobal(L, "arg");

	int status = 0;
	for (int i = 1; i < first && !status; i++)
		status = jitcmd(L, argv[i] + 2);
	if (!status) {
		status = luaL_loadfile(L, argv[first]);
		if (status) {
			fprintf(stderr, "lhost: %s\n", lua_tostring(L, -1));
		} else {
			for (int i = first + 1; i < argc; i++)
				lua_pushstring(L, argv[i]);
			status = docall(L, argc - first - 1, 0);
		}
	}
	lua_close(L); /* runs jit.p's finalizer, which prints its report */
	return status ? 1 : 0;
}
