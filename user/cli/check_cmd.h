/* --check-kernel: whether this kernel's BPF verifier accepts what each
 * mode loads, with its statistics, without profiling anything. */
#ifndef LBP_CHECK_CMD_H
#define LBP_CHECK_CMD_H

struct options;

/* Prints a line per mode and program; 0 when every mode loads, else 1. */
int check_cmd_run(const struct options *o);

#endif
