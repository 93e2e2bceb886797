# shadowbind build.  See README.md.
#
#   make            libraries (build/lib*.a) and commands (bin/*)
#   make deps       install the Debian packages we need (when missing)
#   make check      build and run every test (cmocka)
#   make sanitize   the same under AddressSanitizer + UBSan (== make check SAN=1)
#   make mutants    plant each bug of tests/mutants.txt in a copy, run the
#                   suite, print which survive (not in CI; docs/HACKING.md)
#   make bench      build the benchmarks (bench/*), not run
#   make fuzz       build the libFuzzer harnesses (clang) into build/fuzz
#   make fuzz-quick run each harness for 15 s (CI)
#
# Overridable: BUILD (object dir), BIN (commands dir), MODULES, TESTS.
# Parallel developers use e.g. `make BUILD=/tmp/b BIN=/tmp/b/bin check`.

CC      ?= gcc
SAN     ?= 0
ifeq ($(SAN),1)
BUILD   ?= build/san
BIN     ?= build/san/bin
OPT     := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD   ?= build
BIN     ?= bin
OPT     := -O2 -g
endif

CFLAGS_ALL = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(OPT) -fopenmp -I. $(CFLAGS)
LDFLAGS_ALL = $(OPT) -fopenmp $(LDFLAGS)

# Layers, top to bottom: a module may use the modules to its right.  cmd/
# is the top layer: the commands' mains (every cmd/NAME.c becomes
# $(BIN)/NAME) and what they share (cmd/*.h, cmd/*.c without a main is
# linked into every command).  The other names are library modules, in
# link order; one that holds no .c files yet is skipped.
LAYERS  := cmd exp viz alloc bound gen mach record sim cli trace
# Exceptions to that order, from:to (make check-layers, docs/HACKING.md):
# the simulator and the recorder stand on trace alone.
LAYERS_DENY := sim:cli record:sim record:cli
MODULES ?= $(foreach m,$(filter-out cmd,$(LAYERS)),$(if $(wildcard $(m)/*.c),$(m)))
LIBS     = $(foreach m,$(MODULES),$(BUILD)/lib$(m).a)
SYSLIBS  = -lglpk -lgmp -lm

# A module adds its own system libraries, flags and extra targets in
# X/module.mk (SYSLIBS += ..., rules), so that modules do not share lines.
include $(wildcard */module.mk)

lib_srcs = $(wildcard $(1)/*.c)
# A command is a cmd/*.c that defines main (`int main(` at the start of a
# line); the other cmd/*.c hold what the commands share and go into
# $(BUILD)/libcmd.a, linked into every command before the libraries.
MAIN_RE  := ^int main[(]
CMD_SRCS := $(shell grep -l '$(MAIN_RE)' cmd/*.c 2>/dev/null)
CMD_LIB_SRCS := $(filter-out $(CMD_SRCS),$(wildcard cmd/*.c))
CMD_LIB  := $(if $(CMD_LIB_SRCS),$(BUILD)/libcmd.a)
CMDS     := $(patsubst %.c,$(BIN)/%,$(notdir $(CMD_SRCS)))
TESTS    ?= $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
TEST_BINS = $(patsubst %,$(BUILD)/tests/%,$(TESTS))
BENCH_SRCS := $(wildcard bench/*.c)
BENCHES  := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

.PHONY: all deps check check-layers sanitize mutants bench fuzz fuzz-quick clean
.SECONDARY:

all: $(CMDS)

define module_rules
$(BUILD)/lib$(1).a: $(patsubst %.c,$(BUILD)/%.o,$(call lib_srcs,$(1)))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach m,$(MODULES),$(eval $(call module_rules,$(m))))

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/libcmd.a: $(patsubst %.c,$(BUILD)/%.o,$(CMD_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

define cmd_rule
$(BIN)/$(notdir $(basename $(1))): $(patsubst %.c,$(BUILD)/%.o,$(1)) $(CMD_LIB) $(LIBS)
	@mkdir -p $$(@D)
	$(CC) $$< $(CMD_LIB) $(LIBS) $(LDFLAGS_ALL) $(SYSLIBS) -o $$@
endef
$(foreach c,$(CMD_SRCS),$(eval $(call cmd_rule,$(c))))

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/tests/testutil.o $(CMD_LIB) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $< $(BUILD)/tests/testutil.o $(CMD_LIB) $(LIBS) $(LDFLAGS_ALL) $(SYSLIBS) -lcmocka -o $@

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIBS)
	@mkdir -p $(@D)
	$(CC) $< $(LIBS) $(LDFLAGS_ALL) $(SYSLIBS) -o $@

# Tests find the commands, the repo and shared/ through the environment.
# LeakSanitizer is on under SAN=1, so leaks fail the tests.
check: check-layers $(CMDS) $(TEST_BINS)
	@fail=0; pass=0; skipped=0; bad=0; log=$$(mktemp); \
	for t in $(TEST_BINS); do \
	  echo "== $$t"; \
	  if SB_BIN=$(abspath $(BIN)) SB_ROOT=$(CURDIR) SB_SHARED=$(abspath ../shared) \
	     ASAN_OPTIONS=detect_leaks=1 $$t >$$log 2>&1; then st=0; else st=1; bad=$$((bad+1)); fi; \
	  cat $$log; \
	  p=$$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' $$log); \
	  f=$$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' $$log); \
	  k=$$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' $$log); \
	  pass=$$((pass+$${p:-0})); fail=$$((fail+$${f:-0})); skipped=$$((skipped+$${k:-0})); \
	  if [ $$st -ne 0 ] && [ -z "$$f" ]; then fail=$$((fail+1)); fi; \
	done; rm -f $$log; \
	echo "tests: $$pass passed, $$fail failed, $$skipped skipped"; \
	test $$fail -eq 0 && test $$bad -eq 0

# Every #include keeps to LAYERS and LAYERS_DENY (tests/check-layers.sh);
# the script first shows on a temporary tree that it reports violations.
check-layers:
	@sh tests/check-layers.sh --self-test "$(LAYERS)" "$(LAYERS_DENY)"
	@sh tests/check-layers.sh "$(LAYERS)" "$(LAYERS_DENY)"

sanitize:
	$(MAKE) SAN=1 check

# Plant each small bug of tests/mutants.txt, one at a time, in a copy of
# the tree and run the suite there; prints which survive (not in CI;
# docs/HACKING.md, Mutants).  MUTANTS=3,7-9 picks some.
mutants:
	sh tests/mutants.sh tests/mutants.txt $(MUTANTS)

bench: $(CMDS) $(BENCHES)

fuzz:
	$(MAKE) -C tests/fuzz OUT=$(abspath $(BUILD))/fuzz

# Every fuzz harness (tests/fuzz/fuzz_*.c) for 15 s each (CI; needs clang).
fuzz-quick:
	$(MAKE) -C tests/fuzz fuzz-quick OUT=$(abspath $(BUILD))/fuzz

# The package list lives in bootstrap.sh, which must work before make is
# installed.
deps:
	sh bootstrap.sh --deps

clean:
	rm -rf build bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]; make uninstall (same vars).
# Installs the commands, their man pages (generated from --help with
# help2man), the libraries of the core modules as libshadowbind_X.a, their
# public headers under include/shadowbind/X/, shadowbind.pc, and the
# recorder's and shadowbind-run's LD_PRELOAD libraries under
# lib/shadowbind/ (where the installed commands look: ../lib/shadowbind
# from their own directory, record/program.c), so that
#   cc prog.c $(pkg-config --cflags --libs shadowbind)
# builds a program that reads traces and calls the simulator.
PREFIX  ?= /usr/local
DESTDIR ?=
bindir   = $(PREFIX)/bin
libdir   = $(PREFIX)/lib
incdir   = $(PREFIX)/include/shadowbind
man1dir  = $(PREFIX)/share/man/man1
pcdir    = $(libdir)/pkgconfig
INSTALL_MODULES = $(filter alloc bound gen sim cli trace,$(MODULES))
INSTALL_HEADERS = $(filter-out %int.h,$(foreach m,$(INSTALL_MODULES),$(wildcard $(m)/*.h)))
MANPAGES = $(patsubst $(BIN)/%,$(BUILD)/man/%.1,$(CMDS))

$(BUILD)/man/%.1: $(BIN)/%
	@mkdir -p $(@D)
	help2man -N --no-discard-stderr -n "$$($< --help | awk 'p && /^$$/ {exit} p {printf "%s ", $$0} /^$$/ {p = 1}' | sed 's/[.;:] .*//; s/[.;: ]*$$//')" $< -o $@

# shadowbind.pc says PREFIX, the installed modules and MPI's link flags
# (alloc/module.mk): $(BUILD)/pc.vars
# holds those values and is rewritten (new mtime) only when they differ,
# so the .pc is rebuilt whenever one changes, e.g. after an install with
# another PREFIX (tests/test_cli_install.c installs with two).
PC_VARS = prefix=$(PREFIX) modules=$(INSTALL_MODULES) mpi=$(ALLOC_MPI_LIBS)
$(BUILD)/pc.vars: FORCE
	@mkdir -p $(@D)
	@echo '$(PC_VARS)' | cmp -s - $@ || echo '$(PC_VARS)' > $@

$(BUILD)/shadowbind.pc: Makefile $(BUILD)/pc.vars
	@mkdir -p $(@D)
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' \
	  'includedir=$${prefix}/include/shadowbind' '' \
	  'Name: shadowbind' \
	  'Description: trace-driven simulation and thread binding (Broberg 2002)' \
	  'Version: 1.0' \
	  'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} $(foreach m,$(INSTALL_MODULES),-lshadowbind_$(m)) -lglpk -lgmp -lgomp -lpthread -lzstd -lm $(ALLOC_MPI_LIBS)' > $@

install: all $(MANPAGES) $(BUILD)/shadowbind.pc
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) $(DESTDIR)$(man1dir) $(DESTDIR)$(pcdir)
	install -m 0755 $(CMDS) $(DESTDIR)$(bindir)
	install -m 0644 $(MANPAGES) $(DESTDIR)$(man1dir)
	for m in $(INSTALL_MODULES); do \
	  install -m 0644 $(BUILD)/lib$$m.a $(DESTDIR)$(libdir)/libshadowbind_$$m.a || exit 1; \
	  install -d $(DESTDIR)$(incdir)/$$m || exit 1; done
	for h in $(INSTALL_HEADERS); do install -m 0644 $$h $(DESTDIR)$(incdir)/$$h || exit 1; done
	install -m 0644 $(BUILD)/shadowbind.pc $(DESTDIR)$(pcdir)/shadowbind.pc
	install -d $(DESTDIR)$(libdir)/shadowbind
	install -m 0755 $(REC_PRELOAD) $(REC_RUN_PRELOAD) $(DESTDIR)$(libdir)/shadowbind

uninstall:
	rm -f $(foreach c,$(CMDS),$(DESTDIR)$(bindir)/$(notdir $(c)) $(DESTDIR)$(man1dir)/$(notdir $(c)).1)
	rm -f $(foreach m,$(INSTALL_MODULES),$(DESTDIR)$(libdir)/libshadowbind_$(m).a)
	rm -f $(foreach h,$(INSTALL_HEADERS),$(DESTDIR)$(incdir)/$(h)) $(DESTDIR)$(pcdir)/shadowbind.pc
	rm -f $(foreach l,$(REC_PRELOAD) $(REC_RUN_PRELOAD),$(DESTDIR)$(libdir)/shadowbind/$(notdir $(l)))
	-rmdir $(DESTDIR)$(libdir)/shadowbind 2>/dev/null
	-rmdir $(foreach m,$(INSTALL_MODULES),$(DESTDIR)$(incdir)/$(m)) $(DESTDIR)$(incdir) 2>/dev/null

.PHONY: install uninstall FORCE
FORCE:
