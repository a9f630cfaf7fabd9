/* core/session/dbg_host.c: what the rooms below ask of the session, handed
 * down to them so that they never call up by name.  A collector's struct
 * dbg_host (core/collectors/collector.h): the session's and the trace
 * session's functions, d->host, which the trace session passes down in
 * the struct dbg_tracee it hands the collector.  Values' and expressions'
 * struct value_env (core/data/value.h): d->env, in every frame_ctx. */
#include <stdlib.h>
#include <string.h>

#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/tracing/cursor.h"
#include "core/tracing/dbg_trace_int.h"

const struct dbg_host dbg_host = {
	.alive = dbg_alive,
	.insn_at = dbg_insn_at,
	.disasm = dbg_disasm,
	.bp_hit = dbg_bp_hit,
	.refresh_modules = dbg_refresh_modules,
	.signal_stop = dbg_signal_stop,
	.end_stop = dbg_end_stop,
	.run_native = dbg_run_native,
	.progress_begin = dbg_progress_begin,
	.progress_tick = dbg_progress_tick,
	.progress_poll = dbg_progress_poll,
	.trace_find = dbg_trace_find,
	.proc_threads = dbg_proc_threads,
	.trace_adopt = dbg_trace_adopt,
	.trace_over_limit = dbg_trace_over_limit,
	.trace_drop_kept = dbg_trace_drop_kept,
	.thread_release = dbg_trace_thread_release,
};

static struct dbg_module *trace_modules(struct dbg *d, int *n)
{
	*n = d->nmods;
	return d->mods;
}

static struct dbg_stop *trace_last(struct dbg *d)
{
	return &d->last;
}

static void trace_select(struct dbg *d, pid_t tid)
{
	d->sel_tid = tid;
	d->sel_frame = 0;
}

/* A loaded bundle's target (core/tracing/dbg_bundle.c): the modules are
 * added already. */
static void trace_loaded(struct dbg *d, const char *exe, pid_t pid, pid_t tid)
{
	d->exe_path = xstrdup(exe);
	d->pid = pid;
	trace_select(d, tid);
	memset(&d->last, 0, sizeof(d->last));
}

/* The session's part of what a collector is handed (dbg_tee; the
 * watchpoints' cache turns, dbg_watch_cache.c). */
void dbg_host_tee(struct dbg *d, struct dbg_tracee *t)
{
	t->proc = d->proc;
	t->pid = d->pid;
	t->running = &d->running;
	t->interrupt_requested = &d->interrupt_requested;
	t->load_bp = &d->load_bp;
	t->sel_tid = &d->sel_tid;
	t->host = d->host;
}

const struct dbg_trace_host dbg_trace_host = {
	.alive = dbg_alive,
	.module_for = dbg_module_for,
	.add_module = dbg_add_module,
	.drop_target = dbg_drop_target,
	.resolve_all = dbg_resolve_all,
	.pm_frames = dbg_pm_frames,
	.disasm = dbg_disasm,
	.read_some = dbg_read_some,
	.addr_line = dbg_addr_line,
	.modules = trace_modules,
	.last = trace_last,
	.select = trace_select,
	.loaded = trace_loaded,
	.bp_replay_hit = dbg_bp_replay_hit,
	.tee = dbg_host_tee,
};

static struct sym_type *type_named(struct dbg *d, const char *name)
{
	for (int i = 0; i < d->nmods; i++)
		if (d->mods[i].sym && d->mods[i].end) {
			struct sym_type *t = sym_type_named(d->mods[i].sym, name);

			if (t)
				return t;
		}
	return NULL;
}

/* The function called name: its runtime entry and its module. */
static struct dbg_module *function_named(struct dbg *d, struct dbg_module *first,
					 const char *name, uint64_t *fn)
{
	char tagged[1024];

	if (first && first->sym && sym_lookup_func(first->sym, name, fn, NULL, 1) == 1)
		return first;
	/* the dynamic loader's private copies (its own strlen) last */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < d->nmods; i++)
			if (d->mods[i].sym && d->mods[i].end &&
			    (strstr(d->mods[i].path ? d->mods[i].path : "", "/ld-linux") != NULL) == pass &&
			    sym_lookup_func(d->mods[i].sym, name, fn, NULL, 1) == 1)
				return &d->mods[i];
	/* no process: the executable's, at its file address ("p main") */
	if (!dbg_alive(d) && d->nmods && d->mods[0].sym && !d->mods[0].end &&
	    sym_lookup_func(d->mods[0].sym, name, fn, NULL, 1) == 1)
		return &d->mods[0];
	/* a function returning std::string carries the ABI tag in its name
	 * ("hello[abi:cxx11]()"): called by the name the user knows */
	if (!strchr(name, '[') && !strchr(name, '(') &&
	    snprintf(tagged, sizeof(tagged), "%s[abi:cxx11]", name) < (int)sizeof(tagged))
		return function_named(d, first, tagged, fn);
	return NULL;
}

/* The class whose vtable holds runtime address vptr (a vtable symbol,
 * "vtable for ns::Derived"): LLDB's dynamic type of an object, found in
 * the vtable's module first.  NULL when vptr is in no vtable. */
static struct sym_type *vtable_class(struct dbg *d, uint64_t vptr)
{
	struct dbg_module *m = dbg_module_for(d, vptr);
	struct sym_type *t = NULL;
	const char *name;
	uint64_t off;
	char *dem;

	if (!m || !m->sym || sym_data_at(m->sym, vptr, &name, &off) < 0 ||
	    strncmp(name, "_ZTV", 4) || !(dem = sym_demangle(name)))
		return NULL;
	if (!strncmp(dem, "vtable for ", 11)) {
		t = sym_type_named(m->sym, dem + 11);
		if (!t)
			t = type_named(d, dem + 11);
	}
	free(dem);
	return t;
}

static int dynamic_values(struct dbg *d)
{
	return !d->no_dynamic;
}

static struct target_proc *proc(struct dbg *d)
{
	return d->proc;
}

void dbg_env_init(struct dbg *d)
{
	d->env = (struct value_env){
		.d = d,
		.read = dbg_read,
		.read_some = dbg_read_some,
		.format_addr = dbg_format_addr,
		.var_named = frame_var_named,
		.type_named = type_named,
		.vtable_class = vtable_class,
		.dynamic_values = dynamic_values,
		.proc = proc,
		.code_changed = dbg_icache_free,
		.replaying = dbg_replaying,
		.replay_pc = dbg_replay_pc,
		.function_named = function_named,
		.call = dbg_call,
	};
}
