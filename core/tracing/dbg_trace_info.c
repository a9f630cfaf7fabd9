/* core/tracing/dbg_trace_info.c: the trace session seen from the commands
 * (core/tracing/trace_info.h): figures read out of the trace/ types, the backend
 * choice, wrap notices, thread lists of any length. */
#include "core/tracing/trace_info.h"
#include "core/tracing/dbg_trace_int.h"
#include "target/target.h"
#include "trace/decode.h"
#include "trace/ipt.h"
#include "trace/swc.h"

#include <stdlib.h>
#include <string.h>

void dbg_trace_figures(struct dbg *d, const struct trace_swc_thread *th,
		       struct dbg_trace_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->buffer_size = th->ring.size;
	f->raw_size = th->ring.wrapped ? th->ring.size : th->ring.pos;
	f->pos = th->ring.pos;
	f->written = th->ring.total;
	f->wrapped = th->ring.wrapped != 0;
	f->tracing = th->tracing;
	f->dec_seconds = dbg_decoded_seconds(d, th);
	f->insns = th->insns;
	f->transfers = th->transfers;
	f->traps = dbg_traced(th)->sw.traps;
	f->emulated = dbg_traced(th)->sw.emulated;
	f->per_cpu = th->cpu != NULL;
	f->executions = th->part.executions;
	f->psbs = th->part.psbs;
	f->inexact = th->part.inexact;
	f->cpu_changes = th->part.cpu_changes;
}

int dbg_trace_cpu_figures(const struct trace_swc_thread *th, int i, struct dbg_trace_cpu_figures *c)
{
	const struct trace_swc_cpu *cpu = th->cpu;

	while (cpu && i-- > 0)
		cpu = cpu->next;
	if (!cpu)
		return -1;
	c->id = cpu->id;
	c->buffer_size = cpu->s.ring.size;
	c->raw_size = cpu->s.ring.wrapped ? cpu->s.ring.size : cpu->s.ring.pos;
	c->switch_records = cpu->sw_len / 32;
	c->lost = cpu->sw_lost;
	return 0;
}

void dbg_decoded_figures(const struct trace_decoded *dec, struct dbg_decoded_figures *f)
{
	f->insns = trace_decoded_insn_count(dec);
	f->items = trace_decoded_item_count(dec);
	f->gaps = trace_decoded_gap_count(dec);
	f->mem = trace_decoded_mem_bytes(dec);
	trace_decoded_chunk_stats(dec, &f->chunks, &f->chunk_decodes);
	f->index_threads = trace_decoded_index_threads(dec);
	f->index_fell_back = trace_decoded_index_fell_back(dec);
}

int dbg_trace_wrapped(const struct trace_swc_thread *th, unsigned long long *written,
		      unsigned long long *size)
{
	if (!th || !th->ring.wrapped)
		return 0;
	*written = th->ring.total;
	*size = th->ring.size;
	return 1;
}

int dbg_trace_pmu_present(void)
{
	struct trace_ipt_pmu pmu;

	return trace_ipt_pmu_read(&pmu, NULL, NULL) == 0;
}

int dbg_trace_backend(struct dbg *d, const char *name, int *backend, struct ptdb_err *err)
{
	struct trace_ipt_pmu pmu;

	if (!name && dbg_tracing(d)) {
		/* more threads of a traced process: its backend */
		*backend = strcmp(dbg_trace_technology(d), "intel-pt") ? DBG_BACKEND_SOFTWARE
								       : DBG_BACKEND_INTEL_PT;
		return 0;
	}
	if (!name) {
		*backend = dbg_trace_pmu_present() ? DBG_BACKEND_INTEL_PT : DBG_BACKEND_SOFTWARE;
		return 0;
	}
	if (!strcmp(name, "software")) {
		*backend = DBG_BACKEND_SOFTWARE;
		return 0;
	}
	if (!strcmp(name, "intel-pt")) {
		if (trace_ipt_pmu_read(&pmu, NULL, err) < 0)
			return -1;
		*backend = DBG_BACKEND_INTEL_PT;
		return 0;
	}
	return ptdb_err_set(err, "invalid backend '%s': expected intel-pt or software", name);
}

unsigned dbg_trace_min_psb_period(void)
{
	return TRACE_PTW_MIN_PERIOD;
}

struct trace_swc_thread **dbg_trace_list(struct dbg *d, int *n)
{
	int cap = 64;
	struct trace_swc_thread **th = NULL;

	for (;;) {
		th = xrealloc(th, (size_t)cap * sizeof(*th));
		*n = dbg_trace_all(d, th, cap);
		if (*n < cap)
			return th;
		cap *= 2;
	}
}

int dbg_trace_count(struct dbg *d)
{
	int n;

	free(dbg_trace_list(d, &n));
	return n;
}

void dbg_trace_want_loss_notice(struct dbg *d, const pid_t *tids, int n, int all)
{
	if (all) {
		int nt;
		struct trace_swc_thread **th = dbg_trace_list(d, &nt);

		for (int i = 0; i < nt; i++)
			dbg_traced(th[i])->loss_notice = 1;
		free(th);
		return;
	}
	for (int i = 0; i < n; i++) {
		struct trace_swc_thread *th = dbg_trace_thread(d, tids[i]);

		if (th)
			dbg_traced(th)->loss_notice = 1;
	}
}

struct dbg_trace_loss *dbg_trace_take_loss_notices(struct dbg *d, int *n)
{
	int nt;
	struct trace_swc_thread **th = dbg_trace_list(d, &nt);
	struct dbg_trace_loss *out = NULL;

	*n = 0;
	for (int i = 0; i < nt; i++) {
		unsigned long long w, sz;

		if (!dbg_traced(th[i])->loss_notice || !dbg_trace_wrapped(th[i], &w, &sz))
			continue;
		dbg_traced(th[i])->loss_notice = 0;
		out = xrealloc(out, (size_t)(*n + 1) * sizeof(*out));
		out[*n].tid = th[i]->tid;
		out[*n].written = w;
		out[*n].size = sz;
		(*n)++;
	}
	free(th);
	return out;
}

struct target_thread_info *dbg_thread_list(struct dbg *d, int traced, int *n)
{
	int cap = 64;
	struct target_thread_info *ti = NULL;

	for (;;) {
		ti = xrealloc(ti, (size_t)cap * sizeof(*ti));
		*n = traced ? dbg_trace_threads(d, ti, cap) : dbg_threads(d, ti, cap);
		if (*n < cap)
			break;
		cap *= 2;
	}
	if (*n <= 0) {
		free(ti);
		*n = 0;
		return NULL;
	}
	return ti;
}
