/* cmd/dap-run.c: the DAP requests that start, run and end the debuggee —
 * launch (with ptdb's trace), attach, configurationDone, continue and
 * the steps forward and back (through the same
 * commands the REPL runs, so that replaying, breakpoint conditions and
 * the end of the trace behave alike), pause, restart, terminate and
 * disconnect — and the events that tell the client where it stopped. */
#include "cmd/dap.h"
#include "cmd/builtin.h"
#include "cmd/cmd.h"
#include "cmd/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL(...) (snprintf(msg, n, __VA_ARGS__), -1)

static struct dbg *D(struct dap *dp)
{
	return &dp->s->dbg;
}

/* ---- stops ---- */

/* The breakpoint at the replay cursor, or 0. */
static unsigned replay_bp(struct dbg *d)
{
	uint64_t pc = dbg_replay_pc(d);

	for (int i = 0; i < d->nbps; i++)
		for (int l = 0; l < d->bps[i].nlocs; l++)
			if (d->bps[i].enabled && d->bps[i].locs[l].addr == pc)
				return d->bps[i].id;
	return 0;
}

static const char *reason_word(const struct dbg_stop *st)
{
	switch (st->reason) {
	case DBG_R_BREAKPOINT:
		return "breakpoint";
	case DBG_R_WATCH:
		return "data breakpoint";
	case DBG_R_SIGNAL:
		return "exception";
	case DBG_R_INTERRUPT:
		return "pause";
	case DBG_R_EXEC:
		return "entry";
	default:
		return "step";
	}
}

void dap_report_stop(struct dap *dp, const char *hint)
{
	struct dbg *d = D(dp);
	struct json_object *b, *ids = NULL;
	char desc[512];
	unsigned bpid = 0;
	pid_t tid;

	dap_flush_output(dp);
	dap_refs_reset(dp);
	dap_progress_end(dp);
	dap_events_sync(dp);
	if (!dbg_alive(d) && !dbg_replaying(d)) {
		if (dp->exited_sent || (!dp->launched && !dp->attached))
			return;
		if (d->last.reason == DBG_R_EXITED) {
			b = json_object_new_object();
			json_object_object_add(b, "exitCode", json_object_new_int(
				d->last.signaled ? 128 + d->last.signo : d->last.exit_status));
			dap_event(dp, "exited", b);
		}
		dap_event(dp, "terminated", NULL);
		dp->exited_sent = 1;
		dap_terminal_close(dp);
		return;
	}
	b = json_object_new_object();
	if (dbg_replaying(d)) {
		uint64_t id, total;

		tid = dbg_replay_tid(d);
		dbg_replay_cursor(d, &id, &total);
		snprintf(desc, sizeof(desc), "replaying: instruction %" PRIu64 " of %" PRIu64 "%s", id,
			 total, id == 0 ? " (the trace begins here)" : "");
		bpid = replay_bp(d);
		json_object_object_add(b, "reason", json_object_new_string(
			bpid && hint && !strcmp(hint, "breakpoint") ? "breakpoint" : "step"));
		if (!(bpid && hint && !strcmp(hint, "breakpoint")))
			bpid = 0;
	} else {
		const char *r = hint && !strcmp(hint, "entry") ? "entry" : reason_word(&d->last);

		tid = d->last.tid ? d->last.tid : d->sel_tid;
		if (!dbg_thread_index(d, tid))
			tid = d->sel_tid;
		json_object_object_add(b, "reason", json_object_new_string(r));
		desc[0] = 0;
		if (d->last.reason == DBG_R_BREAKPOINT || d->last.reason == DBG_R_WATCH)
			bpid = d->last.bp_id;
		report_reason(d, tid, desc, sizeof(desc));
		if (hint && !strcmp(hint, "live"))
			snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc),
				 "%sthe end of the trace: live again", desc[0] ? "; " : "");
	}
	if (bpid) {
		struct dap_bp *bp = dap_bp_of_dbg(dp, bpid, d->last.reason == DBG_R_WATCH &&
					      !dbg_replaying(d) ? 'd' : 's');

		if (bp) {
			ids = json_object_new_array();
			json_object_array_add(ids, json_object_new_int((int)bp->id));
			json_object_object_add(b, "hitBreakpointIds", ids);
		}
	}
	json_object_object_add(b, "threadId", json_object_new_int(tid));
	json_object_object_add(b, "allThreadsStopped", json_object_new_boolean(1));
	json_object_object_add(b, "preserveFocusHint", json_object_new_boolean(0));
	if (desc[0]) {
		json_object_object_add(b, "description", json_object_new_string(desc));
		if (dbg_replaying(d))
			json_object_object_add(b, "text", json_object_new_string(desc));
	}
	dap_event(dp, "stopped", b);
	dp->stopped_once = 1;
}

static void set_transparent(struct dap *dp, int on)
{
	pthread_mutex_lock(&dp->qlock);
	dp->transparent_ok = on;
	if (!on)
		dp->bp_interrupt = 0;
	pthread_mutex_unlock(&dp->qlock);
}

/* The run was stopped only for breakpoint requests (dap-live.c): they are
 * answered and it goes on, unseen by the client.  1 if so. */
static int serve_bp_requests(struct dap *dp)
{
	struct dbg *d = D(dp);
	struct json_object *req;
	int was;

	pthread_mutex_lock(&dp->qlock);
	was = dp->bp_interrupt;
	dp->bp_interrupt = 0;
	pthread_mutex_unlock(&dp->qlock);
	if (!was || !dbg_alive(d) || dbg_replaying(d) || d->last.reason != DBG_R_INTERRUPT ||
	    dap_live_stop_wanted(dp))
		return 0;
	while ((req = dap_live_take_bp(dp))) {
		struct json_object *args = NULL, *body = NULL;
		const char *c = dap_str(req, "command");
		char msg[1024] = "";
		int rc;

		json_object_object_get_ex(req, "arguments", &args);
		rc = dap_bp_handler(c)(dp, args, &body, msg, sizeof(msg));
		dap_respond(dp, dap_int(req, "seq", 0), c, rc == 0, msg, body);
		json_object_put(req);
	}
	return 1;
}

/* Runs line (a ptdb command) and reports the stop; log points print and
 * run on. */
static void run(struct dap *dp, const char *line, const char *hint)
{
	struct dbg *d = D(dp);
	int was_replaying = dbg_replaying(d);

	dap_refs_reset(dp);
	dp->implied = 1;	/* the client asked: no continued event */
	for (int guard = 0; guard < 100000 && !dp->gone; guard++) {
		struct dap_bp *bp;
		char text[4096];

		set_transparent(dp, !strcmp(line, "process continue") && !dbg_replaying(d));
		dap_command(dp, line, 1);
		if (serve_bp_requests(dp))
			continue;
		set_transparent(dp, 0);
		if (!dbg_alive(d) || dbg_replaying(d) || d->last.reason != DBG_R_BREAKPOINT)
			break;
		bp = dap_bp_of_dbg(dp, d->last.bp_id, 's');
		if (!bp || !bp->log || strcmp(line, "process continue"))
			break;
		dap_log_message(dp, bp->log, text, sizeof(text));
		dap_output(dp, "console", text);
	}
	set_transparent(dp, 0);
	dp->implied = 0;
	/* forward past the end of the trace: the live stop again */
	dap_report_stop(dp, was_replaying && !dbg_replaying(d) && dbg_alive(d) ? "live" : hint);
}

/* ---- launch, attach ---- */

static int run_commands(struct dap *dp, struct json_object *args, const char *key)
{
	struct json_object *a;

	if (!args || !json_object_object_get_ex(args, key, &a) || !json_object_is_type(a, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *c = json_object_array_get_idx(a, i);

		if (json_object_is_type(c, json_type_string))
			dap_command(dp, json_object_get_string(c), 0);
	}
	return 0;
}

static void set_env(struct json_object *env)
{
	if (!env)
		return;
	if (json_object_is_type(env, json_type_object)) {
		json_object_object_foreach(env, k, v) {
			if (json_object_is_type(v, json_type_null))
				unsetenv(k);
			else
				setenv(k, json_object_get_string(v), 1);
		}
	} else if (json_object_is_type(env, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(env); i++) {
			const char *kv = json_object_get_string(json_object_array_get_idx(env, i));
			char *eq = kv ? strchr(kv, '=') : NULL;

			if (eq) {
				char *k = strndup(kv, (size_t)(eq - kv));

				setenv(k, eq + 1, 1);
				free(k);
			}
		}
	}
}

/* ptdb's "trace": {"mode": "thread"|"process", "size": N|"64KiB", "engine": ...} */
static int start_trace(struct dap *dp, struct json_object *t, char *msg, size_t n)
{
	const char *mode = dap_str(t, "mode"), *engine = dap_str(t, "engine");
	struct json_object *sz;
	char line[256], size[64] = "";

	if (!mode)
		mode = "thread";
	if (strcmp(mode, "thread") && strcmp(mode, "process"))
		return FAIL("invalid trace mode '%s': expected thread or process", mode);
	if (engine) {
		snprintf(line, sizeof(line), "settings set trace.software.engine %s", engine);
		if (dap_command(dp, line, 0) != CMD_OK)
			return FAIL("invalid trace engine '%s': expected cache or ptrace", engine);
	}
	if (json_object_object_get_ex(t, "size", &sz))
		snprintf(size, sizeof(size), " --size %s", json_object_get_string(sz));
	snprintf(line, sizeof(line), "%s trace start%s", mode, size);
	if (dap_command(dp, line, 0) != CMD_OK)
		return FAIL("'%s' failed (see the console)", line);
	return 0;
}

/* "console": "integratedTerminal" | "externalTerminal" (or lldb-dap's
 * "runInTerminal": true): the program's stdio is the client's terminal
 * (dap-term.c); otherwise fds stay -1 and its output comes as output events. */
static int in_terminal(struct dap *dp, struct json_object *args, int fds[3], char *msg, size_t n)
{
	const char *console = dap_str(args, "console"), *kind = NULL, *prog = dap_str(args, "program");
	char title[256];

	if (console && !strcmp(console, "integratedTerminal"))
		kind = "integrated";
	else if (console && !strcmp(console, "externalTerminal"))
		kind = "external";
	else if (console && strcmp(console, "internalConsole"))
		return FAIL("invalid console '%s': expected internalConsole, integratedTerminal or "
			    "externalTerminal", console);
	else if (dap_bool(args, "runInTerminal", 0))
		kind = "integrated";
	if (!kind)
		return 0;
	snprintf(title, sizeof(title), "ptdb: %s", strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog);
	return dap_terminal_open(dp, kind, title, fds, msg, n);
}

static int do_launch(struct dap *dp, struct json_object *args, char *msg, size_t n)
{
	struct dbg *d = D(dp);
	const char *prog = dap_str(args, "program"), *cwd = dap_str(args, "cwd");
	struct json_object *a, *env, *t;
	struct ptdb_err err;
	int fds[3] = { -1, -1, -1 };
	char **argv;
	size_t na = 0;
	int r;

	if (!prog)
		return FAIL("launch needs 'program'");
	run_commands(dp, args, "initCommands");
	if (!d->exe_path || strcmp(d->exe_path, prog)) {
		char *warn = NULL;
		size_t wn = 0;
		FILE *w;

		if (dbg_set_exe(d, prog, &err) < 0)
			return FAIL("%s", err.msg);
		if ((w = open_memstream(&warn, &wn))) {
			cmd_warn_dwarf(d, w);	/* corrupt DWARF: said, as 'file' says it */
			fclose(w);
			dap_output(dp, "console", warn);
			free(warn);
		}
	}
	run_commands(dp, args, "preRunCommands");
	if (cwd && chdir(cwd) < 0)
		return FAIL("cannot change to '%s': %s", cwd, strerror(errno));
	if (json_object_object_get_ex(args, "env", &env))
		set_env(env);
	if (json_object_object_get_ex(args, "args", &a) && json_object_is_type(a, json_type_array))
		na = json_object_array_length(a);
	if (in_terminal(dp, args, fds, msg, n) < 0)
		return -1;
	argv = calloc(na + 2, sizeof(*argv));
	argv[0] = d->exe_path;
	for (size_t i = 0; i < na; i++)
		argv[i + 1] = (char *)json_object_get_string(json_object_array_get_idx(a, i));
	r = dbg_launch_io(d, argv, settings_get_bool(&dp->s->settings, SETTING_DISABLE_ASLR),
			  fds[0] >= 0 ? fds : NULL, &err);
	free(argv);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (r < 0) {
		dap_terminal_close(dp);
		return FAIL("%s", err.msg);
	}
	dap_terminal_started(dp, d->pid);
	dp->launched = 1;
	dp->exited_sent = 0;
	dp->stop_on_entry = dap_bool(args, "stopOnEntry", 0);
	if (json_object_object_get_ex(args, "trace", &t) && json_object_is_type(t, json_type_object) &&
	    start_trace(dp, t, msg, n) < 0)
		return -1;
	return 0;
}

static int launch(struct dap *dp, struct json_object *args, struct json_object **body, char *msg,
		  size_t n)
{
	(void)body;
	if (dp->launched || dp->attached)
		return FAIL("a process is already being debugged");
	if (do_launch(dp, args, msg, n) < 0)
		return -1;
	json_object_put(dp->launch_args);
	dp->launch_args = json_object_get(args);
	return 0;
}

static int attach(struct dap *dp, struct json_object *args, struct json_object **body, char *msg,
		  size_t n)
{
	struct dbg *d = D(dp);
	int64_t pid = dap_int(args, "pid", 0);
	const char *prog = dap_str(args, "program"), *name = dap_str(args, "name");
	char line[512];

	(void)body;
	if (dp->launched || dp->attached)
		return FAIL("a process is already being debugged");
	run_commands(dp, args, "initCommands");
	if (!pid && !name && prog)
		name = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	if (pid > 0)
		snprintf(line, sizeof(line), "process attach -p %" PRId64, pid);
	else if (name && !strpbrk(name, " '\"\\"))
		snprintf(line, sizeof(line), "process attach -n %s", name);
	else
		return FAIL("attach needs 'pid' or a process 'name' (or 'program')");
	dap_command(dp, line, 0);
	if (!dbg_alive(d))
		return FAIL("attach failed (see the console)");
	dp->attached = 1;
	dp->exited_sent = 0;
	dp->stop_on_entry = dap_bool(args, "stopOnEntry", 0);
	run_commands(dp, args, "preRunCommands");
	return 0;
}

static void send_process(struct dap *dp, const char *how)
{
	struct json_object *b = json_object_new_object();
	struct dbg *d = D(dp);

	json_object_object_add(b, "name", json_object_new_string(d->exe_path ? d->exe_path : "?"));
	json_object_object_add(b, "systemProcessId", json_object_new_int(d->pid));
	json_object_object_add(b, "isLocalProcess", json_object_new_boolean(1));
	json_object_object_add(b, "startMethod", json_object_new_string(how));
	json_object_object_add(b, "pointerSize", json_object_new_int(64));
	dap_event(dp, "process", b);
}

/* The process runs (or, stopOnEntry, reports its first stop). */
static void start(struct dap *dp)
{
	if (dp->stop_on_entry) {
		dap_report_stop(dp, "entry");
		return;
	}
	run(dp, "process continue", NULL);
}

static int config_done(struct dap *dp, struct json_object *args, struct json_object **body,
		       char *msg, size_t n)
{
	(void)args;
	(void)body;
	if (dp->configured)
		return FAIL("configurationDone was already sent");
	dp->configured = 1;
	return 0;
}

/* ---- running ---- */

static int need_stopped(struct dap *dp, struct json_object *args, char *msg, size_t n)
{
	struct dbg *d = D(dp);
	int64_t tid = dap_int(args, "threadId", 0);

	if (!dbg_alive(d) && !dbg_replaying(d))
		return FAIL("no process: launch or attach first");
	if (!dp->configured)
		return FAIL("the process runs after configurationDone");
	if (tid && !dbg_replaying(d) && dbg_thread_index(d, (pid_t)tid))
		dbg_select_thread(d, (pid_t)tid);
	return 0;
}

static int resume_req(struct dap *dp, struct json_object *args, struct json_object **body,
		      char *msg, size_t n)
{
	if (need_stopped(dp, args, msg, n) < 0)
		return -1;
	*body = json_object_new_object();
	json_object_object_add(*body, "allThreadsContinued", json_object_new_boolean(1));
	return 0;
}

static int step_req(struct dap *dp, struct json_object *args, struct json_object **body,
		    char *msg, size_t n)
{
	(void)body;
	return need_stopped(dp, args, msg, n);
}

static int back_req(struct dap *dp, struct json_object *args, struct json_object **body,
		    char *msg, size_t n)
{
	struct dbg *d = D(dp);

	(void)body;
	if (need_stopped(dp, args, msg, n) < 0)
		return -1;
	if (!dbg_trace_thread(d, dbg_replaying(d) ? dbg_replay_tid(d) : d->sel_tid))
		return FAIL("the thread is not traced: there is no history to step back in "
			    "(launch with \"trace\": {\"mode\": \"thread\"})");
	return 0;
}

static int pause_req(struct dap *dp, struct json_object *args, struct json_object **body,
		     char *msg, size_t n)
{
	(void)args;
	(void)body;
	dp->pause_pending = 0;	/* the run it stopped is over */
	if (!dp->launched && !dp->attached)
		return FAIL("no process: launch or attach first");
	return 0;	/* a running process was interrupted by the reader */
}

/* Ends the debuggee as asked: killed, or detached and running. */
static void end_process(struct dap *dp, int terminate)
{
	struct dbg *d = D(dp);
	struct dbg_stop st;
	struct ptdb_err err;

	if (dbg_replaying(d))
		dbg_replay_leave(d);
	dap_terminal_close(dp);
	if (!dbg_alive(d))
		return;
	if (terminate)
		dbg_kill(d, &st, &err);
	else if (dbg_detach(d, &err) < 0)
		dbg_kill(d, &st, &err);
}

void dap_abandon(struct dap *dp)
{
	end_process(dp, dp->launched);
	dp->done = 1;
}

static int disconnect(struct dap *dp, struct json_object *args, struct json_object **body,
		      char *msg, size_t n)
{
	(void)body;
	(void)msg;
	(void)n;
	end_process(dp, dap_bool(args, "terminateDebuggee", dp->launched));
	dp->done = 1;
	return 0;
}

static int terminate(struct dap *dp, struct json_object *args, struct json_object **body,
		     char *msg, size_t n)
{
	(void)args;
	(void)body;
	if (!dp->launched && !dp->attached)
		return FAIL("no process: launch or attach first");
	end_process(dp, 1);
	return 0;
}

static int restart(struct dap *dp, struct json_object *args, struct json_object **body,
		   char *msg, size_t n)
{
	struct json_object *la = NULL;

	(void)body;
	if (!dp->launch_args)
		return FAIL("restart needs a launched process");
	if (args && json_object_object_get_ex(args, "arguments", &la) && la)
		la = json_object_get(la);
	else
		la = json_object_get(dp->launch_args);
	end_process(dp, 1);
	dp->launched = 0;
	dap_refs_reset(dp);
	if (do_launch(dp, la, msg, n) < 0) {
		json_object_put(la);
		return -1;
	}
	json_object_put(dp->launch_args);
	dp->launch_args = la;
	return 0;
}

static int cancel(struct dap *dp, struct json_object *args, struct json_object **body, char *msg,
		  size_t n)
{
	(void)dp;
	(void)args;
	(void)body;
	(void)msg;
	(void)n;
	return 0;	/* requests are answered in order: nothing is left to cancel */
}

void dap_after(struct dap *dp, const char *c, struct json_object *args)
{
	int insn = args && dap_str(args, "granularity") && !strcmp(dap_str(args, "granularity"), "instruction");

	if (dp->stop_pending) {		/* a console command moved the stop */
		dp->stop_pending = 0;
		dap_report_stop(dp, NULL);
	}
	if (!strcmp(c, "launch") || !strcmp(c, "attach")) {
		send_process(dp, c);
		dap_events_sync(dp);
		dap_event(dp, "initialized", NULL);
	} else if (!strcmp(c, "configurationDone")) {
		if (dp->launched || dp->attached)
			start(dp);
	} else if (!strcmp(c, "restart")) {
		send_process(dp, "launch");
		start(dp);
	} else if (!strcmp(c, "terminate")) {
		dap_report_stop(dp, NULL);
	} else if (!strcmp(c, "continue")) {
		run(dp, "process continue", "breakpoint");	/* (replaying: at one) */
	} else if (!strcmp(c, "next")) {
		run(dp, insn ? "thread step-inst-over" : "thread step-over", NULL);
	} else if (!strcmp(c, "stepIn")) {
		run(dp, insn ? "thread step-inst" : "thread step-in", NULL);
	} else if (!strcmp(c, "stepOut")) {
		run(dp, "thread step-out", NULL);
	} else if (!strcmp(c, "stepBack")) {
		run(dp, insn ? "thread reverse-stepi" : "thread reverse-next", NULL);
	} else if (!strcmp(c, "reverseContinue")) {
		run(dp, "thread reverse-continue", "breakpoint");
	}
}

dap_handler dap_run_handler(const char *c)
{
	static const struct {
		const char *name;
		dap_handler fn;
	} tab[] = {
		{ "launch", launch }, { "attach", attach }, { "configurationDone", config_done },
		{ "continue", resume_req }, { "next", step_req }, { "stepIn", step_req },
		{ "stepOut", step_req }, { "stepBack", back_req }, { "reverseContinue", back_req },
		{ "pause", pause_req }, { "disconnect", disconnect }, { "terminate", terminate },
		{ "restart", restart }, { "cancel", cancel },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, c))
			return tab[i].fn;
	return dap_bp_handler(c);
}
