/* --heap: the heap census of each -p process, instead of a CPU profile. */
#ifndef LBP_HEAP_CMD_H
#define LBP_HEAP_CMD_H

struct options;

/* Runs the census and writes the report; returns the exit status. */
int heap_cmd_run(const struct options *o);

#endif
