/* SPDX-License-Identifier: MIT */
/* --check-kernel: whether this kernel's BPF verifier accepts what each
 * mode loads, with its statistics, without profiling anything. */
#ifndef LBP_CHECK_CMD_H
#define LBP_CHECK_CMD_H

#include <signal.h>

#include <signal.h>

struct options;

/* Prints a line per mode and program; 0 when every mode loads, else 1. */
int check_cmd_run(const struct options *o, volatile sig_atomic_t *stop);

#endif
