// SPDX-License-Identifier: MIT
/* docgen man|bash|zsh: luabpfprof(1) or a completion script on stdout,
 * from the option table.  A build tool (Makefile: docs), not installed. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "cli/docgen.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*emit)(FILE *f);
	} outputs[] = { { "man", docgen_man }, { "bash", docgen_bash }, { "zsh", docgen_zsh } };

	for (size_t i = 0; argc == 2 && i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		if (strcmp(argv[1], outputs[i].name))
			continue;
		if (outputs[i].emit(stdout) || fflush(stdout))
			return 1;
		return 0;
	}
	log_error("usage: docgen man|bash|zsh");
	return 2;
}
