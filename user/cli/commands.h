/* SPDX-License-Identifier: MIT */
/* luabpfprof's subcommands, one row each: the word after "luabpfprof"
 * that names it, the option that picked it before it had a word (kept as
 * an alias), what it needs before it runs, its entry point, and its
 * usage line for -h and the man page.  A new subcommand is a row here
 * and a file of its own (cli/NAME_cmd.c); docs/extending.md. */
#ifndef LBP_COMMANDS_H
#define LBP_COMMANDS_H

#include <signal.h>
#include <stddef.h>

struct options;

/* What a command needs before its entry point runs. */
#define CMDF_SIGNALS	(1u << 0)	/* SIGINT, SIGTERM and SIGHUP end it with what it has */

/*  _(ID, word, alias, flags, entry point, usage after "luabpfprof WORD") */
#define COMMANDS(_) \
	_(RECORD, "record", NULL, CMDF_SIGNALS, record_cmd_run, \
	  "[OPTIONS] -p PID[,PID...] | -a | -- COMMAND [ARGS...]") \
	_(TOP, "top", NULL, CMDF_SIGNALS, record_cmd_run, \
	  "[OPTIONS] -p PID | -a | -- COMMAND") \
	_(DUMP, "dump", NULL, CMDF_SIGNALS, dump_cmd_run, \
	  "[--locals] [--json] [--sort age] [--with-query] -p PID[,PID...]") \
	_(HEAP, "heap", "--heap", CMDF_SIGNALS, heap_cmd_run, \
	  "[-d DUR] [-o FILE] -p PID") \
	_(CHECK_KERNEL, "check-kernel", "--check-kernel", 0, check_cmd_run, "") \
	_(DIFF, "diff", NULL, 0, diff_cmd_run, "[OPTIONS] BASE NEW")

enum command_id {
#define CMD_ENUM(id, word, alias, flags, run, usage) CMD_##id,
	COMMANDS(CMD_ENUM)
#undef CMD_ENUM
	CMD__COUNT
};

struct command {
	enum command_id id;
	const char *word;
	const char *alias;	/* NULL: none */
	unsigned flags;		/* CMDF_* */
	int (*run)(const struct options *o, volatile sig_atomic_t *stop);
	const char *usage;
};

extern const struct command commands[CMD__COUNT];

/* The row whose word is word, or NULL. */
const struct command *command_by_word(const char *word);

#endif
