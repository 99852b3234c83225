// SPDX-License-Identifier: MIT
/* Which subcommand the options pick (cli/commands.h): its word, else an
 * alias option, else record.  The flags the older code reads (top, dump,
 * diff, heap, check_kernel) are kept in step; a new command needs none of
 * them: it reads o->cmd. */
#include "cli/options.h"

void command_select(struct options *o, enum command_id id)
{
	o->cmd = id;
	o->top = id == CMD_TOP;
	o->dump = id == CMD_DUMP;
	o->diff = id == CMD_DIFF;
	if (id == CMD_HEAP)
		o->heap = true;
	if (id == CMD_CHECK_KERNEL)
		o->check_kernel = true;
}

void command_resolve(struct options *o)
{
	if (o->cmd != CMD_RECORD)
		return;
	if (o->check_kernel)
		o->cmd = CMD_CHECK_KERNEL;
	/* --heap --continuous is the agent, shipping heap profiles too. */
	else if (o->heap && !o->continuous)
		o->cmd = CMD_HEAP;
}
