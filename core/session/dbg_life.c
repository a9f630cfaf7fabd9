/* core/session/dbg_life.c: a session's lifetime — set up, released, and what goes
 * with a process (its trace, watchpoints, breakpoints' plantings) or with
 * the modules (symbols, the types of watchpoints and expression
 * results). */
#include "core/tracing/cursor.h"
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/tracing/dbg_trace_int.h"
#include "core/data/expr.h"
#include "core/session/watch.h"
#include "trace/tsc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

void dbg_init(struct dbg *d)
{
	memset(d, 0, sizeof(*d));
	d->tr.tsc_conv = xcalloc(1, sizeof(*d->tr.tsc_conv));
	d->next_bp_id = 1;
	d->host = &dbg_host;
	d->tr.host = &dbg_trace_host;
	d->tr.proc = &d->proc;
	d->tr.pid = &d->pid;
	dbg_env_init(d);
	for (int i = 1; i < 65; i++) {
		d->sig[i].stop = d->sig[i].pass = d->sig[i].notify = 1;
	}
	/* lldb-16's table ('process handle'): timers and the real-time
	 * signals pass silently, a child's end or a continue is only said */
	static const int quiet[] = { SIGALRM, SIGPROF };
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		d->sig[quiet[i]].stop = 0;
		d->sig[quiet[i]].notify = 0;
	}
	for (int i = 32; i < 65; i++)
		d->sig[i].stop = d->sig[i].notify = 0;
	d->sig[SIGCHLD].stop = 0;
	d->sig[SIGCONT].stop = 0;
	d->sig[SIGINT].pass = 0;
	d->sig[SIGSTOP].pass = 0;
	d->sig[SIGTRAP].pass = 0;
}

void dbg_drop_modules(struct dbg *d, int keep_exe)
{
	dbg_watch_drop_types(d);
	int k = 0;

	expr_store_drop(d->results);	/* their types may die with the modules */
	for (int i = 0; i < d->nmods; i++) {
		if (keep_exe && d->mods[i].is_exe) {
			d->mods[k] = d->mods[i];
			d->mods[k].start = d->mods[k].end = 0;
			sym_module_set_bias(d->mods[k].sym, 0);
			k++;
			continue;
		}
		sym_module_free(d->mods[i].sym);
		free(d->mods[i].path);
		free(d->mods[i].real);
	}
	d->nmods = k;
}

void dbg_drop_process(struct dbg *d)
{
	dbg_replay_leave(d);
	dbg_trace_end(d);
	dbg_watch_free(d);	/* their addresses were this process's */
	if (d->proc)
		target_free(d->proc);
	d->proc = NULL;
	d->pid = 0;
	d->sel_tid = 0;
	d->sel_frame = 0;
	d->load_bp = 0;
	d->maps_sig = 0;
	for (int i = 0; i < d->nbps; i++)
		for (int k = 0; k < d->bps[i].nlocs; k++)
			d->bps[i].locs[k].planted = 0;
}

void dbg_drop_target(struct dbg *d)
{
	dbg_drop_process(d);
	dbg_drop_modules(d, 0);
	dbg_unload_bundle(d);
	free(d->exe_path);
	d->exe_path = NULL;
	/* its hits went with its locations (the count is their sum) */
	for (int i = 0; i < d->nbps; i++)
		d->bps[i].nlocs = d->bps[i].hits = 0;
}

void dbg_release(struct dbg *d)
{
	free(d->stop_note);
	d->stop_note = NULL;
	free(d->stop_error);
	d->stop_error = NULL;
	expr_store_free(d->results);
	d->results = NULL;
	dbg_unload_bundle(d);
	dbg_drop_process(d);
	dbg_drop_modules(d, 0);
	free(d->mods);
	for (int i = 0; i < d->nbps; i++) {
		free(d->bps[i].name);
		free(d->bps[i].file);
		free(d->bps[i].cond);
		dbg_bp_set_commands(&d->bps[i], NULL, 0, 0);
	}
	free(d->bps);
	free(d->exe_path);
	free(d->debug_dirs);
	free(d->source_map);
	free(d->tr.tsc_conv);
	free(d->step_avoid);
	dbg_icache_free(d);
	dbg_decoded_free(d);
	if (d->dis)
		disasm_free(d->dis);
	memset(d, 0, sizeof(*d));
}
