/* System-wide discovery: placeholder until -a lands. */
#include "sysscan.h"

#include "targets.h"

int sysscan_add_all(struct targets *ts)
{
	(void)ts;
	return 0;
}

void sysscan_poll(struct targets *ts, uint64_t now_ns)
{
	(void)ts;
	(void)now_ns;
}
