// SPDX-License-Identifier: MIT
/* Validators and messages of the options that set what an event costs:
 * --off-cpu-rate (the share of context switches walked) and the -e alloc
 * duty cycle (--alloc-duty, or the always-on --alloc-exact), with the
 * warning --alloc-exact prints before it starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "cli/options_table.h"

/* "auto" (0: every switch up to a budget per CPU, then 1 in 2^k), a
 * probability in (0, 1] ("0.1"), or one in N ("1/10", N up to 10^6): the
 * share of a traced thread's switches out that are walked. */
int options_set_off_cpu_rate(struct options *o, const struct opt_row *r, const char *arg,
			     char *err, size_t len)
{
	char *end;
	double v;

	if (!strcmp(arg, "auto")) {
		v = 0;
	} else if (arg[0] == '1' && arg[1] == '/') {
		unsigned long long n = strtoull(arg + 2, &end, 10);

		v = arg[2] >= '1' && arg[2] <= '9' && !*end && n <= 1000000 ? 1.0 / (double)n : -1;
	} else {
		v = strtod(arg, &end);
		if (!*arg || *end || arg[0] < '0' || arg[0] > '9')
			v = -1;
	}
	if (strcmp(arg, "auto") && !(v >= 1e-6 && v <= 1)) {
		snprintf(err, len, "invalid %s '%s': expected auto, a probability from 0.000001 "
			 "to 1 (0.1) or one in N (1/10)", r->display, arg);
		return -1;
	}
	o->offcpu_rate = v;
	return 0;
}

/* The share of time the allocator probe is attached, in percent. */
int options_set_alloc_duty(struct options *o, const struct opt_row *r, const char *arg,
			   char *err, size_t len)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end == '%')
		end++;
	if (!*arg || *end || arg[0] < '0' || arg[0] > '9' || !(v >= 0.1 && v <= 100)) {
		snprintf(err, len, "invalid %s '%s': expected a percentage from 0.1 to 100 (3%%)",
			 r->display, arg);
		return -1;
	}
	o->alloc_duty = v / 100;
	return 0;
}

int options_check_alloc_exact(const struct options *o)
{
	if (o->alloc_exact_prod && !o->alloc_exact) {
		log_error("--alloc-exact-in-production goes with --alloc-exact");
		return -1;
	}
	if (!o->alloc_exact)
		return 0;
	if (o->event != PROFILE_ALLOC) {
		log_error("--alloc-exact needs -e alloc");
		return -1;
	}
	if (o->continuous && !o->alloc_exact_prod) {
		log_error("--alloc-exact slows the target 9-22x for as long as it runs: with "
			  "--continuous it also needs --alloc-exact-in-production");
		return -1;
	}
	return 0;
}

void options_warn_alloc_exact(const struct options *o)
{
	if (o->event != PROFILE_ALLOC || !o->alloc_exact)
		return;
	/* bench/RESULTS.md, figure 8. */
	log_warn("--alloc-exact traps on every allocation for the whole run: the target runs "
		 "about 9x slower building tables and up to 22x on allocation-only code "
		 "(the default -e alloc is attached %.0f%% of the time)", o->alloc_duty * 100);
}

unsigned long long options_alloc_every(const struct options *o)
{
	if (o->alloc_every)
		return o->alloc_every;
	return o->alloc_exact ? 512 << 10 : 16 << 10;
}
