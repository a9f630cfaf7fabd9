/* core/collectors/dbg_ipt.c: live tracing with the intel-pt backend: the perf events
 * of the traced threads (one each) or of every online CPU (intel_pt plus
 * a context-switch event in its group), enabled when the process resumes,
 * and their buffers copied into the same per-thread / per-CPU containers
 * the software backend fills (struct trace_swc_thread, trace_swc_cpu), so
 * dumps, splitting (trace/cpusplit) and bundles work on them unchanged.
 * The intel-pt collector (struct dbg_collector) is at the end. */
#include "core/collectors/collector.h"
#include "trace/ipt.h"
#include "trace/ring.h"
#include "trace/state.h"
#include "trace/swc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ipt_thr {
	struct trace_swc_thread *th;
	struct trace_ipt_event ev;
};

struct ipt_cpu {
	struct trace_ipt_event pt, sw;
	struct trace_swc_cpu *c;
};

struct dbg_ipt {
	struct trace_ipt_pmu pmu;
	struct trace_ipt_opts o;
	struct trace_ipt_cpuinfo ci;
	struct trace_ipt_limits lim;
	size_t page;
	struct ipt_thr *thr;
	int nthr;
	struct ipt_cpu *cpus;		/* per-CPU tracing, else NULL */
	int ncpu;
	struct trace_swc_cpu *chain;	/* the CPUs' containers, linked */
	int cgroup_fd;
};

int dbg_ipt_new(struct dbg_ipt **out, const struct dbg_trace_opts *o, struct ptdb_err *err)
{
	struct dbg_ipt *h = xcalloc(1, sizeof(*h));

	h->cgroup_fd = -1;
	h->page = (size_t)sysconf(_SC_PAGESIZE);
	if (trace_ipt_pmu_read(&h->pmu, NULL, err) < 0 ||
	    trace_ipt_cpuinfo_read(NULL, &h->ci, err) < 0) {
		free(h);
		return -1;
	}
	h->o.perf_config = o->perf_config;
	h->o.tsc = o->tsc;
	h->o.psb_period = o->psb_period;
	trace_ipt_limits_get(&h->lim, NULL);
	*out = h;
	return 0;
}

static void drop_cpus(struct dbg_ipt *h)
{
	for (int i = 0; i < h->ncpu; i++) {
		trace_ipt_event_close(&h->cpus[i].sw);
		trace_ipt_event_close(&h->cpus[i].pt);
	}
	free(h->cpus);
	h->cpus = NULL;
	h->ncpu = 0;
	while (h->chain) {
		struct trace_swc_cpu *n = h->chain->next;

		trace_swc_cpu_release(h->chain);
		free(h->chain);
		h->chain = n;
	}
	if (h->cgroup_fd >= 0)
		close(h->cgroup_fd);
	h->cgroup_fd = -1;
}

void dbg_ipt_free(struct dbg_ipt *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->nthr; i++)
		trace_ipt_event_close(&h->thr[i].ev);
	free(h->thr);
	drop_cpus(h);
	free(h);
}

int dbg_ipt_cgroup_filtering(const struct dbg_ipt *h)
{
	return h->cgroup_fd >= 0;
}

size_t dbg_ipt_bytes(const struct dbg_ipt *h)
{
	size_t n = 0;

	for (int i = 0; i < h->nthr; i++)
		n += h->thr[i].ev.aux_size;
	for (int i = 0; i < h->ncpu; i++)
		n += h->cpus[i].pt.aux_size;
	return n;
}

/* The kernel's TSC conversion from an intel_pt event's page into *conv,
 * keeping the session's start. */
static int take_tsc(const struct trace_ipt_event *e, struct trace_tsc_conv *conv,
		    struct ptdb_err *err)
{
	struct trace_tsc_conv c = *conv;

	if (trace_ipt_event_tsc(e, &c, err) < 0)
		return -1;
	c.source = TRACE_TSC_PERF;
	c.valid = 1;
	c.start_tsc = conv->start_tsc;
	c.has_start = conv->has_start;
	c.note[0] = 0;
	*conv = c;
	return 0;
}

int dbg_ipt_thread_start(struct dbg_ipt *h, struct trace_swc_thread *th, pid_t tid,
			 unsigned index, size_t size, size_t total_limit,
			 struct trace_tsc_conv *conv, struct ptdb_err *err)
{
	struct perf_event_attr a;
	struct trace_ipt_event ev;
	size_t bytes, pages;
	char what[96];

	if (trace_ipt_aux_size(size, h->page, &bytes, &pages, err) < 0 ||
	    trace_ipt_check_total(dbg_ipt_bytes(h) + bytes, 1, total_limit, tid, err) < 0 ||
	    trace_ipt_check_mlock(&h->lim, bytes, h->page, 0, (unsigned)h->nthr + 1, err) < 0 ||
	    trace_ipt_attr_pt(&a, &h->pmu, &h->o, 0, err) < 0)
		return -1;
	snprintf(what, sizeof(what), "perf_event_open (intel_pt) for thread %d", (int)tid);
	if (trace_ipt_event_open(&ev, &a, tid, -1, -1, 0, 0, pages, what, err) < 0)
		return -1;
	/* the kernel's parameters, for -t and for bundles' tscPerfZeroConversion
	 * (without them a calibrated conversion stays) */
	take_tsc(&ev, conv, NULL);
	trace_swc_init_loaded(th, tid, index, xcalloc(1, TRACE_RING_SLACK), 0);
	th->tracing = 1;
	h->thr = xrealloc(h->thr, (size_t)(h->nthr + 1) * sizeof(*h->thr));
	h->thr[h->nthr].th = th;
	h->thr[h->nthr++].ev = ev;
	return 0;
}

/* The event's aux buffer into the thread's container (which dumps read). */
static int refresh_thread(struct ipt_thr *t, struct ptdb_err *err)
{
	uint8_t *buf;
	size_t len;

	if (trace_ipt_event_read_aux(&t->ev, &buf, &len, err) < 0)
		return -1;
	/* buf has room for the whole aux buffer: size is the buffer's (what
	 * dump info shows), pos the bytes it holds, oldest first */
	trace_ring_take_aux(&t->th->ring, buf, len, t->ev.aux_size, t->ev.aux_wrapped);
	return 0;
}

int dbg_ipt_thread_stop(struct dbg_ipt *h, struct trace_swc_thread *th, struct ptdb_err *err)
{
	for (int i = 0; i < h->nthr; i++) {
		if (h->thr[i].th != th)
			continue;
		/* its last bytes stay dumpable until the process runs again */
		refresh_thread(&h->thr[i], err);
		trace_ipt_event_close(&h->thr[i].ev);
		h->thr[i] = h->thr[--h->nthr];
		th->tracing = 0;
		return 0;
	}
	return ptdb_err_set(err, "thread not traced");
}

/* One CPU's events: intel_pt (group leader, aux) and the context-switch
 * event in its group (data ring). */
static int open_cpu(struct dbg_ipt *h, struct ipt_cpu *k, int cpu, size_t pages,
		    struct ptdb_err *err)
{
	struct perf_event_attr a, s;
	pid_t pid = h->cgroup_fd >= 0 ? h->cgroup_fd : -1;
	unsigned long fl = h->cgroup_fd >= 0 ? PERF_FLAG_PID_CGROUP : 0;
	char what[96];

	if (trace_ipt_attr_pt(&a, &h->pmu, &h->o, 1, err) < 0)
		return -1;
	snprintf(what, sizeof(what), "perf_event_open (intel_pt) for CPU %d", cpu);
	if (trace_ipt_event_open(&k->pt, &a, pid, cpu, -1, fl, 0, pages, what, err) < 0)
		return -1;
	trace_ipt_attr_switch(&s);
	snprintf(what, sizeof(what), "perf_event_open (context switches) for CPU %d", cpu);
	if (trace_ipt_event_open(&k->sw, &s, pid, cpu, k->pt.fd, fl,
				 TRACE_IPT_SWITCH_BYTES / h->page, 0, what, err) < 0) {
		trace_ipt_event_close(&k->pt);
		return -1;
	}
	return 0;
}

int dbg_ipt_cpus_start(struct dbg_ipt *h, pid_t pid, size_t size, size_t total_limit,
		       int cgroup_filter, struct trace_tsc_conv *conv,
		       struct trace_swc_cpu **chain, struct ptdb_err *err)
{
	struct trace_swc_cpu **tail = &h->chain;
	size_t bytes, pages;
	int *ids, n;

	if (trace_ipt_aux_size(size, h->page, &bytes, &pages, err) < 0 ||
	    trace_ipt_cpus_online(NULL, &ids, &n, err) < 0)
		return -1;
	if (trace_ipt_check_total(bytes, (unsigned)n, total_limit, 0, err) < 0 ||
	    trace_ipt_check_mlock(&h->lim, bytes, h->page, 1 + TRACE_IPT_SWITCH_BYTES / h->page,
				  (unsigned)n, err) < 0) {
		free(ids);
		return -1;
	}
	h->cgroup_fd = cgroup_filter ? trace_ipt_cgroup_open(pid) : -1;
	h->cpus = xcalloc((size_t)n, sizeof(*h->cpus));
	for (int i = 0; i < n; i++) {
		struct ipt_cpu *k = &h->cpus[i];
		int r = open_cpu(h, k, ids[i], pages, err);

		if (r < 0 && i == 0 && h->cgroup_fd >= 0) {
			/* no perf cgroup support (CONFIG_CGROUP_PERF): every task */
			close(h->cgroup_fd);
			h->cgroup_fd = -1;
			r = open_cpu(h, k, ids[i], pages, err);
		}
		if (r < 0) {
			free(ids);
			drop_cpus(h);
			return -1;
		}
		h->ncpu++;
		if (i == 0 && take_tsc(&k->pt, conv, err) < 0) {
			/* the split matches the records' perf clock with TSC */
			free(ids);
			drop_cpus(h);
			return ptdb_err_set(err, "per-CPU tracing needs the kernel's TSC "
					    "conversion, which the perf page does not offer");
		}
		k->c = xcalloc(1, sizeof(*k->c));
		k->c->id = ids[i];
		k->c->pid = pid;
		k->c->conv = *conv;
		k->c->s.ring.buf = xcalloc(1, TRACE_RING_SLACK);
		*tail = k->c;
		tail = &k->c->next;
	}
	free(ids);
	*chain = h->chain;
	return 0;
}

void dbg_ipt_cpus_stop(struct dbg_ipt *h)
{
	drop_cpus(h);
}

int dbg_ipt_will_resume(struct dbg_ipt *h, struct ptdb_err *err)
{
	for (int i = 0; i < h->nthr; i++)
		if (trace_ipt_event_enable(&h->thr[i].ev, err) < 0)
			return -1;
	/* the whole group: the context switches resume with the trace */
	for (int i = 0; i < h->ncpu; i++)
		if (trace_ipt_event_enable(&h->cpus[i].sw, err) < 0 ||
		    trace_ipt_event_enable(&h->cpus[i].pt, err) < 0)
			return -1;
	return 0;
}

/* The process stopped: every CPU pauses (nothing of ours runs, and other
 * tasks should not fill the buffers), and every buffer is copied into
 * the containers that dumps and the split read. */
int dbg_ipt_did_stop(struct dbg_ipt *h, struct ptdb_err *err)
{
	int r = 0;

	for (int i = 0; i < h->nthr; i++)
		if (refresh_thread(&h->thr[i], err) < 0)
			r = -1;
	for (int i = 0; i < h->ncpu; i++) {
		struct ipt_cpu *k = &h->cpus[i];
		uint8_t *buf;
		size_t len;

		if (trace_ipt_event_disable(&k->pt, err) < 0 || trace_ipt_event_disable(&k->sw, err) < 0 ||
		    trace_ipt_event_read_aux(&k->pt, &buf, &len, err) < 0) {
			r = -1;
			continue;
		}
		trace_ring_take_aux(&k->c->s.ring, buf, len, k->pt.aux_size, k->pt.aux_wrapped);
		k->c->split_valid = 0;	/* new bytes: split again */
		if (trace_ipt_event_read_data(&k->sw, &k->c->sw, &k->c->sw_len, &k->c->sw_cap,
					      err) < 0)
			r = -1;
		k->c->sw_lost = k->sw.data_lost;
	}
	return r;
}

/* ---- the intel-pt collector (struct dbg_collector) ---- */

/* Per thread: a thread the process creates while it runs gets its event
 * as the target learns of it (the clone event), before it runs any code.
 * Over the total limit it is not traced and the process stops with the
 * limit reason, as the software collector stops it. */
static void hw_thread_created(void *ctx, struct target_proc *p, pid_t tid, unsigned index)
{
	struct dbg_tracee *d = ctx;
	struct ptdb_err err;

	(void)index;
	if (!d->trace || !d->trace->hw || !d->trace->all || d->trace->cpu ||
	    d->host->trace_find(d->s, tid) || dbg_trace_excluded(d->trace, tid))
		return;
	/* another failure (the kernel refused the event) leaves it untraced:
	 * dump info says so */
	if (d->host->trace_adopt(d->s, tid, &err) < 0 && err.code == PTDB_E_LIMIT && !d->trace->hw_limit_tid) {
		d->trace->hw_limit_tid = tid;
		target_interrupt(p);
	}
}

int dbg_ipt_collector_new(struct dbg_tracee *d, const struct dbg_trace_opts *o, struct ptdb_err *err)
{
	struct target_hooks hk = { .thread_created = hw_thread_created, .ctx = d };
	struct dbg_ipt *hw;

	if (dbg_ipt_new(&hw, o, err) < 0)
		return -1;
	if (!d->trace)
		d->trace = xcalloc(1, sizeof(*d->trace));
	d->trace->hw = hw;
	target_set_hooks(d->proc, &hk);
	return 0;
}

static int ipt_thread_start(struct dbg_tracee *d, struct trace_swc_thread *th, int fresh, pid_t tid,
			    struct ptdb_err *err)
{
	struct dbg_trace *t = d->trace;

	if (!fresh) {
		/* tracing it again restarts its trace with the new parameters */
		if (th->tracing)
			dbg_ipt_thread_stop(t->hw, th, NULL);
		d->host->thread_release(d->s, th);
	}
	return dbg_ipt_thread_start(t->hw, th, tid, target_thread_index(d->proc, tid), t->opts.size,
				    t->opts.total_limit, d->tsc_conv, err);
}

static void ipt_thread_stop(struct dbg_tracee *d, struct trace_swc_thread *th)
{
	if (th->tracing && !th->cpu)
		dbg_ipt_thread_stop(d->trace->hw, th, NULL);
}

static int ipt_cpus_start(struct dbg_tracee *d, const struct dbg_trace_opts *o, struct ptdb_err *err)
{
	struct trace_swc_cpu *chain;

	/* earlier traces, stopped and kept for dumps, go now */
	d->host->trace_drop_kept(d->s);
	if (dbg_ipt_cpus_start(d->trace->hw, d->pid, o->size, o->total_limit, !o->no_cgroup,
			       d->tsc_conv, &chain, err) < 0)
		return -1;
	d->trace->cpu = chain;
	return 0;
}

static void ipt_cpus_stop(struct dbg_tracee *d)
{
	dbg_ipt_cpus_stop(d->trace->hw);	/* owns the chain */
}

/* The hardware records while the process runs natively: every event is
 * enabled (every CPU resumed) just before it resumes. */
static int ipt_run(struct dbg_tracee *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		   struct ptdb_err *err)
{
	int rr;

	if (dbg_ipt_will_resume(d->trace->hw, err) < 0)
		return -1;
	d->trace->hw_limit_tid = 0;
	rr = d->host->run_native(d->s, rq, stop, err);
	if (rr >= 0 && d->trace && d->trace->hw_limit_tid && d->host->alive(d->s)) {
		d->host->trace_over_limit(d->s, d->trace->hw_limit_tid, stop);
		rr = RW_USER;
	}
	return rr;
}

static void ipt_did_stop(struct dbg_tracee *d)
{
	int nt;
	struct target_thread_info *ti = d->host->proc_threads(d->s, &nt);

	/* a failed copy leaves the previous one (dumps say what they can);
	 * the next stop tries again */
	dbg_ipt_did_stop(d->trace->hw, NULL);
	/* threads created while it ran are traced from now on (per CPU they
	 * were traced all along) */
	for (int i = 0; d->trace->all && !d->trace->cpu && i < nt; i++)
		if (!d->host->trace_find(d->s, ti[i].tid) && !dbg_trace_excluded(d->trace, ti[i].tid))
			d->host->trace_adopt(d->s, ti[i].tid, NULL);
	free(ti);
}

/* The perf events went with the process: the trace ends. */
static int ipt_exited(struct dbg_tracee *d)
{
	(void)d;
	return 0;
}

static void ipt_end(struct dbg_tracee *d)
{
	struct dbg_trace *t = d->trace;

	if (t->cpu) {
		dbg_ipt_cpus_stop(t->hw);
		t->cpu = NULL;
		t->cpu_stopped = 0;
	}
	if (d->proc)
		target_set_hooks(d->proc, NULL);
	dbg_ipt_free(t->hw);
	t->hw = NULL;
}

static void ipt_state(struct dbg_tracee *d, struct trace_state *s)
{
	if (s->ncpus)
		s->cgroup_filtering = dbg_ipt_cgroup_filtering(d->trace->hw);
}

static int ipt_cpu_info(struct dbg_tracee *d, char *vendor, size_t n, int *family, int *model,
			int *stepping)
{
	const struct dbg_ipt *h = d->trace->hw;

	snprintf(vendor, n, "%s", h->ci.vendor);
	*family = h->ci.family;
	*model = h->ci.model;
	*stepping = h->ci.stepping;
	return 0;
}

const struct dbg_collector dbg_ipt_collector = {
	.technology = "intel-pt",
	.thread_start = ipt_thread_start,
	.thread_admit = NULL,
	.thread_stop = ipt_thread_stop,
	.cpus_start = ipt_cpus_start,
	.cpus_stop = ipt_cpus_stop,
	.run = ipt_run,
	.did_stop = ipt_did_stop,
	.exited = ipt_exited,
	.end = ipt_end,
	.state = ipt_state,
	.cpu_info = ipt_cpu_info,
};
