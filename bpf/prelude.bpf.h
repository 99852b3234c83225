/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What every BPF source of the sampler starts from: the kernel's types,
 * libbpf's helpers, and the types and LuaJIT constants shared with user
 * space.  Each header of bpf/ includes it (or one that does), so that it
 * compiles on its own (tests/t_layers.sh checks it).
 */
#ifndef LBP_PRELUDE_BPF_H
#define LBP_PRELUDE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "sampler.h"
#include "lj_consts.h"

#endif
