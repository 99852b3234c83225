# luabpfprof: build, install dependencies, demo, tests.
# Runs as root on Debian 12; never calls sudo itself.

OUT       := .output
BPFTOOL   ?= bpftool
CLANG     ?= clang
CC        ?= cc
PKGS      := libbpf libelf libdw zlib libcurl

CFLAGS    ?= -O2 -g
CFLAGS    += -Wall -Wextra -Werror -std=gnu11 -I$(OUT) -Iuser -Ibpf
LDLIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lbpf -ldw -lelf -lz -lcurl)

ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
endif

BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_x86 -Ivmlinux -Ibpf -Wall -Werror

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))

# user/ is one folder per layer (user/README.md); unit tests sit beside the
# code they test as test_*.c and link against everything but main.
LAYERS    := base target model symbolize sample session report ship cli
USER_HDRS := $(wildcard user/*/*.h) bpf/sampler.h
UNIT_SRCS := $(wildcard user/*/test_*.c)
USER_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard user/*/*.c))
USER_OBJS := $(patsubst user/%.c,$(OUT)/user/%.o,$(USER_SRCS))
LIB_OBJS  := $(filter-out $(OUT)/user/cli/main.o,$(USER_OBJS))
UNIT_BINS := $(patsubst %.c,$(OUT)/tests/%,$(notdir $(UNIT_SRCS)))

.PHONY: all deps test-deps demo test unit bench clean
.DELETE_ON_ERROR:
.SECONDARY:

all: luabpfprof

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/*.h | $(OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

$(OUT)/user/%.o: user/%.c $(USER_HDRS) | $(OUT)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# Only the loaders include the generated skeletons.
$(OUT)/user/sample/collector.o $(OUT)/user/sample/collector_load.o $(OUT)/user/sample/collector_alloc.o $(OUT)/user/sample/collector_native.o \
	$(OUT)/user/sample/vmwatch.o: $(SKELS)

luabpfprof: $(USER_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

define unit_rule
$(OUT)/tests/$(basename $(notdir $(1))): $(1) $(USER_HDRS) $(LIB_OBJS) | $(OUT)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $(1) $$(LIB_OBJS) $$(LDLIBS)
endef
$(foreach src,$(UNIT_SRCS),$(eval $(call unit_rule,$(src))))

unit: $(UNIT_BINS)

$(OUT):
	mkdir -p $(OUT)/user $(OUT)/tests

# Debian packages: installed only when missing, so repeated runs stay fast.
deps:
	@tests/install-deps.sh core

test-deps:
	@tests/install-deps.sh test

demo: deps all
	@tests/demo.sh

test: deps test-deps all unit
	@tests/run.sh

bench: deps test-deps all
	@bench/run.sh

clean:
	rm -rf $(OUT) luabpfprof

# --- Sanitizers and fuzzing ----------------------------------------------------
# SANITIZE=1: a sanitizer report is fatal, so that a test run cannot miss it.
# Objects remember the flags they were built with: switching SANITIZE (or
# CFLAGS) rebuilds them instead of linking a mix.
ifeq ($(SANITIZE),1)
CFLAGS    += -fno-sanitize-recover=all
endif
FLAGS_STAMP := $(OUT)/flags.stamp
$(shell mkdir -p $(OUT)/user $(OUT)/tests && echo '$(CC) $(CFLAGS) $(LDFLAGS)' | \
	cmp -s - $(FLAGS_STAMP) || echo '$(CC) $(CFLAGS) $(LDFLAGS)' > $(FLAGS_STAMP))
$(USER_OBJS) $(UNIT_BINS): $(FLAGS_STAMP)

include tests/fuzz/fuzz.mk
