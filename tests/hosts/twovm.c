// SPDX-License-Identifier: MIT
/* twovm [SECONDS]: two threads, each with its own LuaJIT VM (luaL_newstate
 * per thread), each running a different hot Lua function: thread 1 runs
 * hot_one (chunk "=twovm1"), thread 2 runs hot_two (chunk "=twovm2").  A
 * per-thread profile must never mix them.  At start each thread prints
 *   thread N tid TID runs hot_NAME
 * on stdout.  Runs until killed, or for SECONDS, after which both threads
 * leave their loops, close their VMs (lua_close) and the process exits 0. */
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

/* Lua source with %s = the function name; the work is the same LCG as the
 * workloads in tests/workloads, in its own inner loop. */
#define HOT_SRC                                                                       \
	"local function %s(n, x)\n"                                                   \
	"  for i = 1, n do x = (x * 1664525 + 1013904223) %% 4294967296 end\n"        \
	"  return x\n"                                                                \
	"end\n"                                                                       \
	"local x = 1\n"                                                               \
	"while twovm_running() do x = %s(1000000, x) end\n"                           \
	"return x\n"

struct job {
	int no;
	const char *func, *chunk;
	pthread_t thread;
};

static atomic_int running = 1;

static int twovm_running(lua_State *L)
{
	lua_pushboolean(L, atomic_load(&running));
	return 1;
}

static void *run_vm(void *arg)
{
	struct job *job = arg;
	char src[512];

	printf("thread %d tid %ld runs %s\n", job->no, (long)syscall(SYS_gettid), job->func);
	fflush(stdout);

	lua_State *L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "twovm: cannot create a Lua state\n");
		exit(1);
	}
	luaL_openlibs(L);
	lua_register(L, "twovm_running", twovm_running);
	snprintf(src, sizeof(src), HOT_SRC, job->func, job->func);
	if (luaL_loadbuffer(L, src, strlen(src), job->chunk) || lua_pcall(L, 0, 0, 0)) {
		fprintf(stderr, "twovm: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	lua_close(L);
	return NULL;
}

int main(int argc, char **argv)
{
	struct job jobs[2] = {
		{ .no = 1, .func = "hot_one", .chunk = "=twovm1" },
		{ .no = 2, .func = "hot_two", .chunk = "=twovm2" },
	};
	double secs = argc > 1 ? atof(argv[1]) : 0;

	for (int i = 0; i < 2; i++) {
		if (pthread_create(&jobs[i].thread, NULL, run_vm, &jobs[i])) {
			fprintf(stderr, "twovm: pthread_create failed\n");
			return 1;
		}
	}
	if (secs > 0) {
		struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
		while (nanosleep(&ts, &ts))
			;
		atomic_store(&running, 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(jobs[i].thread, NULL);
	return 0;
}
