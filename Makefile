# ptdb: build, test, install.  See README.md.
CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
PYTHON  ?= python3

PKGS     = libedit libelf json-c capstone
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I.
CFLAGS  += $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -I/usr/include/libdwarf
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -ldwarf -lipt -lZydis -liberty -ldeflate -lz -lm -lpthread
ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
export ASAN_OPTIONS ?= detect_leaks=1
export LSAN_OPTIONS ?= suppressions=$(CURDIR)/tests/lsan.supp
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
endif

# Debian packages the build and the tests use.
DEB_PKGS = gcc g++ make pkg-config python3 libipt-dev libedit-dev \
	libcapstone-dev libdwarf-dev libelf-dev libjson-c-dev libzydis-dev libiberty-dev \
	zlib1g-dev libdeflate-dev mandoc gdb tmux valgrind clang libfuzzer-14-dev \
	binutils libc6-dbg lldb-16 qemu-user liblldb-22 nodejs golang-go luajit \
	libzstd-dev libgtest-dev coreutils

# LLDB 22's command-line program (tests/lldb22_test.py loads ptdb's bundles
# in it).  Debian's lldb-22 conflicts with lldb-16 (their python3-lldb
# packages), which the variable comparison uses, so the program is taken out
# of the lldb-22 package into tests/deps/ and runs on the installed
# liblldb-22.
LLDB22 = tests/deps/lldb-22/usr/lib/llvm-22/bin/lldb

LIB_SRCS  = $(wildcard base/*.c core/*/*.c target/*.c trace/*.c disasm/*.c) \
	$(filter-out cmd/main.c,$(wildcard cmd/*.c))
LIB_OBJS  = $(LIB_SRCS:.c=.o)
HDRS      = $(wildcard */*.h core/*/*.h)
UNIT_SRCS = $(wildcard tests/unit/test-*.c)
UNIT_BINS = $(UNIT_SRCS:.c=)
PROG_C    = $(wildcard tests/programs/*.c)
PROG_CXX  = $(wildcard tests/programs/*.cpp)
PROGS     = $(PROG_C:.c=) $(PROG_CXX:.cpp=) tests/programs/libplugin.so \
	tests/programs/vars_o2 tests/programs/vars_o2_dw4 tests/programs/vars_tu tests/programs/vars_dw64 \
	tests/programs/go_hello

# Fuzz harnesses (tests/fuzz/fuzz_*.c): libFuzzer binaries built with clang
# for 'make fuzz', and replay drivers built with $(CC) that 'make check' runs
# on the committed corpus (tests/fuzz/corpus/<harness>/).
FUZZ_NAMES   = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAYS = $(FUZZ_NAMES:%=tests/fuzz/replay-%)
FUZZ_BINS    = $(FUZZ_NAMES:%=tests/fuzz/bin/fuzz-%)
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS   = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) \
	-DFUZZ_ROOT='"$(CURDIR)"' -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_OBJS     = $(LIB_SRCS:%.c=tests/fuzz/build/%.o)
.SECONDARY: $(FUZZ_OBJS)

all: ptdb

ptdb: cmd/main.o libptdb.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

libptdb.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

%.o: %.c $(HDRS)
	$(CC) $(CFLAGS) -c -o $@ $<

tests/unit/test-%: tests/unit/test-%.c $(wildcard tests/unit/*.h) libptdb.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< libptdb.a $(LDLIBS)

# (a signal sent to the thread as an injected call's step starts)
tests/unit/test-cache-inject: LDFLAGS += -Wl,--wrap=target_thread_step

# Fixture programs: -g -O0, no PIE so addresses match the transcripts.
tests/programs/%: tests/programs/%.c
	gcc -g -O0 -no-pie -fno-pie -o $@ $<
tests/programs/%: tests/programs/%.cpp
	g++ -g -O0 -no-pie -fno-pie -pthread -o $@ $<
# The same data optimized, as a PIE: location lists, registers, the load bias.
tests/programs/vars_o2: tests/programs/vars.c
	gcc -g -O2 -fpie -pie -o $@ $<
# ... with DWARF 4: .debug_loc and .debug_ranges instead of DWARF 5's lists.
tests/programs/vars_o2_dw4: tests/programs/vars.c
	gcc -gdwarf-4 -O2 -fpie -pie -o $@ $<
# ... -O0 with its types in DWARF 4 type units (.debug_types, ref_sig8).
tests/programs/vars_tu: tests/programs/vars.c
	gcc -gdwarf-4 -fdebug-types-section -O0 -no-pie -fno-pie -o $@ $<
# ... DWARF 5 in its 64-bit format, its types in type units of .debug_info.
tests/programs/vars_dw64: tests/programs/vars.c
	gcc -gdwarf-5 -gdwarf64 -fdebug-types-section -O0 -no-pie -fno-pie -o $@ $<
# An optimized PIE whose DWARF names a source tree that has moved.
tests/programs/inline_o2: tests/programs/inline_o2.c
	gcc -g -O2 -fPIE -pie -fdebug-prefix-map=$(CURDIR)=/ptdb-moved -o $@ $<
# Stepping through optimized code (tests/step_o2_test.py), and code
# without line information.
tests/programs/step_o2: tests/programs/step_o2.c
	gcc -g -O2 -fPIE -pie -o $@ $<
tests/programs/step_ret_o2: tests/programs/step_ret_o2.c
	gcc -g -O2 -fPIE -pie -o $@ $<
# Breakpoints by name in optimized C++ (0178).
tests/programs/bp_o2: tests/programs/bp_o2.cpp
	g++ -g -O2 -fPIE -pie -o $@ $<
# Plans whose return is a breakpoint's place, in -O2 recursion (0205).
tests/programs/rec_o2: tests/programs/rec_o2.c
	gcc -g -O2 -fPIE -pie -o $@ $<
tests/programs/step_nodebug: tests/programs/step_nodebug.c
	gcc -O0 -no-pie -fno-pie -o $@ $<
# Go as Debian's golang-go builds it (compressed DWARF); no module, the
# build cache under tests/out.
tests/programs/go_hello: tests/programs/go_hello.go
	cd tests/programs && GO111MODULE=off GOCACHE=$(CURDIR)/tests/out/gocache go build -o go_hello go_hello.go
# Calls with floating-point and struct arguments (libm's hypot).
tests/programs/calls_abi: tests/programs/calls_abi.c
	gcc -g -O0 -no-pie -fno-pie -o $@ $< -lm
tests/programs/libplugin.so: tests/programs/lib/plugin.c
	gcc -g -O0 -shared -fPIC -o $@ $<

# Real programs nobody here wrote, built at test time from the sources
# Debian's packages ship, -O0 and -O2 (PIE): zlib's minigzip (C), zstd's
# multi-threaded streaming compressor (C, pthreads), googletest's sample 1
# with googletest itself (C++ and its standard library).  The comparison
# with lldb-16 (tests/real_compare_test.py) debugs them.
REAL     = tests/out/real
ZLIB_EX  = /usr/share/doc/zlib1g-dev/examples
ZSTD_EX  = /usr/share/doc/libzstd-dev/examples
GTEST    = /usr/src/googletest/googletest
REAL_PROGS = $(foreach o,O0 O2,$(REAL)/minigzip_$(o) $(REAL)/zstd_pool_$(o) $(REAL)/gtest_sample_$(o))
$(REAL)/minigzip_%: $(ZLIB_EX)/minigzip.c
	@mkdir -p $(REAL)
	gcc -g -$* -o $@ $< -lz
$(REAL)/zstd_pool_%: $(ZSTD_EX)/streaming_compression_thread_pool.c
	@mkdir -p $(REAL)
	gcc -g -$* -pthread -I$(ZSTD_EX) -o $@ $< -lzstd
$(REAL)/gtest_all_%.o: $(GTEST)/src/gtest-all.cc
	@mkdir -p $(REAL)
	g++ -g -$* -I$(GTEST)/include -I$(GTEST) -c -o $@ $<
$(REAL)/gtest_sample_%: $(REAL)/gtest_all_%.o $(GTEST)/samples/sample1.cc $(GTEST)/samples/sample1_unittest.cc
	g++ -g -$* -pthread -I$(GTEST)/include -o $@ $(GTEST)/samples/sample1.cc \
	  $(GTEST)/samples/sample1_unittest.cc $(GTEST)/src/gtest_main.cc $<
.SECONDARY: $(REAL)/gtest_all_O0.o $(REAL)/gtest_all_O2.o
real-programs: $(REAL_PROGS)

programs: $(PROGS)

tests/fuzz/replay-%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.c tests/fuzz/replay.c tests/fuzz/fuzz.h libptdb.a
	$(CC) $(CFLAGS) -DFUZZ_ROOT='"$(CURDIR)"' $(LDFLAGS) -o $@ tests/fuzz/replay.c tests/fuzz/fuzz.c $< libptdb.a $(LDLIBS)

tests/fuzz/build/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

tests/fuzz/bin/fuzz-%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ tests/fuzz/fuzz.c $< $(FUZZ_OBJS) $(LDLIBS)

# Runs each harness for FUZZ_SECONDS from its committed corpus; new inputs go
# to tests/fuzz/work/<harness>/, crashes to tests/fuzz/artifacts/.  Fails on
# the first crash, leak, sanitizer report or hang (over 10 s per input).
fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS) tests/programs/trace_loop
	@mkdir -p tests/fuzz/artifacts
	@for h in $(FUZZ_NAMES); do \
	  mkdir -p tests/fuzz/work/$$h; \
	  echo "fuzz: $$h for $(FUZZ_SECONDS) s"; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  tests/fuzz/bin/fuzz-$$h -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=tests/fuzz/artifacts/$$h- \
	    tests/fuzz/work/$$h tests/fuzz/corpus/$$h || exit 1; \
	done

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all packages present"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "deps: missing packages:$$missing; run 'make deps' as root (apt-get install)" >&2; exit 1; fi; \
	echo "deps: installing$$missing"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing
	@$(MAKE) --no-print-directory $(LLDB22) npm-deps

$(LLDB22):
	@command -v lldb-22 >/dev/null && exit 0; \
	echo "deps: lldb-22's program into tests/deps/lldb-22"; \
	rm -rf tests/deps/lldb-22 tests/deps/lldb-22*.deb && mkdir -p tests/deps && \
	(cd tests/deps && apt-get download -qq lldb-22 2>/dev/null) && \
	dpkg-deb -x tests/deps/lldb-22_*.deb tests/deps/lldb-22 && rm -f tests/deps/lldb-22_*.deb

# The DAP tests' npm packages (tests/dap/package.json, locked by
# package-lock.json) into tests/dap/node_modules, which is never committed.
npm-deps:
	@if [ -d tests/dap/node_modules/@vscode/debugadapter-testsupport ] && \
	  [ tests/dap/node_modules/.package-lock.json -nt tests/dap/package-lock.json ]; then \
	  echo "deps: npm packages present"; \
	else cd tests/dap && npm ci --no-audit --no-fund; fi

check: deps
	@$(MAKE) --no-print-directory ptdb $(UNIT_BINS) programs real-programs $(FUZZ_REPLAYS)
	@$(PYTHON) tests/run-all.py $(UNIT_BINS)

demo: deps
	@$(MAKE) --no-print-directory ptdb tests/programs/trace_loop
	./ptdb -b -s examples/demo.ptdb

# The intel-pt backend end to end where there is Intel PT (tests/hwcheck.py,
# steps in README.md); elsewhere one line says so and nothing is checked.
hwcheck: ptdb programs
	@$(PYTHON) tests/hwcheck.py

bench: ptdb programs
	@$(PYTHON) tests/bench/run.py

install: ptdb
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 ptdb $(DESTDIR)$(PREFIX)/bin/ptdb
	install -m 644 man/ptdb.1 $(DESTDIR)$(PREFIX)/share/man/man1/ptdb.1
	install -m 644 man/ptdb-trace.7 $(DESTDIR)$(PREFIX)/share/man/man7/ptdb-trace.7
	install -m 644 man/ptdb-dap.7 $(DESTDIR)$(PREFIX)/share/man/man7/ptdb-dap.7

clean:
	rm -f ptdb libptdb.a */*.o core/*/*.o $(UNIT_BINS) $(PROGS) $(FUZZ_REPLAYS)
	rm -rf tests/out tests/fuzz/build tests/fuzz/bin tests/deps

print-cflags:
	@echo $(CFLAGS)
print-ldlibs:
	@echo $(LDLIBS)

.PHONY: all deps npm-deps check demo bench hwcheck install clean programs real-programs fuzz print-cflags print-ldlibs
