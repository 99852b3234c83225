/* SPDX-License-Identifier: MIT */
/* The walk's side of heap_budget.c: what it may believe of an object's
 * claims and what its reads may cost (see heap_walk.h for the limits). */
#ifndef LBP_HEAP_BUDGET_H
#define LBP_HEAP_BUDGET_H

#include "heap/heap_walk.h"

/* Sets s->ctx.plausible and the reader's budget, once gc.total is read. */
void heap_budget_plan(struct heap_snapshot *s, const struct heap_limits *lim);

/* Drops what an object claims beyond what the VM can hold (counted). */
void heap_claim(struct heap_snapshot *s, struct heap_obj *o);

/* Drops the later of two overlapping separate parts (counted). */
void heap_claims_overlap(struct heap_snapshot *s);

#endif
