// SPDX-License-Identifier: MIT
/* libFuzzer target: `luabpfprof diff`'s readers (report/profile_read.c)
 * on any bytes: gzip or not, pprof or folded.  What reads is counted by
 * every view's key and written as the diff's text, difffolded lines,
 * flame graph against itself and as a pprof side, to /dev/null.  Every input must be read or
 * refused within its bounds, without a sanitizer report. */
#include <stdint.h>
#include <stdio.h>

#include "model/diff_keys.h"
#include "report/diff_out.h"
#include "report/diff_svg.h"
#include "report/profile_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static FILE *null;
	struct stackset s;
	char err[256];
	const char views[] = "FflvZ";

	if (!null)
		null = fopen("/dev/null", "w");
	stackset_init(&s);
	if (!profile_read_buf("fuzz", data, n, NULL, &s, err, sizeof(err))) {
		struct diff_out_opts o = { .confidence = 0.99, .base_name = "a", .new_name = "b" };

		for (const char *v = views; *v; v++) {
			struct diff_table t;

			diff_table_init(&t, *v == 'Z' ? 'z' : *v);
			diff_table_count(&t, &s, DIFF_BASE);
			diff_table_count(&t, &s, DIFF_NEW);
			diff_table_finish(&t, 2.5758, NULL);
			diff_text_write(null, &t, &s, &s, &o);
			if (*v == 'F') {
				diff_folded_write(null, &s, &s, t.span);
				diff_svg_write(null, &s, &s, t.span, &o);
				diff_pprof_write(null, &s);
			}
			diff_table_free(&t);
		}
	}
	stackset_free(&s);
	return 0;
}
