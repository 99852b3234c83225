// SPDX-License-Identifier: MIT
/* libFuzzer target: the BPF walker (both builds, walker_bpf.c) on a
 * walker snapshot of the input's choosing, seeded with the recorded ones
 * (tests/walker/snapshots): registers, VM addresses and memory mutated.
 * Whatever the memory says, the walk must end, within its bounds, with
 * no read outside what the snapshot holds (ASan, UBSan). */
#include <stdint.h>
#include <stdlib.h>

#include "shim.h"
#include "walker.h"
#include "walksnap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct walker_out out;
	struct walksnap s;
	struct walker_in in;

	if (walksnap_parse(data, size, &s))
		return 0;
	shim_set_reader(walksnap_read, &s);
	if (!walksnap_input(&s, 0, &in)) {
		walker_x86_run(&in, &out);
		/* Bounded, whatever was read. */
		if (out.st.nframes > LBP_MAX_FRAMES || out.st.nown > out.st.nframes)
			abort();
	}
	if (!walksnap_input(&s, 1, &in)) {
		walker_arm64_run(&in, &out);
		if (out.st.nframes > LBP_MAX_FRAMES || out.st.nown > out.st.nframes)
			abort();
	}
	walksnap_free(&s);
	return 0;
}
