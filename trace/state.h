/* trace/state.h: the trace state of a live process in the layout of LLDB's
 * jLLDBTraceGetState response (its Intel PT flavour): which threads and
 * CPUs are traced and how many bytes of each kind of buffer can be read
 * from them now (design.md §3.3).  Pure: the caller describes the state. */
#ifndef PTDB_TRACE_STATE_H
#define PTDB_TRACE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/tsc.h"

struct trace_state_thread {
	pid_t tid;
	uint64_t ipt_bytes;	/* its iptTrace, when has_ipt (per-CPU: none) */
	int has_ipt;
};

struct trace_state_cpu {
	int id;
	uint64_t ipt_bytes;	/* iptTrace */
	uint64_t switch_bytes;	/* perfContextSwitchTrace */
};

struct trace_state {
	const struct trace_state_thread *threads;
	size_t nthreads;
	const struct trace_state_cpu *cpus;	/* per-CPU tracing, else none */
	size_t ncpus;
	uint64_t cpuinfo_bytes;		/* procfsCpuInfo: the /proc/cpuinfo text */
	const struct trace_tsc_conv *tsc;	/* NULL or !valid: none known */
	int cgroup_filtering;		/* -1: not said (not per-CPU intel-pt) */
	const char *const *warnings;
	size_t nwarnings;
};

/* The response as JSON text (heap; free()): {"tracedThreads": [{"tid",
 * "binaryData": [{"kind": "iptTrace", "size"}]}], "processBinaryData":
 * [{"kind": "procfsCpuInfo", "size"}], "cpus": [{"id", "binaryData":
 * [iptTrace, perfContextSwitchTrace]}], "warnings", "tscPerfZeroConversion":
 * {"timeMult", "timeShift", "timeZero"}, "usingCgroupFiltering"}.  pretty:
 * indented. */
char *trace_state_json(const struct trace_state *s, int pretty);

#endif
