// SPDX-License-Identifier: MIT
/* luabpfprof: parses the options, picks the subcommand's row
 * (cli/commands.h) and runs its entry point. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "cli/commands.h"
#include "cli/options.h"

#define EXIT_USAGE	2

/* The signal that asked the run to end (SIGINT, SIGTERM, SIGHUP), 0 until
 * then: written by the handler, polled by the command (a session's loop
 * each tick). */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	/* A second Ctrl-C: the user will not wait for the report or flush. */
	if (stop_signal)
		_exit(128 + sig);
	stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed SSH session: end with the report, like SIGINT.  The
	 * agent takes SIGHUP over for reopening its log. */
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int main(int argc, char **argv)
{
	const struct command *c;
	struct options o;

	switch (options_parse(argc, argv, &o)) {
	case OPTIONS_EXIT_OK:
		return 0;
	case OPTIONS_ERROR:
		return EXIT_USAGE;
	case OPTIONS_OK:
		break;
	}
	log_is_verbose = o.verbose;
	c = &commands[o.cmd];
	if (c->flags & CMDF_SIGNALS)
		install_signals();
	return c->run(&o, &stop_signal);
}
