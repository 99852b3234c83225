# SPDX-License-Identifier: MIT
# The BPF walker under test in user space (tests/walker/README.md),
# included by the Makefile.  bpf/sampler.bpf.c is compiled as it is, once
# per architecture, against the shim in tests/walker/shim (kernel types,
# helpers, maps over static storage); each object keeps only its
# walker_ARCH_run global, so both link into one program.
# `make unit` builds test_walker (tests/run.sh runs it with the unit
# programs); `make walker-record` the tool that takes its snapshots.

OBJCOPY     ?= objcopy
WALKER_DIR  := $(OUT)/walker
WALKER_ARCHS := x86 arm64
WALKER_BPF  := $(patsubst %,$(WALKER_DIR)/bpf_%.o,$(WALKER_ARCHS))
WALKER_SRCS := tests/walker/shim.c tests/walker/walksnap.c tests/walker/walkexp.c
WALKER_HDRS := $(wildcard tests/walker/*.h tests/walker/shim/*.h tests/walker/shim/bpf/*.h)
# The BPF sources are checked by clang -Wall -Werror in the BPF build; here
# they are also plain C: parameters one architecture does not use, and
# attributes only BPF has (preserve_access_index), are not errors.
WALKER_BPF_CFLAGS := -Itests/walker/shim $(CFLAGS) -Itests/walker -Wno-unused-parameter -Wno-attributes

$(WALKER_DIR)/bpf_%.o: tests/walker/walker_bpf.c $(BPF_SRCS) bpf/*.h $(WALKER_HDRS) $(USER_HDRS) | $(OUT)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(WALKER_BPF_CFLAGS) -D__TARGET_ARCH_$* -c $< -o $@.tmp
	$(OBJCOPY) --keep-global-symbol=walker_$*_run $@.tmp $@
	@rm -f $@.tmp

$(OUT)/tests/test_walker: tests/walker/test_walker.c $(WALKER_SRCS) $(WALKER_BPF) $(WALKER_HDRS) \
			  $(USER_HDRS) $(TEST_OBJS) | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/walker $(LDFLAGS) -o $@ $(filter %.c %.o,$^) $(LDLIBS)

$(WALKER_DIR)/record: tests/walker/record.c $(WALKER_SRCS) $(WALKER_BPF) $(WALKER_HDRS) \
		      $(USER_HDRS) $(LIB_OBJS) | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/walker $(LDFLAGS) -o $@ $(filter %.c %.o,$^) $(LDLIBS)

unit: $(OUT)/tests/test_walker
$(WALKER_BPF) $(OUT)/tests/test_walker $(WALKER_DIR)/record: $(FLAGS_STAMP)

.PHONY: walker-record
walker-record: $(WALKER_DIR)/record

# The fuzzer drives it too (make fuzz): fuzz_walker, the same objects
# built with the fuzz flags, seeded with the recorded snapshots.
FUZZ_WALKER_BPF := $(patsubst %,$(FUZZ_DIR)/walker/bpf_%.o,$(WALKER_ARCHS))

$(FUZZ_DIR)/walker/bpf_%.o: tests/walker/walker_bpf.c $(BPF_SRCS) bpf/*.h $(WALKER_HDRS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -Itests/walker/shim $(FUZZ_FLAGS) -Itests/walker -w -D__TARGET_ARCH_$* -c $< -o $@.tmp
	$(OBJCOPY) --keep-global-symbol=walker_$*_run $@.tmp $@
	@rm -f $@.tmp

$(FUZZ_DIR)/walker/%.o: tests/walker/%.c $(WALKER_HDRS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Itests/walker -Wall -Wextra -Werror -c $< -o $@

$(FUZZ_DIR)/fuzz_walker: $(FUZZ_DIR)/walker/fuzz_walker.o $(FUZZ_WALKER_BPF) \
			 $(patsubst tests/walker/%.c,$(FUZZ_DIR)/walker/%.o,$(WALKER_SRCS)) $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_LINK) -o $@ $^ -ldw -lelf -lz -lpthread

FUZZ_BINS   += $(FUZZ_DIR)/fuzz_walker
fuzz-build: $(FUZZ_DIR)/fuzz_walker
