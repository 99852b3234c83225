# SPDX-License-Identifier: MIT
# Fuzzing, included by the Makefile.  `make fuzz` builds the libFuzzer
# targets of tests/fuzz (clang, libFuzzer, ASan and UBSan: Debian's
# libclang-rt-14-dev) and runs each for FUZZ_TIME seconds on the seed
# corpus of real process snapshots (tests/fuzz/corpus).  `make fuzz-snapshot`
# builds the tool that takes such snapshots (tests/fuzz/README.md).

FUZZ_CC     ?= clang
FUZZ_TIME   ?= 60
FUZZ_DIR    := $(OUT)/fuzz
FUZZ_FLAGS  := -g -O1 -std=gnu11 -fno-omit-frame-pointer \
	       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	       -I$(OUT) -Iuser -Ibpf -Itests/fuzz
FUZZ_LINK   := -fsanitize=fuzzer,address,undefined
# User space goes into an archive, so that a target links only what it
# reaches (memory images, layouts, the symbolizer, the profile model, every
# exporter and view), never BPF or the network.  Those files are checked
# with -Werror by the main build; here clang compiles them quietly.
FUZZ_UNITS  := $(filter-out cli/main sample/collector sample/collector_alloc sample/collector_native sample/vmwatch,$(patsubst user/%.c,%,$(USER_SRCS)))
FUZZ_LIB    := $(FUZZ_DIR)/libuser.a
FUZZ_BINS   := $(FUZZ_DIR)/fuzz_symbolize $(FUZZ_DIR)/fuzz_vm $(FUZZ_DIR)/fuzz_heap \
	       $(FUZZ_DIR)/fuzz_native $(FUZZ_DIR)/fuzz_profile_read

$(FUZZ_DIR)/obj/%.o: user/%.c $(USER_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -w -c $< -o $@

$(FUZZ_DIR)/obj/%.o: tests/fuzz/%.c tests/fuzz/*.h $(USER_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wall -Wextra -Werror -c $< -o $@

$(FUZZ_LIB): $(patsubst %,$(FUZZ_DIR)/obj/%.o,$(FUZZ_UNITS))
	rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz_%.o $(FUZZ_DIR)/obj/snapfmt.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_LINK) -o $@ $^ -ldw -lelf -lz -lpthread -lm

# The snapshot tool: the real collector and discovery, with a memory reader
# that records what the symbolizer reads (it replaces memory.o).
$(FUZZ_DIR)/snapshot: tests/fuzz/snapshot.c tests/fuzz/recmem.c tests/fuzz/snapfmt.c \
		      tests/fuzz/*.h $(filter-out $(OUT)/user/proc/memory.o,$(LIB_OBJS))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/fuzz $(LDFLAGS) -o $@ $(filter %.c %.o,$^) $(LDLIBS)

.PHONY: fuzz fuzz-build fuzz-snapshot
fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZ_BINS)

fuzz-snapshot: $(FUZZ_DIR)/snapshot
