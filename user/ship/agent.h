/* Continuous mode (--continuous): profile until stopped, cut the samples
 * into back-to-back intervals, one delta profile per process (or per
 * --service) each, and hand them to the sinks (rolling files, HTTP push). */
#ifndef LBP_AGENT_H
#define LBP_AGENT_H

#include <signal.h>

struct collector;
struct options;
struct targets;

/* Runs until SIGINT/SIGTERM (*stop becomes non-zero), then flushes the
 * current interval.  Returns the process exit status. */
int agent_run(const struct options *o, struct targets *ts, struct collector *col,
	      volatile sig_atomic_t *stop);

#endif
