// SPDX-License-Identifier: MIT
/* mutexhost SECONDS: off-CPU ground truth in a C host.  Two threads, each
 * with its own LuaJIT VM, share one pthread mutex:
 *   holder (chunk "=holder")  rounds of hold() -- takes the mutex through
 *                             the lua_CFunction mutex_lock and burns the CPU
 *                             in Lua for 5 to 25 ms before mutex_unlock --
 *                             and rest() (nap_ms, 2 to 10 ms, unlocked);
 *   waiter (chunk "=waiter")  rounds of want() -- mutex_lock, which blocks
 *                             while the holder holds it, then mutex_unlock
 *                             -- and work() (CPU in Lua, 3 to 15 ms).
 * Round lengths are random so that no sampling period aliases.  mutex_lock
 * times its own pthread_mutex_lock with CLOCK_MONOTONIC; at the end the
 * waiter's truth goes to stdout:
 *   truth lock SECONDS     time in pthread_mutex_lock (blocked, then woken)
 *   truth work SECONDS     time in work()
 *   truth total SECONDS    the waiter's whole loop
 * and "tid holder TID", "tid waiter TID" at the start. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static double seconds;

/* Lua: now() -> CLOCK_MONOTONIC seconds. */
static int mono_now(lua_State *L)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	lua_pushnumber(L, (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
	return 1;
}

/* Lua: mutex_lock() -> seconds spent getting the mutex. */
static int mutex_lock(lua_State *L)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	pthread_mutex_lock(&shared);
	clock_gettime(CLOCK_MONOTONIC, &b);
	lua_pushnumber(L, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
	return 1;
}

static int mutex_unlock(lua_State *L)
{
	(void)L;
	pthread_mutex_unlock(&shared);
	return 0;
}

static int nap_ms(lua_State *L)
{
	usleep((useconds_t)(luaL_checknumber(L, 1) * 1000));
	return 0;
}

/* Both loops: burn() spins in Lua until a deadline, the parts are called
 * directly (not tail calls) so that each is named by its call site. */
#define COMMON_SRC                                                                    \
	"local secs, seed = ...\n"                                                    \
	"math.randomseed(seed)\n"                                                     \
	"local x = 0\n"                                                               \
	"local function burn(ms)\n"                                                   \
	"  local stop = now() + ms / 1000\n"                                          \
	"  repeat\n"                                                                  \
	"    for i = 1, 2000 do x = (x * 31 + i) % 1000003 end\n"                     \
	"  until now() >= stop\n"                                                     \
	"end\n"

static const char holder_src[] = COMMON_SRC
	"local function hold(ms)\n"
	"  mutex_lock()\n"
	"  burn(ms)\n"
	"  mutex_unlock()\n"
	"end\n"
	"local function rest(ms)\n"
	"  nap_ms(ms)\n"
	"end\n"
	"local start = now()\n"
	"while now() - start < secs do\n"
	"  hold(5 + math.random() * 20)\n"
	"  rest(2 + math.random() * 8)\n"
	"end\n";

static const char waiter_src[] = COMMON_SRC
	"local function want()\n"
	"  local waited = mutex_lock()\n"
	"  mutex_unlock()\n"
	"  return waited\n"
	"end\n"
	"local function work(ms)\n"
	"  burn(ms)\n"
	"end\n"
	"local lock, spent = 0, 0\n"
	"local start = now()\n"
	"local t0 = start\n"
	"while t0 - start < secs do\n"
	"  lock = lock + want()\n"
	"  local t1 = now()\n"
	"  work(3 + math.random() * 12)\n"
	"  t0 = now(); spent = spent + (t0 - t1)\n"
	"end\n"
	"print(string.format('truth lock %.6f', lock))\n"
	"print(string.format('truth work %.6f', spent))\n"
	"print(string.format('truth total %.6f', now() - start))\n";

struct job {
	const char *name, *chunk, *src;
	unsigned seed;
	pthread_t thread;
};

static void *run_vm(void *arg)
{
	struct job *job = arg;
	lua_State *L = luaL_newstate();

	if (!L) {
		fprintf(stderr, "mutexhost: cannot create a Lua state\n");
		exit(1);
	}
	printf("tid %s %ld\n", job->name, (long)syscall(SYS_gettid));
	fflush(stdout);
	luaL_openlibs(L);
	lua_register(L, "now", mono_now);
	lua_register(L, "mutex_lock", mutex_lock);
	lua_register(L, "mutex_unlock", mutex_unlock);
	lua_register(L, "nap_ms", nap_ms);
	if (luaL_loadbuffer(L, job->src, strlen(job->src), job->chunk)) {
		fprintf(stderr, "mutexhost: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	lua_pushnumber(L, seconds);
	lua_pushnumber(L, job->seed);
	if (lua_pcall(L, 2, 0, 0)) {
		fprintf(stderr, "mutexhost: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	fflush(stdout);
	lua_close(L);
	return NULL;
}

int main(int argc, char **argv)
{
	struct job jobs[2] = {
		{ .name = "holder", .chunk = "=holder", .src = holder_src },
		{ .name = "waiter", .chunk = "=waiter", .src = waiter_src },
	};

	seconds = argc > 1 ? atof(argv[1]) : 3;
	if (seconds <= 0) {
		fprintf(stderr, "usage: mutexhost SECONDS\n");
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		jobs[i].seed = (unsigned)time(NULL) * 2u + (unsigned)i + (unsigned)getpid();
		if (pthread_create(&jobs[i].thread, NULL, run_vm, &jobs[i])) {
			fprintf(stderr, "mutexhost: cannot start a thread\n");
			return 1;
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(jobs[i].thread, NULL);
	return 0;
}
