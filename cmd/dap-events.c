/* cmd/dap-events.c: the DAP events that follow what a run changed — thread
 * started and exited, module new and removed, breakpoint changed (a pending
 * one resolved when its library loaded) — and the progress of a traced run
 * (progressStart, progressUpdate every quarter second, progressEnd). */
#include "cmd/dap.h"
#include "cmd/progress.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void thread_event(struct dap *dp, const char *reason, pid_t tid)
{
	struct json_object *b = json_object_new_object();

	json_object_object_add(b, "reason", json_object_new_string(reason));
	json_object_object_add(b, "threadId", json_object_new_int(tid));
	dap_event(dp, "thread", b);
}

static void threads_sync(struct dap *dp)
{
	struct target_thread_info ti[256];
	struct dbg *d = &dp->s->dbg;
	int n = dbg_alive(d) ? dbg_threads(d, ti, 256) : 0;
	pid_t *now = calloc((size_t)n + 1, sizeof(*now));

	for (int i = 0; i < n; i++) {
		int known = 0;

		now[i] = ti[i].tid;
		for (int j = 0; j < dp->nknown && !known; j++)
			known = dp->known[j] == now[i];
		if (!known)
			thread_event(dp, "started", now[i]);
	}
	for (int j = 0; j < dp->nknown; j++) {
		int still = 0;

		for (int i = 0; i < n && !still; i++)
			still = now[i] == dp->known[j];
		if (!still)
			thread_event(dp, "exited", dp->known[j]);
	}
	free(dp->known);
	dp->known = now;
	dp->nknown = n;
}

static void module_event(struct dap *dp, const char *reason, const char *path, int id)
{
	struct json_object *b = json_object_new_object(), *m = json_object_new_object();
	const char *base = strrchr(path, '/');

	json_object_object_add(m, "id", json_object_new_int(id));
	json_object_object_add(m, "name", json_object_new_string(base ? base + 1 : path));
	json_object_object_add(m, "path", json_object_new_string(path));
	json_object_object_add(b, "reason", json_object_new_string(reason));
	json_object_object_add(b, "module", m);
	dap_event(dp, "module", b);
}

static void modules_sync(struct dap *dp)
{
	struct dbg *d = &dp->s->dbg;
	char **now = calloc((size_t)d->nmods + 1, sizeof(*now));
	int n = 0;

	for (int i = 0; i < d->nmods; i++) {
		int known = 0;

		if (!d->mods[i].path || (!d->mods[i].start && !d->mods[i].end))
			continue;
		now[n++] = strdup(d->mods[i].path);
		for (int j = 0; j < dp->nmods && !known; j++)
			known = !strcmp(dp->mods[j], d->mods[i].path);
		if (!known)
			module_event(dp, "new", d->mods[i].path, i + 1);
	}
	for (int j = 0; j < dp->nmods; j++) {
		int still = 0;

		for (int i = 0; i < n && !still; i++)
			still = !strcmp(now[i], dp->mods[j]);
		if (!still)
			module_event(dp, "removed", dp->mods[j], 0);
		free(dp->mods[j]);
	}
	free(dp->mods);
	dp->mods = now;
	dp->nmods = n;
}

/* A breakpoint whose locations changed (a pending one resolved). */
static void breakpoints_sync(struct dap *dp)
{
	for (int i = 0; i < dp->nbps; i++) {
		struct dap_bp *b = &dp->bps[i];
		struct dbg_bp *bp = b->kind != 'd' ? dbg_bp_find(&dp->s->dbg, b->dbg_id) : NULL;
		struct json_object *e;

		if (!bp || bp->nlocs == b->nlocs)
			continue;
		b->nlocs = bp->nlocs;
		e = json_object_new_object();
		json_object_object_add(e, "reason", json_object_new_string("changed"));
		json_object_object_add(e, "breakpoint", dap_bp_json(dp, b, NULL));
		dap_event(dp, "breakpoint", e);
	}
}

void dap_events_sync(struct dap *dp)
{
	if (dp->gone)
		return;
	threads_sync(dp);
	modules_sync(dp);
	breakpoints_sync(dp);
}

/* ---- progress of a traced run ---- */

static void on_progress(void *ctx, const struct dbg_progress_info *in)
{
	struct dap *dp = ctx;
	struct json_object *b;
	char id[32], msg[160];

	if (!dp->progress_ok || dp->gone)
		return;
	snprintf(id, sizeof(id), "ptdb-run-%u", dp->progress_n);
	if (in->watching)	/* software watchpoints: single-stepping, no trace */
		snprintf(msg, sizeof(msg), "%" PRIu64 " instructions single-stepped for "
			 "watchpoints, %.0f/s", in->insns, in->rate);
	else
		snprintf(msg, sizeof(msg), "%" PRIu64 " instructions traced, %.0f/s, buffer %u%%%s",
			 in->insns, in->rate, in->fill_pct, in->wrapped ? " (wrapped)" : "");
	b = json_object_new_object();
	json_object_object_add(b, "progressId", json_object_new_string(id));
	if (!dp->progress_on) {
		dp->progress_on = 1;
		json_object_object_add(b, "title", json_object_new_string(in->watching ?
					"Run checking watchpoints" : "Traced run"));
		json_object_object_add(b, "cancellable", json_object_new_boolean(0));
		json_object_object_add(b, "message", json_object_new_string(msg));
		dap_event(dp, "progressStart", b);
		return;
	}
	json_object_object_add(b, "message", json_object_new_string(msg));
	dap_event(dp, "progressUpdate", b);
}

/* A long command's progress (decoding a trace for a move back, a dump):
 * cancellable, by the cancel request's progressId (dap-live.c). */
static void on_long(void *ctx, enum cmd_progress_phase phase, const char *label, int pct)
{
	struct dap *dp = ctx;
	struct json_object *b;
	char msg[32];

	if (!dp->progress_ok || dp->gone)
		return;
	b = json_object_new_object();
	if (phase == CMD_PROGRESS_BEGIN) {
		pthread_mutex_lock(&dp->qlock);
		snprintf(dp->decode_id, sizeof(dp->decode_id), "ptdb-long-%u", dp->decode_n++);
		pthread_mutex_unlock(&dp->qlock);
	}
	json_object_object_add(b, "progressId", json_object_new_string(dp->decode_id));
	if (phase == CMD_PROGRESS_END) {
		dap_event(dp, "progressEnd", b);
		pthread_mutex_lock(&dp->qlock);
		dp->decode_id[0] = 0;
		pthread_mutex_unlock(&dp->qlock);
		return;
	}
	snprintf(msg, sizeof(msg), "%d%%", pct);
	json_object_object_add(b, "message", json_object_new_string(msg));
	json_object_object_add(b, "percentage", json_object_new_int(pct));
	if (phase == CMD_PROGRESS_UPDATE) {
		dap_event(dp, "progressUpdate", b);
		return;
	}
	json_object_object_add(b, "title", json_object_new_string(label));
	json_object_object_add(b, "cancellable", json_object_new_boolean(1));
	dap_event(dp, "progressStart", b);
}

void dap_progress_install(struct dap *dp)
{
	dp->s->dbg.tr.progress.fn = on_progress;
	dp->s->dbg.tr.progress.ctx = dp;
	cmd_progress_listen(on_long, dp);
}

void dap_progress_end(struct dap *dp)
{
	struct json_object *b;
	char id[32];

	if (!dp->progress_on)
		return;
	snprintf(id, sizeof(id), "ptdb-run-%u", dp->progress_n++);
	b = json_object_new_object();
	json_object_object_add(b, "progressId", json_object_new_string(id));
	dap_event(dp, "progressEnd", b);
	dp->progress_on = 0;
}
