/* core/tracing/dbg_source.c: where the session's traces and threads come from — a
 * source: the live process traced by the software collector, the live
 * process traced by the intel-pt collector, or a loaded bundle
 * (core/tracing/dbg_bundle.c fills dbg_tr(d)->pm).  Readers of traces ask the source
 * (dbg_source) instead of testing the mode. */
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/trace_info.h"
#include "trace/swc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- live: the trace session's threads ---- */

static struct trace_swc_thread *live_trace(struct dbg *d, pid_t tid)
{
	return dbg_trace_find(d, tid);
}

static int live_traces(struct dbg *d, struct trace_swc_thread **out, int max)
{
	int n = 0;

	for (int i = 0; dbg_tr(d)->trace && i < dbg_tr(d)->trace->nth && n < max; i++)
		out[n++] = dbg_tr(d)->trace->th[i];
	/* in thread order */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && out[k - 1]->index > out[k]->index; k--) {
			struct trace_swc_thread *x = out[k];

			out[k] = out[k - 1];
			out[k - 1] = x;
		}
	return n;
}

static struct trace_swc_cpu *live_cpu(struct dbg *d)
{
	return dbg_tr(d)->trace ? dbg_tr(d)->trace->cpu : NULL;
}

static int live_threads(struct dbg *d, struct target_thread_info *out, int max)
{
	int n = 0;

	if (dbg_trace_kept(d)) {
		/* exited: its traced threads, as numbered while it ran */
		int nt;
		struct trace_swc_thread **th = dbg_trace_list(d, &nt);

		for (int i = 0; i < nt && n < max; i++, n++) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].tid = th[i]->tid;
			out[n].index = th[i]->index;
		}
		free(th);
		return n;
	}
	return dbg_tr_proc(d) ? target_threads(dbg_tr_proc(d), out, max) : 0;
}

static unsigned live_thread_index(struct dbg *d, pid_t tid)
{
	struct trace_swc_thread *th;

	if (!dbg_trace_kept(d) && dbg_tr_proc(d) && target_thread_index(dbg_tr_proc(d), tid))
		return target_thread_index(dbg_tr_proc(d), tid);
	/* a traced thread that exited keeps its number */
	th = live_trace(d, tid);
	return th ? th->index : 0;
}

static int live_files_only(const struct dbg *d)
{
	return dbg_trace_kept(d);
}

static int live_selectable(struct dbg *d, pid_t tid)
{
	return dbg_tr(d)->host->alive(d) && target_thread_index(dbg_tr_proc(d), tid);
}

static int live_mapped(const struct dbg *d)
{
	return dbg_tr(d)->host->alive(d);
}

static int live_cpu_info(struct dbg *d, char *vendor, size_t n, int *family, int *model,
			 int *stepping)
{
	if (!dbg_tr(d)->trace)
		return -1;
	return dbg_trace_collector(dbg_tr(d)->trace)->cpu_info(dbg_tee(d), vendor, n, family, model, stepping);
}

/* ---- a loaded bundle ---- */

static struct trace_swc_thread *pm_trace(struct dbg *d, pid_t tid)
{
	struct dbg_pm_thread *t = dbg_pm_thread_of(d, tid);

	return t ? t->th : NULL;
}

static int pm_traces(struct dbg *d, struct trace_swc_thread **out, int max)
{
	int n = 0;

	for (int i = 0; i < dbg_tr(d)->pm->nth && n < max; i++)
		if (dbg_tr(d)->pm->th[i].th)
			out[n++] = dbg_tr(d)->pm->th[i].th;
	return n;
}

static struct trace_swc_cpu *pm_cpu(struct dbg *d)
{
	return dbg_tr(d)->pm->cpu;
}

static int pm_threads(struct dbg *d, struct target_thread_info *out, int max)
{
	int n = 0;

	for (int i = 0; i < dbg_tr(d)->pm->nth && n < max; i++, n++) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].tid = dbg_tr(d)->pm->th[i].tid;
		out[n].index = dbg_tr(d)->pm->th[i].index;
	}
	return n;
}

static unsigned pm_thread_index(struct dbg *d, pid_t tid)
{
	struct dbg_pm_thread *t = dbg_pm_thread_of(d, tid);

	return t ? t->index : 0;
}

static int pm_files_only(const struct dbg *d)
{
	(void)d;
	return 1;
}

/* a loaded trace's threads are selected as a live process's are: every
 * command that takes the selected thread then uses it */
static int pm_selectable(struct dbg *d, pid_t tid)
{
	return pm_thread_index(d, tid) != 0;
}

static int pm_mapped(const struct dbg *d)
{
	(void)d;
	return 1;
}

/* a loaded trace's thread has one frame: where its trace ends */
static int pm_frames(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
		     struct ptdb_err *err)
{
	return max > 0 ? dbg_tr(d)->host->pm_frames(d, tid, out, max, err) : 0;
}

static int pm_cpu_info(struct dbg *d, char *vendor, size_t n, int *family, int *model,
		       int *stepping)
{
	snprintf(vendor, n, "%s", dbg_tr(d)->pm->vendor);
	*family = (int)dbg_tr(d)->pm->family;
	*model = (int)dbg_tr(d)->pm->model;
	*stepping = (int)dbg_tr(d)->pm->stepping;
	return 0;
}

#define LIVE_EXITED "memory at 0x%" PRIx64 " is not in the exited process's module files"
static const struct dbg_source live_software = {
	.technology = "software", .loaded = 0, .trace = live_trace, .traces = live_traces,
	.cpu = live_cpu, .threads = live_threads, .thread_index = live_thread_index,
	.files_only = live_files_only, .files_error = LIVE_EXITED,
	.selectable = live_selectable, .mapped = live_mapped, .frames = NULL,
	.cpu_info = live_cpu_info,
};
static const struct dbg_source live_intel_pt = {
	.technology = "intel-pt", .loaded = 0, .trace = live_trace, .traces = live_traces,
	.cpu = live_cpu, .threads = live_threads, .thread_index = live_thread_index,
	.files_only = live_files_only, .files_error = LIVE_EXITED,
	.selectable = live_selectable, .mapped = live_mapped, .frames = NULL,
	.cpu_info = live_cpu_info,
};
static const struct dbg_source loaded = {
	.technology = "intel-pt", .loaded = 1, .trace = pm_trace, .traces = pm_traces,
	.cpu = pm_cpu, .threads = pm_threads, .thread_index = pm_thread_index,
	.files_only = pm_files_only,
	.files_error = "memory at 0x%" PRIx64 " is not in the loaded trace's modules "
		       "(only their code and data files are)",
	.selectable = pm_selectable, .mapped = pm_mapped, .frames = pm_frames,
	.cpu_info = pm_cpu_info,
};

const struct dbg_source *dbg_source(const struct dbg *d)
{
	if (dbg_tr(d)->pm)
		return &loaded;
	return dbg_tr(d)->trace && dbg_tr(d)->trace->hw ? &live_intel_pt : &live_software;
}

/* ---- what the rest of ptdb calls ---- */

int dbg_trace_loaded(const struct dbg *d)
{
	return dbg_source(d)->loaded;
}

int dbg_live_state(const struct dbg *d)
{
	return !dbg_tr(d)->replay && !dbg_source(d)->loaded;
}

const char *dbg_trace_technology(const struct dbg *d)
{
	return dbg_source(d)->technology;
}

struct trace_swc_thread *dbg_trace_thread(struct dbg *d, pid_t tid)
{
	return dbg_source(d)->trace(d, tid);
}

int dbg_trace_all(struct dbg *d, struct trace_swc_thread **out, int max)
{
	return dbg_source(d)->traces(d, out, max);
}

struct trace_swc_cpu *dbg_trace_cpu(struct dbg *d)
{
	return dbg_source(d)->cpu(d);
}

int dbg_threads(struct dbg *d, struct target_thread_info *out, int max)
{
	return dbg_source(d)->threads(d, out, max);
}

unsigned dbg_thread_index(struct dbg *d, pid_t tid)
{
	return dbg_source(d)->thread_index(d, tid);
}

int dbg_trace_cpu_info(struct dbg *d, char *vendor, size_t n, int *family, int *model,
		       int *stepping)
{
	return dbg_source(d)->cpu_info(d, vendor, n, family, model, stepping);
}
