# gpuidx -- non-recursive Makefile with automatic dependency files.
#
#   make            build build/gpuidx
#   make test       install missing Debian packages, build, run every test
#                   (TEST_JOBS=2 programs at a time; one line per test
#                   program as it ends; whole outputs in <build>/tests/last.log)
#   make check      the same tests built with ASan+UBSan (build-san/)
#   make tsan       the tests of the threaded modules (ingest/pipe.c,
#                   index/build.c) built with ThreadSanitizer (build-tsan/)
#   make fuzz       build the libFuzzer targets fuzz/fuzz_*.c with clang
#                   (build-fuzz/) and run each over its seed corpus
#   make fuzz-run   fuzz each target for FUZZ_SECONDS (600) in turn
#   make demo       generate the demo market and run the whole pipeline
#   make docs       regenerate the generated parts of the docs (tools/docs.py);
#                   make docs-check says which differ from a fresh run
#   make bench      run the benchmarks in bench/ (see BENCHMARKS.md)
#   make install PREFIX=/usr/local
#
# Warnings are errors (WERROR=0 to relax locally).  BUILD selects the
# output tree so sanitizer and normal objects never mix.

CC       ?= cc
CFLAGS   ?= -O2 -g
WERROR   ?= 1
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wno-format-nonliteral -Wno-format-truncation -Wvla
ifeq ($(WERROR),1)
WARN     += -Werror
endif
# -Wconversion (in C it includes -Wsign-conversion): implicit conversions
# that may change a value are errors, in every directory.
# WCONV= turns it off (the fuzz build does: clang's -Wconversion is wider).
WCONV    ?= -Wconversion
PREFIX   ?= /usr/local
CPPFLAGS += -I. -pthread -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
            -DGPUIDX_SRCDIR='"$(CURDIR)"' -DGPUIDX_PREFIX='"$(PREFIX)"'
CSV_LIBS ?= $(shell pkg-config --libs libcsv 2>/dev/null || echo -lcsv)
DEP_LIBS := -lsqlite3 $(CSV_LIBS) -ljansson -lgsl -lgslcblas -lcrypto -lz
# The libraries above are linked statically when every one has its .a (the
# Debian -dev packages ship them): a process of the daily job then starts
# in ~1 ms instead of ~3 ms (no relocations of libcrypto and libgsl) and
# calls SQLite without the PLT -- about a tenth of the daily job's CPU
# (BENCHMARKS.md).  STATIC_DEPS=0 links them as shared libraries; so does
# a system without the archives.  Recursive (=): evaluated at link time,
# after `deps` has installed the packages.
STATIC_DEPS ?= 1
# "missing" once per archive not found (resolved once, at the first link)
DEP_AR    = $(eval DEP_AR := $(shell for l in $(patsubst -l%,%,$(DEP_LIBS)); do \
              f=$$($(CC) -print-file-name=lib$$l.a); [ -f "$$f" ] || echo missing; done))$(DEP_AR)
comma    := ,
# -ldl: libsqlite3.a and libcrypto.a call dlopen, which glibc < 2.34 keeps
# in libdl (an empty library since)
LDLIBS    = $(if $(and $(filter 1,$(STATIC_DEPS)),$(if $(DEP_AR),,ok)),\
              -Wl$(comma)-Bstatic $(DEP_LIBS) -Wl$(comma)-Bdynamic -ldl,$(DEP_LIBS)) -lm -pthread
BUILD    ?= build

MODULES  := core ingest load store index curve publish settlement hedge cost sim site verify
SRC      := $(sort $(foreach m,$(MODULES),$(wildcard $(m)/*.c)))
OBJ      := $(SRC:%.c=$(BUILD)/%.o)
CLI_SRC  := $(sort $(wildcard cli/*.c))
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TESTS    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_UTIL := $(BUILD)/tests/testutil.o

all: $(BUILD)/gpuidx

$(BUILD)/gpuidx: $(CLI_OBJ) $(BUILD)/libgpuidx.a $(BUILD)/link.flags
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libgpuidx.a $(LDLIBS)

# What a link takes besides the objects: the flags and, linked statically,
# the archives themselves (size and time).  Rewritten only when that
# changes, so STATIC_DEPS=0 or an updated -dev package relinks everything.
$(BUILD)/link.flags: FORCE
	@mkdir -p $(@D)
	@{ echo '$(CC) $(CFLAGS) $(LDFLAGS) $(LDLIBS)'; \
	  for l in $(patsubst -l%,%,$(DEP_LIBS)); do f=$$($(CC) -print-file-name=lib$$l.a); \
	    [ -f "$$f" ] && ls -lL --time-style=+%s "$$f"; done; true; } > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

$(BUILD)/libgpuidx.a: $(OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(WARN) $(WCONV) $(CFLAGS) -MMD -MP -c -o $@ $<

# The test-only hooks of store/testing.h compile only with GPI_STORE_TESTING:
# tests/ use them and store/ defines them; any other includer fails to build.
$(BUILD)/tests/%.o $(BUILD)/store/%.o: CPPFLAGS += -DGPI_STORE_TESTING

# A static pattern rule, so the test objects are explicit prerequisites:
# with an implicit chain make deleted them as intermediates after each
# build, and the next `make test` compiled and linked every test again.
$(TESTS): $(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_UTIL) $(BUILD)/libgpuidx.a $(BUILD)/link.flags
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_UTIL) $(BUILD)/libgpuidx.a $(LDLIBS) -lcmocka

deps:
	@sh tools/deps.sh

# Runs every test binary from the source tree (fixtures are relative to it)
# with GPUIDX_BIN pointing at the binary under test, TEST_JOBS at a time
# (longest first, by the times of the last run in <build>/tests/times);
# prints one line per binary as it ends (its whole output when a test
# failed), one closing line, and every output into <build>/tests/last.log.
TEST_JOBS ?= 2
RUN_TESTS = JOBS=$(TEST_JOBS) TEST_TIMES="$(CURDIR)/$(1)/tests/times" \
            TEST_LOG="$(CURDIR)/$(1)/tests/last.log" sh tools/run-tests.sh
test: deps
	@sh tools/lint-tests.sh
	@$(MAKE) --no-print-directory all-tests
	@GPUIDX_BIN="$(CURDIR)/$(BUILD)/gpuidx" $(call RUN_TESTS,$(BUILD)) $(TESTS)

all-tests: $(BUILD)/gpuidx $(TESTS)

check: deps
	@$(MAKE) --no-print-directory BUILD=build-san WERROR=1 \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" all-tests
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  GPUIDX_BIN="$(CURDIR)/build-san/gpuidx" $(call RUN_TESTS,build-san) $(TESTS:$(BUILD)/%=build-san/%)

# ThreadSanitizer: the tests that run the two threaded modules -- the
# parser thread of ingest/pipe.c and the read-ahead threads of
# index/build.c -- through the library and the binary.
TSAN_TESTS := test_ingest_pipe test_e2e_ingest test_e2e_index test_e2e_reliability test_e2e_kill
tsan: deps
	@$(MAKE) --no-print-directory BUILD=build-tsan WERROR=1 \
	  CFLAGS="-O1 -g -fsanitize=thread -fno-omit-frame-pointer" LDFLAGS="-fsanitize=thread" \
	  build-tsan/gpuidx $(TSAN_TESTS:%=build-tsan/tests/%)
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66" GPUIDX_BIN="$(CURDIR)/build-tsan/gpuidx" \
	  $(call RUN_TESTS,build-tsan) $(TSAN_TESTS:%=build-tsan/tests/%)

# libFuzzer (clang; tools/deps.sh fuzz installs it): the library built with
# the fuzzer's coverage and ASan+UBSan, one binary per fuzz/fuzz_*.c.
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=build-fuzz/fuzz/%)
FUZZ_SECONDS ?= 600
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
fuzz:
	@sh tools/deps.sh fuzz
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang WCONV= \
	  WARN="$(filter-out -Wno-format-truncation,$(WARN))" \
	  CFLAGS="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" fuzz-bins
	@sh tools/fuzz.sh corpus $(FUZZ_BIN)

fuzz-run: fuzz
	@sh tools/fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_BIN)

fuzz-bins: $(FUZZ_BIN)

build-fuzz/fuzz/%: fuzz/%.c $(wildcard fuzz/*.h) $(BUILD)/libgpuidx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libgpuidx.a $(LDLIBS)

demo: deps-build all
	@sh tools/demo.sh $(BUILD)/gpuidx

# The generated parts of README.md, docs/*.md and BENCHMARKS.md (tools/docs.py):
# `make docs` runs them again on a fresh demo (and the real catalogue where
# ../shared has it) and writes them; `make docs-check` says which differ.
docs: all
	@python3 tools/docs.py update --bin $(BUILD)/gpuidx

docs-check: all
	@python3 tools/docs.py check --bin $(BUILD)/gpuidx

deps-build:
	@sh tools/deps.sh build

bench: deps-build all
	@sh bench/run.sh $(BUILD)/gpuidx

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/gpuidx
	install -m 755 $(BUILD)/gpuidx $(DESTDIR)$(PREFIX)/bin/gpuidx
	install -m 644 data/*.csv data/*.json $(DESTDIR)$(PREFIX)/share/gpuidx/
	install -d $(DESTDIR)$(PREFIX)/share/gpuidx/schema
	install -m 644 schema/*.json $(DESTDIR)$(PREFIX)/share/gpuidx/schema/

clean:
	rm -rf build build-san build-tsan build-fuzz

.PHONY: FORCE all deps deps-build docs docs-check test all-tests check tsan fuzz fuzz-run fuzz-bins demo bench install clean
-include $(OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TESTS:=.d) $(TEST_UTIL:.o=.d)
