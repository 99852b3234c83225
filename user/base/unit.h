/* SPDX-License-Identifier: MIT */
/* Minimal unit-test support: each test file is its own program that prints
 * "PASS: name" or "FAIL: name: why" per check; tests/run.sh counts them. */
#ifndef LBP_UNIT_H
#define LBP_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_failed;

#define CHECK(name, cond)                                                     \
	do {                                                                  \
		if (cond) {                                                   \
			printf("PASS: %s\n", name);                           \
		} else {                                                      \
			printf("FAIL: %s: %s (%s:%d)\n", name, #cond,         \
			       __FILE__, __LINE__);                           \
			unit_failed++;                                        \
		}                                                             \
	} while (0)

#define CHECK_STR(name, got, want)                                            \
	do {                                                                  \
		const char *g_ = (got), *w_ = (want);                         \
		if (g_ && w_ && !strcmp(g_, w_)) {                            \
			printf("PASS: %s\n", name);                           \
		} else {                                                      \
			printf("FAIL: %s: got [%s] want [%s] (%s:%d)\n", name,\
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)",        \
			       __FILE__, __LINE__);                           \
			unit_failed++;                                        \
		}                                                             \
	} while (0)

#define UNIT_EXIT() return unit_failed ? 1 : 0

#endif
