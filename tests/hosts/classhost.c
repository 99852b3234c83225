// SPDX-License-Identifier: MIT
/* classhost: C methods that only the registry's metatables hold, the way
 * real programs keep their userdata classes, for tests/t_realprog.sh:
 *   - an rspamd-style class: registry[light userdata] = metatable with a
 *     "class" field, methods in a plain __index table (demo{obj}.spin_a,
 *     demo{obj}.spin_b);
 *   - a luakit-style class: registry[&gadget_class] = metatable without a
 *     name, the struct the key points at starts with its name, and the
 *     script wraps its C __index in a Lua closure (gadget.__index).
 * No global and no library holds any of them.
 *
 * Usage: classhost SCRIPT [ARGS...]; the script gets new_obj() and
 * new_gadget() as globals and classhost_truth() for the ground truth: the
 * thread CPU seconds spent in each method so far, measured in the process
 * (spin_a, spin_b, gadget index), as three numbers. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

/* luakit's lua_class_t starts with its name. */
struct demo_class {
	const char *name;
	int id;
};

static struct demo_class gadget_class = { "gadget", 1 };
static const char obj_key;	/* the rspamd-style class's registry key */
static double spent[3];		/* thread CPU seconds: spin_a, spin_b, gadget index */

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n rounds of a 64-bit LCG; the empty asm keeps the loop. */
static uint64_t burn(lua_Integer n)
{
	uint64_t x = 1;

	for (lua_Integer i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static int timed_spin(lua_State *L, int slot)
{
	double t0 = cpu_now();
	uint64_t x = burn(luaL_checkinteger(L, 2));

	spent[slot] += cpu_now() - t0;
	lua_pushnumber(L, (lua_Number)(x >> 11));
	return 1;
}

__attribute__((noinline)) static int obj_spin_a(lua_State *L) { return timed_spin(L, 0); }
__attribute__((noinline)) static int obj_spin_b(lua_State *L) { return timed_spin(L, 1); }

/* gadget's __index: every field read burns 20000 rounds. */
__attribute__((noinline)) static int gadget_index(lua_State *L)
{
	double t0 = cpu_now();
	uint64_t x = burn(20000);

	spent[2] += cpu_now() - t0;
	lua_pushnumber(L, (lua_Number)(x >> 11));
	return 1;
}

static int gadget_gc(lua_State *L)
{
	(void)L;
	return 0;
}

static int new_obj(lua_State *L)
{
	lua_newuserdata(L, 8);
	lua_pushlightuserdata(L, (void *)&obj_key);
	lua_rawget(L, LUA_REGISTRYINDEX);
	lua_setmetatable(L, -2);
	return 1;
}

static int new_gadget(lua_State *L)
{
	lua_newuserdata(L, 8);
	lua_pushlightuserdata(L, &gadget_class);
	lua_rawget(L, LUA_REGISTRYINDEX);
	lua_setmetatable(L, -2);
	return 1;
}

static int truth(lua_State *L)
{
	for (int i = 0; i < 3; i++)
		lua_pushnumber(L, spent[i]);
	return 3;
}

static void setup_classes(lua_State *L)
{
	/* rspamd_lua_new_class: mt = { class = NAME, __index = methods } */
	lua_pushlightuserdata(L, (void *)&obj_key);
	lua_createtable(L, 0, 2);
	lua_pushstring(L, "demo{obj}");
	lua_setfield(L, -2, "class");
	lua_createtable(L, 0, 2);
	lua_pushcfunction(L, obj_spin_a);
	lua_setfield(L, -2, "spin_a");
	lua_pushcfunction(L, obj_spin_b);
	lua_setfield(L, -2, "spin_b");
	lua_setfield(L, -2, "__index");
	lua_rawset(L, LUA_REGISTRYINDEX);

	/* luaH_class_setup: registry[&class] = { __index = C, __gc = C } */
	lua_pushlightuserdata(L, &gadget_class);
	lua_createtable(L, 0, 2);
	lua_pushcfunction(L, gadget_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, gadget_gc);
	lua_setfield(L, -2, "__gc");
	lua_rawset(L, LUA_REGISTRYINDEX);

	lua_register(L, "new_obj", new_obj);
	lua_register(L, "new_gadget", new_gadget);
	lua_register(L, "classhost_truth", truth);
}

int main(int argc, char **argv)
{
	lua_State *L;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: %s SCRIPT [ARGS...]\n", argv[0]);
		return 2;
	}
	L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "classhost: cannot create a Lua state\n");
		return 1;
	}
	luaL_openlibs(L);
	setup_classes(L);
	status = luaL_loadfile(L, argv[1]);
	if (!status) {
		for (int i = 2; i < argc; i++)
			lua_pushstring(L, argv[i]);
		status = lua_pcall(L, argc - 2, 0, 0);
	}
	if (status)
		fprintf(stderr, "classhost: %s\n", lua_tostring(L, -1));
	lua_close(L);
	return status ? 1 : 0;
}
