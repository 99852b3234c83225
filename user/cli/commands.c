// SPDX-License-Identifier: MIT
/* The subcommand table (cli/commands.h). */
#include <string.h>

#include "cli/commands.h"
#include "cli/check_cmd.h"
#include "cli/diff_cmd.h"
#include "cli/dump_cmd.h"
#include "cli/heap_cmd.h"
#include "cli/record_cmd.h"

const struct command commands[CMD__COUNT] = {
#define CMD_ROW(id, word, alias, flags, run, usage) \
	[CMD_##id] = { CMD_##id, word, alias, flags, run, usage },
	COMMANDS(CMD_ROW)
#undef CMD_ROW
};

const struct command *command_by_word(const char *word)
{
	for (size_t i = 0; word && i < CMD__COUNT; i++)
		if (!strcmp(commands[i].word, word))
			return &commands[i];
	return NULL;
}
