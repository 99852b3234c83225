/* SPDX-License-Identifier: MIT */
/* bpf/sampler.h with the kernel's fixed-width types, for user space. */
#ifndef LBP_SAMPLER_TYPES_H
#define LBP_SAMPLER_TYPES_H

#include <linux/types.h>

#include "sampler.h"

#endif
