# ptdb: build, test, install.  See README.md.
CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
PYTHON  ?= python3

PKGS     = libedit libelf json-c capstone
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I.
CFLAGS  += $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -I/usr/include/libdwarf
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -ldwarf -lipt -lZydis -liberty -lz -lm -lpthread
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
	zlib1g-dev mandoc gdb tmux valgrind

LIB_SRCS  = $(wildcard core/*.c target/*.c trace/*.c disasm/*.c) \
	$(filter-out cmd/main.c,$(wildcard cmd/*.c))
LIB_OBJS  = $(LIB_SRCS:.c=.o)
UNIT_SRCS = $(wildcard tests/unit/test-*.c)
UNIT_BINS = $(UNIT_SRCS:.c=)
PROG_C    = $(wildcard tests/programs/*.c)
PROG_CXX  = $(wildcard tests/programs/*.cpp)
PROGS     = $(PROG_C:.c=) $(PROG_CXX:.cpp=) tests/programs/libplugin.so

all: ptdb

ptdb: cmd/main.o libptdb.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

libptdb.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

%.o: %.c $(wildcard */*.h)
	$(CC) $(CFLAGS) -c -o $@ $<

tests/unit/test-%: tests/unit/test-%.c tests/unit/test.h libptdb.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< libptdb.a $(LDLIBS)

# Fixture programs: -g -O0, no PIE so addresses match the transcripts.
tests/programs/%: tests/programs/%.c
	gcc -g -O0 -no-pie -fno-pie -o $@ $<
tests/programs/%: tests/programs/%.cpp
	g++ -g -O0 -no-pie -fno-pie -pthread -o $@ $<
tests/programs/libplugin.so: tests/programs/lib/plugin.c
	gcc -g -O0 -shared -fPIC -o $@ $<

programs: $(PROGS)

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all packages present"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "deps: missing packages:$$missing; run 'make deps' as root (apt-get install)" >&2; exit 1; fi; \
	echo "deps: installing$$missing"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing

check: deps
	@$(MAKE) --no-print-directory ptdb $(UNIT_BINS) programs
	@$(PYTHON) tests/run-all.py $(UNIT_BINS)

demo: deps
	@$(MAKE) --no-print-directory ptdb tests/programs/trace_loop
	./ptdb -b -s examples/demo.ptdb

bench: ptdb programs
	@$(PYTHON) tests/bench/run.py

install: ptdb
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 ptdb $(DESTDIR)$(PREFIX)/bin/ptdb
	install -m 644 man/ptdb.1 $(DESTDIR)$(PREFIX)/share/man/man1/ptdb.1
	install -m 644 man/ptdb-trace.7 $(DESTDIR)$(PREFIX)/share/man/man7/ptdb-trace.7

clean:
	rm -f ptdb libptdb.a */*.o $(UNIT_BINS) $(PROGS)
	rm -rf tests/out

print-cflags:
	@echo $(CFLAGS)
print-ldlibs:
	@echo $(LDLIBS)

.PHONY: all deps check demo bench install clean programs print-cflags print-ldlibs
