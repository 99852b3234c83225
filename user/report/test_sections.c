// SPDX-License-Identifier: MIT
/* Report sections: the processes of one program (nginx's master and
 * workers) are one view; unrelated programs, --per-process and
 * --per-thread split it.  Checked on the jit.p report and the call tree. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "report/view_jitp.h"
#include "report/view_tree.h"
#include "base/unit.h"

static char *out_buf;

static void add(struct profile *p, uint32_t pid, uint32_t tid, uint64_t count,
		const struct frame_sym *f)
{
	struct sample s = { .pid = pid, .tid = tid, .vmstate = -1, .nframes = 1,
			    .frames = &f, .count = count };

	profile_add(p, &s);
}

static const char *jitp(const struct profile *p, const struct view_jitp_opts *o)
{
	struct jp_mode m;
	char err[64];
	size_t len;
	FILE *out;

	free(out_buf);
	out = open_memstream(&out_buf, &len);
	if (jp_mode_parse("f", &m, err, sizeof(err)) || view_jitp_write_opts(out, p, &m, o))
		fputs("[error]", out);
	fclose(out);
	return out_buf;
}

static const char *tree(const struct profile *p, bool per_process)
{
	struct view_tree_opts o;
	size_t len;
	FILE *out;

	free(out_buf);
	out = open_memstream(&out_buf, &len);
	view_tree_opts_init(&o);
	o.per_process = per_process;
	if (view_tree_write(out, p, &o))
		fputs("[error]", out);
	fclose(out);
	return out_buf;
}

int main(void)
{
	struct profile *p = profile_new(100);
	struct frame_sym fw = { .kind = SYM_LUA, .name = "work", .chunk = "@/x/t.lua",
				.firstline = 1, .line = 2 };
	struct frame_sym fo = { .kind = SYM_LUA, .name = "other", .chunk = "@/x/u.lua",
				.firstline = 1, .line = 2 };
	const struct frame_sym *w = profile_frame(p, &fw), *o = profile_frame(p, &fo);
	struct view_jitp_opts per_process = { .per_process = true };
	struct view_jitp_opts per_thread = { .per_thread = true };

	/* 301 was forked by 300 and runs the same executable: one program. */
	profile_set_comm(p, 300, "nginx");
	profile_set_comm(p, 301, "nginx");
	profile_set_program(p, 301, 300);
	add(p, 300, 300, 3, w);
	add(p, 301, 301, 1, o);
	CHECK_STR("a program's processes merge, no header", jitp(p, NULL),
		  "75%  work\n25%  other\n");
	CHECK_STR("call tree: merged too", tree(p, false),
		  "  total    self   samples  function\n"
		  "  75.0%   75.0%         3  t.lua:work\n"
		  "  25.0%   25.0%         1  u.lua:other\n");
	CHECK_STR("--per-process splits them", jitp(p, &per_process),
		  "=== PID 300 (nginx) ===\n100%  work\n\n=== PID 301 (nginx) ===\n100%  other\n");
	CHECK_STR("call tree --per-process", tree(p, true),
		  "=== PID 300 (nginx) ===\n"
		  "  total    self   samples  function\n"
		  " 100.0%  100.0%         3  t.lua:work\n"
		  "\n=== PID 301 (nginx) ===\n"
		  "  total    self   samples  function\n"
		  " 100.0%  100.0%         1  u.lua:other\n");

	/* A program seen in one process only (a worker, its master idle) is
	 * headed by that process. */
	{
		struct profile *q = profile_new(100);
		const struct frame_sym *qw = profile_frame(q, &fw);

		profile_set_comm(q, 501, "nginx");
		profile_set_program(q, 501, 500);
		profile_set_comm(q, 20, "luajit");
		add(q, 501, 501, 1, qw);
		add(q, 20, 20, 1, qw);
		CHECK_STR("a program's only process heads its section", jitp(q, NULL),
			  "=== PID 20 (luajit) ===\n100%  work\n\n"
			  "=== PID 501 (nginx) ===\n100%  work\n");
		profile_free(q);
	}

	/* Another program: its own section, the program's processes still one. */
	profile_set_comm(p, 20, "luajit");
	add(p, 20, 21, 4, w);
	CHECK_STR("programs apart, processes merged", jitp(p, NULL),
		  "=== PID 20 (luajit) ===\n100%  work\n\n"
		  "=== PID 300 (nginx), 2 processes ===\n75%  work\n25%  other\n");
	/* Same name, unrelated: a program of its own. */
	profile_set_comm(p, 400, "nginx");
	add(p, 400, 400, 2, o);
	CHECK_STR("an unrelated process of the same name stays apart", jitp(p, NULL),
		  "=== PID 20 (luajit) ===\n100%  work\n\n"
		  "=== PID 300 (nginx), 2 processes ===\n75%  work\n25%  other\n\n"
		  "=== PID 400 (nginx) ===\n100%  other\n");
	CHECK_STR("--per-thread", jitp(p, &per_thread),
		  "=== PID 20 TID 21 (luajit) ===\n100%  work\n\n"
		  "=== PID 300 TID 300 (nginx) ===\n100%  work\n\n"
		  "=== PID 301 TID 301 (nginx) ===\n100%  other\n\n"
		  "=== PID 400 TID 400 (nginx) ===\n100%  other\n");
	profile_free(p);
	free(out_buf);
	UNIT_EXIT();
}
