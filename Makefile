# SPDX-License-Identifier: MIT
# luabpfprof: build, install dependencies, demo, tests.
# Runs as root on Debian 12; never calls sudo itself.

BPFTOOL   ?= bpftool
CLANG     ?= clang
PKGS      := libbpf libelf libdw zlib libcurl

# The target architecture, in the kernel's names (x86, arm64): this
# machine's unless ARCH says otherwise.  A build for another architecture
# (make ARCH=arm64 on x86-64) cross-compiles with Debian's cross gcc against
# that architecture's Debian libraries, unpacked into a sysroot by
# tests/arm64/sysroot.sh, into $(OUT)/luabpfprof; its docs come from the
# native build.  What differs per architecture in the code is listed in
# docs/arm64.md.
HOST_ARCH := $(shell uname -m | sed -e 's/^x86_64$$/x86/' -e 's/^aarch64$$/arm64/')
ARCH      ?= $(HOST_ARCH)
override ARCH := $(patsubst x86_64,x86,$(patsubst amd64,x86,$(patsubst aarch64,arm64,$(ARCH))))
ifeq ($(ARCH),$(HOST_ARCH))
OUT       := .output
BIN       := luabpfprof
CC        ?= cc
PKG_CONFIG := pkg-config
else
OUT       := .output-$(ARCH)
BIN       := $(OUT)/luabpfprof
CROSS_arm64 := aarch64-linux-gnu
CROSS     := $(or $(CROSS_$(ARCH)),$(error make ARCH=$(ARCH): no cross compiler known for it))
SYSROOT   ?= $(or $(LBP_CACHE),/var/cache/luabpfprof)/$(ARCH)/sysroot
CC        := $(CROSS)-gcc --sysroot=$(SYSROOT)
PKG_CONFIG := PKG_CONFIG_SYSROOT_DIR=$(SYSROOT) \
	PKG_CONFIG_LIBDIR=$(SYSROOT)/usr/lib/$(CROSS)/pkgconfig:$(SYSROOT)/usr/share/pkgconfig pkg-config
$(if $(wildcard $(SYSROOT)/usr/include/bpf/libbpf.h),,$(error no $(ARCH) sysroot at $(SYSROOT): run tests/arm64/sysroot.sh))
endif

CFLAGS    ?= -O2 -g
CFLAGS    += -Wall -Wextra -Werror -std=gnu11 -I$(OUT) -Iuser -Ibpf
LDLIBS    := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lbpf -ldw -lelf -lz -lcurl)
# luabpfprof top's screen (user/cli/top_screen.c): the wide-character
# ncurses where pkg-config knows it.
LDLIBS    += $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncurses)
# diff's intervals (user/model/diff_stats.c).
LDLIBS    += -lm

ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
endif

# The BPF side picks its registers (bpf/regs.bpf.h) and kernel types
# (vmlinux/ARCH/vmlinux.h, from that architecture's kernel BTF) by target.
BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Ibpf -Wall -Werror

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))

# user/ is one folder per layer (user/README.md); unit tests sit beside the
# code they test as test_*.c and link against everything but main.
LAYERS    := base proc container luajit heap jit native nginx model symbolize sample session report ship cli
USER_HDRS := $(wildcard user/*/*.h) bpf/sampler.h bpf/lj_consts.h
UNIT_SRCS := $(wildcard user/*/test_*.c)
# The man page and completion generator (user/cli/docgen*.c) is a build
# tool: linked with the option table, not into luabpfprof.
DOCGEN_SRCS := $(wildcard user/cli/docgen*.c)
USER_SRCS := $(filter-out $(UNIT_SRCS) $(DOCGEN_SRCS),$(wildcard user/*/*.c))
USER_OBJS := $(patsubst user/%.c,$(OUT)/user/%.o,$(USER_SRCS))
LIB_OBJS  := $(filter-out $(OUT)/user/cli/main.o,$(USER_OBJS))
DOCGEN_OBJS := $(patsubst user/%.c,$(OUT)/user/%.o,$(DOCGEN_SRCS))
TEST_OBJS := $(LIB_OBJS) $(filter-out %/docgen_main.o,$(DOCGEN_OBJS))
UNIT_BINS := $(patsubst %.c,$(OUT)/tests/%,$(notdir $(UNIT_SRCS)))

.PHONY: all docs deps test-deps demo test unit bench clean
.DELETE_ON_ERROR:
.SECONDARY:

ifeq ($(BIN),luabpfprof)
all: luabpfprof docs
else
all: $(BIN)
endif

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/*.h | $(OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

$(OUT)/user/%.o: user/%.c $(USER_HDRS) | $(OUT)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# Only the loaders include the generated skeletons.
$(OUT)/user/sample/collector.o $(OUT)/user/sample/collector_load.o $(OUT)/user/sample/collector_alloc.o $(OUT)/user/sample/collector_native.o \
	$(OUT)/user/sample/vmwatch.o: $(SKELS)

$(BIN): $(USER_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

define unit_rule
$(OUT)/tests/$(basename $(notdir $(1))): $(1) $(USER_HDRS) $(TEST_OBJS) | $(OUT)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) $$(LDFLAGS) -o $$@ $(1) $$(TEST_OBJS) $$(LDLIBS)
endef
$(foreach src,$(UNIT_SRCS),$(eval $(call unit_rule,$(src))))

unit: $(UNIT_BINS)

$(OUT):
	mkdir -p $(OUT)/user $(OUT)/tests

# Debian packages: installed only when missing, so repeated runs stay fast.
deps:
	@tests/install-deps.sh core

test-deps: deps
	@tests/install-deps.sh test

demo: deps all
	@tests/demo.sh

# make test: set-up, then the build on every CPU, then the suite (which
# schedules its own jobs, tests/run.sh); each part prints its time.
NPROC := $(shell nproc 2>/dev/null || echo 1)
test:
	@s=$$(date +%s); $(MAKE) --no-print-directory deps test-deps && \
		echo "time: set-up $$(($$(date +%s) - s)) s"
	@s=$$(date +%s); $(MAKE) --no-print-directory -j$(NPROC) all unit && \
		echo "time: build $$(($$(date +%s) - s)) s"
	@tests/run.sh

bench: deps test-deps all
	@bench/run.sh

clean:
	rm -rf $(OUT) luabpfprof luabpfprof.1

# --- Sanitizers and fuzzing ----------------------------------------------------
# SANITIZE=1: a sanitizer report is fatal, so that a test run cannot miss it.
# Objects remember the flags they were built with: switching SANITIZE (or
# CFLAGS) rebuilds them instead of linking a mix.
ifeq ($(SANITIZE),1)
CFLAGS    += -fno-sanitize-recover=all
endif
FLAGS_STAMP := $(OUT)/flags.stamp
$(shell mkdir -p $(OUT)/user $(OUT)/tests && echo '$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)' | \
	cmp -s - $(FLAGS_STAMP) || echo '$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)' > $(FLAGS_STAMP))
$(USER_OBJS) $(DOCGEN_OBJS) $(UNIT_BINS): $(FLAGS_STAMP)

include tests/fuzz/fuzz.mk
include tests/walker/walker.mk

# --- Version, man page, completions, install -----------------------------------
# The version has one source, VERSION (debian/changelog must agree:
# debian/rules checks); the commit from git (LBP_COMMIT= overrides).  The
# date is the commit's, or SOURCE_DATE_EPOCH's, so that a rebuild of the
# same commit gives the same man page.  $(OUT)/cli/version.h is rewritten
# only when one of them changes.
LBP_VERSION := $(shell cat VERSION)
LBP_COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
	git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
LBP_DATE    := $(shell date -u -d "@$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || \
	date +%s)}" +%Y-%m-%d)
VERSION_H   := $(OUT)/cli/version.h
VERSION_TXT := \#define LUABPFPROF_VERSION "$(LBP_VERSION)"\n\#define LUABPFPROF_COMMIT "$(LBP_COMMIT)"\n\#define LUABPFPROF_DATE "$(LBP_DATE)"
$(shell mkdir -p $(OUT)/cli && printf '$(VERSION_TXT)\n' | cmp -s - $(VERSION_H) || \
	printf '$(VERSION_TXT)\n' > $(VERSION_H))
$(OUT)/user/cli/options_help.o $(OUT)/user/cli/docgen_man.o: $(VERSION_H)

# The man page and the completions come from the option table, through
# $(OUT)/docgen: -h, luabpfprof(1) and <TAB> cannot disagree.
COMPLETIONS := $(OUT)/completion/luabpfprof $(OUT)/completion/_luabpfprof
docs: luabpfprof.1 $(COMPLETIONS)

$(OUT)/docgen: $(DOCGEN_OBJS) $(LIB_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

luabpfprof.1: $(OUT)/docgen
	$< man > $@

$(OUT)/completion/luabpfprof: $(OUT)/docgen
	@mkdir -p $(@D)
	$< bash > $@

$(OUT)/completion/_luabpfprof: $(OUT)/docgen
	@mkdir -p $(@D)
	$< zsh > $@

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the man page,
# bash and zsh completions, the systemd unit (disabled; ExecStart names the
# installed binary) and the docs.  Nothing of the build tree is read at run
# time: the BPF objects are compiled into the binary (bpftool gen skeleton),
# the fast-function names too (user/symbolize/ffnames.c).
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/luabpfprof
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
UNITDIR     ?= $(PREFIX)/lib/systemd/system
DOC_FILES   := README.md $(wildcard docs/*.md docs/*.svg)
INSTALLED   := $(BINDIR)/luabpfprof $(MANDIR)/man1/luabpfprof.1 $(BASHCOMPDIR)/luabpfprof \
	$(ZSHCOMPDIR)/_luabpfprof $(UNITDIR)/luabpfprof.service \
	$(addprefix $(DOCDIR)/,$(DOC_FILES))

.PHONY: install uninstall
install: all
	install -D -m 755 luabpfprof $(DESTDIR)$(BINDIR)/luabpfprof
	install -D -m 644 luabpfprof.1 $(DESTDIR)$(MANDIR)/man1/luabpfprof.1
	install -D -m 644 $(OUT)/completion/luabpfprof $(DESTDIR)$(BASHCOMPDIR)/luabpfprof
	install -D -m 644 $(OUT)/completion/_luabpfprof $(DESTDIR)$(ZSHCOMPDIR)/_luabpfprof
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/local/bin/luabpfprof|$(BINDIR)/luabpfprof|' contrib/luabpfprof.service \
		> $(DESTDIR)$(UNITDIR)/luabpfprof.service
	chmod 644 $(DESTDIR)$(UNITDIR)/luabpfprof.service
	$(foreach f,$(DOC_FILES),install -D -m 644 $(f) $(DESTDIR)$(DOCDIR)/$(f) &&) true

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# --- A node agent that needs nothing of the host but its kernel ----------------
# make bundle [BUNDLE_PREFIX=/opt/luabpfprof]: luabpfprof with every shared
# library it loads and glibc's dynamic loader (contrib/bundle.sh says why not
# -static), laid out under $(OUT)/bundle/$(BUNDLE_PREFIX) and packed in
# $(BUNDLE_TAR) (tar -C / -xzf it).  The BPF objects are inside the binary
# (skeletons).  The container image (contrib/Containerfile) is built from
# $(OUT)/bundle.  Native builds only: ldd lists the libraries.
BUNDLE_PREFIX ?= /opt/luabpfprof
BUNDLE_ROOT   := $(OUT)/bundle
BUNDLE_TAR    := $(OUT)/luabpfprof-$(LBP_VERSION)-$(shell uname -m)-bundle.tar.gz
BUNDLE_INTERP  = $(shell readelf -p .interp luabpfprof | sed -n 's/^ *\[ *0\] *//p')

.PHONY: bundle
bundle: $(OUT)/luabpfprof.bundled $(BUNDLE_TAR)

$(OUT)/luabpfprof.bundled: $(USER_OBJS) luabpfprof
	$(CC) $(LDFLAGS) -Wl,--dynamic-linker=$(BUNDLE_PREFIX)/lib/$(notdir $(BUNDLE_INTERP)) \
		-Wl,--disable-new-dtags -Wl,-rpath,'$(BUNDLE_PREFIX)/lib:$$ORIGIN/../lib' -o $@ $(USER_OBJS) $(LDLIBS)

$(BUNDLE_TAR): $(OUT)/luabpfprof.bundled luabpfprof.1 contrib/bundle.sh
	contrib/bundle.sh $(BUNDLE_ROOT) $(BUNDLE_PREFIX) $< luabpfprof.1
	tar -C $(BUNDLE_ROOT) --owner=0 --group=0 --mode=go-w --sort=name -czf $@ $(patsubst /%,%,$(BUNDLE_PREFIX))
