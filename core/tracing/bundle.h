/* core/tracing/bundle.h: trace bundles — a directory with trace.json (LLDB's
 * intel-pt trace bundle schema), the raw trace buffers and copies of the
 * modules the trace ran in.  This file reads and checks the description and
 * writes it; core/tracing/dbg_bundle.c turns one into a post-mortem session and a
 * live session into one. */
#ifndef PTDB_CORE_BUNDLE_H
#define PTDB_CORE_BUNDLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/err.h"

/* Every path below is absolute: relative paths in trace.json are resolved
 * against the bundle's directory. */
struct bundle_module {
	char *system_path;	/* where it was loaded from on the traced machine */
	char *file;		/* the copy to read (systemPath when no "file") */
	uint64_t load_addr;
	char *uuid;		/* or NULL */
	char *jpath;		/* "traceBundle.processes[0].modules[2]", for errors */
};

struct bundle_thread {
	pid_t tid;
	char *trace;		/* the raw Intel PT buffer, or NULL */
	char *jpath;
	/* "wrapped", "bytesWritten" (ptdb's; LLDB ignores them): the buffer
	 * wrapped, the oldest part of the history is lost; the bytes ever
	 * written into it (0: not known) */
	int wrapped;
	uint64_t written;
};

struct bundle_process {
	pid_t pid;
	char *triple;		/* or NULL */
	struct bundle_thread *threads;
	int nthreads;
	struct bundle_module *mods;
	int nmods;
	char *code_pages;	/* "codePages" (ptdb's; LLDB ignores it): the
				 * code as it ran (trace/pages.h), or NULL */
};

struct bundle_cpu {
	int id;
	char *trace, *context_switch;
};

/* "tscPerfZeroConversion": perf's TSC to nanoseconds parameters. */
struct bundle_tsc {
	uint32_t mult;
	uint16_t shift;
	uint64_t zero;
	int valid;		/* given */
};

struct bundle {
	char *dir;		/* the bundle directory (absolute) */
	char *json;		/* its trace.json */
	char vendor[32];	/* "GenuineIntel" or "unknown" */
	uint64_t family, model, stepping;	/* uint64 as LLDB reads them */
	struct bundle_process *procs;
	int nprocs;
	struct bundle_cpu *cpus;
	int ncpus;
	struct bundle_tsc tsc;		/* tscPerfZeroConversion, valid if given */
	char *kernel_file;		/* "kernel": { "file" } or NULL */
	uint64_t kernel_load;		/* its loadAddress (default BUNDLE_KERNEL_LOAD) */
	/* paths given absolute, or resolving outside dir (read only when
	 * allowed): "jpath: path" lines for trace load -v (absolute) and
	 * warnings (outside, the resolved path) */
	char **absolute, **outside;
	int nabsolute, noutside;
};

/* Reads path (a bundle directory or its description file) and checks it
 * against the schema: every field's type, the files it names (present,
 * regular, readable, and inside the bundle's directory once .. and symlinks
 * are resolved: with allow_outside, files elsewhere are read too and listed
 * in b->outside).  Errors: "FILE:JSON-PATH: what is wrong" (FILE as the
 * user named it). */
int bundle_read(const char *path, int allow_outside, struct bundle **out, struct ptdb_err *err);
void bundle_free(struct bundle *b);

/* Writes b as b->json (pretty JSON, paths as given: relative to the
 * bundle's directory when they lie inside it). */
int bundle_write(const struct bundle *b, struct ptdb_err *err);

/* Where a kernel image lies when "kernel" gives no loadAddress: x86-64's
 * address without KASLR, as LLDB assumes.  A kernel bundle loads as
 * process BUNDLE_KERNEL_PID with one thread per CPU (tid = CPU id). */
#define BUNDLE_KERNEL_LOAD 0xffffffff81000000ull
#define BUNDLE_KERNEL_PID 1

/* A build ID as text ("6AA9A4E2-6F28-...-5B41261A", LLDB's dashed form, or
 * plain hex, either case) into bytes: their number, or -1 if s is not
 * hex digit pairs with optional dashes between pairs. */
int bundle_uuid_bytes(const char *s, uint8_t *out, size_t cap);

/* 1 if two build IDs in any of those forms are the same bytes. */
int bundle_uuid_equal(const char *a, const char *b);

/* The schema, as "trace schema intel-pt" prints it. */
extern const char bundle_schema_text[];

#endif
