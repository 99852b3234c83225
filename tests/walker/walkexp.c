// SPDX-License-Identifier: MIT
/* The expected walks beside the snapshots (walkexp.h). */
#define _GNU_SOURCE
#include "walkexp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The counters' names (bpf/sampler.h LBP_COUNTERS), by number. */
static const char *const counter_names[] = {
#define COUNTER_NAME(name, field, group, lost, label) #field,
	LBP_COUNTERS(COUNTER_NAME)
#undef COUNTER_NAME
};

char *walkexp_render(const struct walker_out *out)
{
	const struct stack_trace *st = &out->st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "vmstate %d\nkeyflags 0x%x\nstack 0x%x %u %u\n", out->key.vmstate,
		out->key.flags, st->flags, st->nown, st->nthreads);
	/* The paths the walk took: every counter it moved but the sample's. */
	fputs("path", f);
	for (unsigned i = CNT_SAMPLES + 1; i < CNT__MAX; i++)
		if (out->counters[i])
			fprintf(f, " %s=%llu", counter_names[i], (unsigned long long)out->counters[i]);
	fputc('\n', f);
	for (unsigned i = 0; i < st->nframes && i < LBP_MAX_FRAMES; i++)
		fprintf(f, "frame 0x%llx 0x%x 0x%x\n", (unsigned long long)st->frames[i].id,
			st->frames[i].pc_off, st->frames[i].fp);
	fclose(f);
	return buf;
}

int walkexp_load(const char *path, struct walkexp *e)
{
	FILE *f = fopen(path, "r"), *t;
	char line[512];
	size_t len = 0;

	memset(e, 0, sizeof(*e));
	if (!f)
		return -1;
	t = open_memstream(&e->text, &len);
	if (!t) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');

		if (hash) {
			/* Trailing blanks before a comment are not part of the line. */
			while (hash > line && (hash[-1] == ' ' || hash[-1] == '\t'))
				hash--;
			strcpy(hash, "\n");
		}
		if (!strncmp(line, "arch ", 5)) {
			e->x86 = strstr(line, " x86") != NULL;
			e->arm64 = strstr(line, " arm64") != NULL;
		} else if (line[0] != '\n') {
			fputs(line, t);
		}
	}
	fclose(f);
	fclose(t);
	return e->text && (e->x86 || e->arm64) ? 0 : -1;
}
