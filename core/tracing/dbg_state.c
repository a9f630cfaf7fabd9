/* core/tracing/dbg_state.c: the live trace's state in LLDB's jLLDBTraceGetState
 * layout (trace/state.c writes it): what each traced thread and CPU holds
 * now, as "trace save" would read it. */
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/items_int.h"
#include "trace/state.h"
#include "core/tracing/trace_info.h"
#include "trace/swc.h"

#include <stdio.h>
#include <stdlib.h>

/* Bytes a ring can give: all it got, or its size once it wrapped. */
static uint64_t readable(const struct trace_ring *r)
{
	return r->total < r->size ? r->total : r->size;
}

static uint64_t cpuinfo_bytes(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char buf[4096];
	uint64_t n = 0;
	size_t k;

	if (!f)
		return 0;
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		n += k;
	fclose(f);
	return n;
}

char *dbg_trace_state(struct dbg *d, int pretty, struct ptdb_err *err)
{
	struct trace_swc_thread **ths;
	struct trace_state_thread *st;
	struct trace_state_cpu *sc = NULL;
	struct trace_state s = { .cgroup_filtering = -1 };
	char *text;
	int n;

	if (!dbg_tracing(d)) {
		ptdb_err_set(err, "Process is not being traced");
		return NULL;
	}
	ths = dbg_trace_list(d, &n);
	st = xcalloc((size_t)n + 1, sizeof(*st));
	for (int i = 0; i < n; i++) {
		if (!ths[i]->tracing)
			continue;	/* stopped: kept only until the process runs */
		st[s.nthreads].tid = ths[i]->tid;
		st[s.nthreads].has_ipt = !ths[i]->cpu;	/* per CPU: in its CPU's */
		st[s.nthreads++].ipt_bytes = readable(&ths[i]->ring);
	}
	free(ths);
	for (struct trace_swc_cpu *c = dbg_trace_cpu(d); c; c = c->next) {
		sc = xrealloc(sc, (s.ncpus + 1) * sizeof(*sc));
		sc[s.ncpus].id = c->id;
		sc[s.ncpus].ipt_bytes = readable(&c->s.ring);
		sc[s.ncpus++].switch_bytes = c->sw_len;
		s.tsc = &c->conv;
	}
	s.threads = st;
	s.cpus = sc;
	s.cpuinfo_bytes = cpuinfo_bytes();
	if (!s.tsc)
		s.tsc = dbg_tsc_conv_rw(d);
	if (dbg_trace_collector(dbg_tr(d)->trace)->state)
		dbg_trace_collector(dbg_tr(d)->trace)->state(dbg_tee(d), &s);
	text = trace_state_json(&s, pretty);
	free(st);
	free(sc);
	return text;
}
