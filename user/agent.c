/* Continuous mode: placeholder until it lands. */
#include "agent.h"

#include "log.h"

int agent_run(const struct options *o, struct targets *ts, struct collector *col,
	      volatile sig_atomic_t *stop)
{
	(void)o;
	(void)ts;
	(void)col;
	(void)stop;
	log_error("--continuous: not supported yet");
	return 1;
}
