/* core/session/dbg_hits.c: the threads a stop finds at breakpoints, as
 * lldb-16 reports them — every breakpoint location at the address in the
 * reason ("breakpoint 1.1 2.1", whichever of them stops), and the other
 * threads whose breakpoint hits came at the same time as the one reported
 * (each with its reason, counted once, not reported again at the next
 * continue). */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LLDB's breakpoint site owners: every enabled location at addr. */
static void owners(struct dbg *d, uint64_t addr, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = 0;
	for (int i = 0; i < d->nbps; i++) {
		struct dbg_bp *bp = &d->bps[i];

		if (!bp->enabled)
			continue;
		for (int j = 0; j < bp->nlocs && k < n; j++)
			if (bp->locs[j].addr == addr && bp->locs[j].enabled && bp->locs[j].planted) {
				int w = snprintf(buf + k, n - k, "%s%u.%d", k ? " " : "", bp->id, j + 1);

				k = w < 0 ? n : k + (size_t)w;
			}
	}
}

static void add_stop(struct dbg *d, const struct dbg_bp_stop *hit)
{
	struct dbg_bp_stop *e;

	if (d->nbp_stops == DBG_MAX_BP_STOPS)
		return;
	e = &d->bp_stops[d->nbp_stops++];
	*e = *hit;
	owners(d, e->addr, e->where, sizeof(e->where));
}

const struct dbg_bp_stop *dbg_bp_stop_of(const struct dbg *d, pid_t tid)
{
	for (int i = 0; i < d->nbp_stops; i++)
		if (d->bp_stops[i].tid == tid)
			return &d->bp_stops[i];
	return NULL;
}

/* Is addr an enabled, planted user breakpoint location? */
static int user_loc(struct dbg *d, uint64_t addr)
{
	for (int i = 0; i < d->nbps; i++)
		for (int j = 0; d->bps[i].enabled && j < d->bps[i].nlocs; j++)
			if (d->bps[i].locs[j].addr == addr && d->bps[i].locs[j].enabled &&
			    d->bps[i].locs[j].planted)
				return 1;
	return 0;
}

/* At a stop for a breakpoint (stop->tid's): its entry, then those of the
 * other threads whose breakpoint stops came with it (lldb-16 stops them
 * all with their reasons).  Returns the thread to select: prev, the one
 * selected before, if it is among them, else the first by index. */
pid_t dbg_bp_stops_take(struct dbg *d, struct dbg_stop *stop, pid_t prev)
{
	struct target_thread_info *ti;
	pid_t sel = stop->tid;
	int n;

	d->nbp_stops = 0;
	if (d->goal_bp.on) {
		/* a plan's stop at its goal, where a breakpoint's hit came
		 * (dbg_run_plan): the breakpoint's commands run */
		d->goal_bp.on = 0;
		if (stop->reason != DBG_R_BREAKPOINT && stop->tid == d->goal_bp.tid &&
		    d->hit.tid == stop->tid && d->hit.nids) {
			add_stop(d, &d->hit);
			return sel;
		}
	}
	if (stop->reason != DBG_R_BREAKPOINT || !d->proc)
		return sel;
	if (d->hit.tid != stop->tid || !d->hit.nids) {
		struct user_regs_struct r;

		memset(&d->hit, 0, sizeof(d->hit));
		d->hit.tid = stop->tid;
		d->hit.ids[d->hit.nids++] = stop->bp_id;
		if (dbg_thread_regs(d, stop->tid, &r, NULL) == 0)
			d->hit.addr = r.rip;
	}
	add_stop(d, &d->hit);
	n = target_threads(d->proc, NULL, 0);
	if (n <= 1)
		return sel;
	ti = xcalloc((size_t)n, sizeof(*ti));
	n = target_threads(d->proc, ti, n);
	for (int i = 0; i < n; i++) {
		uint64_t addr;
		unsigned id, loc;

		if (ti[i].tid == stop->tid || !target_queued_bp(d->proc, ti[i].tid, &addr) ||
		    !user_loc(d, addr))
			continue;
		target_drop_event(d->proc, ti[i].tid);
		/* counted (and its condition tried) now; at the breakpoint
		 * still, it steps over it at the next resume */
		if (dbg_bp_hit(d, ti[i].tid, addr, &id, &loc))
			add_stop(d, &d->hit);
	}
	if (d->nbp_stops > 1 && !dbg_bp_stop_of(d, prev)) {
		unsigned best = 0;

		for (int i = 0; i < d->nbp_stops; i++) {
			unsigned idx = target_thread_index(d->proc, d->bp_stops[i].tid);

			if (!best || idx < best)
				best = idx, sel = d->bp_stops[i].tid;
		}
	} else if (d->nbp_stops > 1) {
		sel = prev;
	}
	free(ti);
	if (sel != stop->tid) {
		const struct dbg_bp_stop *e = dbg_bp_stop_of(d, sel);

		stop->tid = sel;
		stop->bp_id = e->ids[0];
		stop->loc_id = 0;
		for (int i = 0; i < d->nbps; i++)
			for (int j = 0; d->bps[i].id == e->ids[0] && j < d->bps[i].nlocs; j++)
				if (d->bps[i].locs[j].addr == e->addr)
					stop->loc_id = (unsigned)j + 1;
	}
	return sel;
}
