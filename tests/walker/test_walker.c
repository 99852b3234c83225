// SPDX-License-Identifier: MIT
/* test_walker [NAME]: the BPF walker (bpf/sampler.bpf.c, built as
 * user-space code for x86-64 and for arm64) run on each recorded
 * snapshot in tests/walker/snapshots, its walk compared with the one the
 * kernel walker gave at recording time (NAME.expect).  With NAME, only
 * the snapshots whose name contains it: one walk to follow in gdb
 * (break walk_step).  Deterministic: every map starts empty, every read
 * comes from the snapshot. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unit.h"
#include "luajit/layout.h"
#include "shim.h"
#include "walkexp.h"
#include "walker.h"
#include "walksnap.h"

#define SNAP_DIR	"tests/walker/snapshots"
#define MAX_SNAPS	256
#define MIN_SNAPS	10	/* issue 43: at least ten, GC64 and not */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs one build of the walker on s, compares with want; prints both on
 * a difference. */
static void check_arch(const char *name, struct walksnap *s, int arm64, const char *want)
{
	static struct walker_out out;
	struct walker_in in;
	char label[300], *got = NULL;

	snprintf(label, sizeof(label), "walker %s %s", arm64 ? "arm64" : "x86", name);
	shim_set_reader(walksnap_read, s);
	if (!walksnap_input(s, arm64, &in) &&
	    !(arm64 ? walker_arm64_run(&in, &out) : walker_x86_run(&in, &out)))
		got = walkexp_render(&out);
	if (got && !strcmp(got, want)) {
		printf("PASS: %s (%u frames, %llu reads)\n", label, out.st.nframes,
		       (unsigned long long)out.reads);
	} else {
		printf("FAIL: %s: the walk differs\n--- expected\n%s--- got\n%s", label, want,
		       got ? got : "(dropped)\n");
		unit_failed++;
	}
	free(got);
}

static void check_one(const char *name, int *gc64, int *arm64)
{
	char path[600], err[700];
	struct walksnap s;
	struct walkexp e;

	snprintf(path, sizeof(path), "%s/%s.expect", SNAP_DIR, name);
	if (walkexp_load(path, &e)) {
		printf("FAIL: walker %s: %s unreadable\n", name, path);
		unit_failed++;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.snap", SNAP_DIR, name);
	if (walksnap_load(path, &s, err, sizeof(err))) {
		printf("FAIL: walker %s: %s\n", name, err);
		unit_failed++;
		free(e.text);
		return;
	}
	for (int i = 0; i < layout_count(); i++)
		if (!strcmp(layout_at(i)->name, s.layout))
			gc64[layout_at(i)->gc64 ? 1 : 0]++;
	if (e.x86)
		check_arch(name, &s, 0, e.text);
	if (e.arm64) {
		check_arch(name, &s, 1, e.text);
		(*arm64)++;
	}
	walksnap_free(&s);
	free(e.text);
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	char *names[MAX_SNAPS];
	int n = 0, gc64[2] = { 0, 0 }, arm64 = 0;
	DIR *d = opendir(SNAP_DIR);
	struct dirent *de;

	if (!d) {
		printf("FAIL: walker: no %s (run from the top of the tree)\n", SNAP_DIR);
		return 1;
	}
	while ((de = readdir(d)) && n < MAX_SNAPS) {
		size_t len = strlen(de->d_name);

		if (len > 5 && !strcmp(de->d_name + len - 5, ".snap") &&
		    (!only || strstr(de->d_name, only)))
			names[n++] = strndup(de->d_name, len - 5);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), by_name);
	for (int i = 0; i < n; i++) {
		check_one(names[i], gc64, &arm64);
		free(names[i]);
	}
	if (!only) {
		CHECK("walker: at least ten snapshots", n >= MIN_SNAPS);
		CHECK("walker: GC64 and non-GC64 snapshots", gc64[0] >= 2 && gc64[1] >= 2);
		CHECK("walker: snapshots the arm64 build walks", arm64 >= 1);
	}
	UNIT_EXIT();
}
