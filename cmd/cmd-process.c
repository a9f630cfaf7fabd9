/* cmd/cmd-process.c: "file" and the "process" group (launch, attach,
 * continue, interrupt, detach, kill, status, handle). */
#include "cmd/builtin.h"
#include "cmd/replay.h"
#include "cmd/report.h"
#include "cmd/tty-relay.h"
#include "core/session/session.h"
#include "target/target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cmd_warn_dwarf(struct dbg *d, FILE *err)
{
	const char *why = d->nmods && d->mods[0].sym ? sym_module_dwarf_problem(d->mods[0].sym) : NULL;

	/* the target is usable (ELF symbols): a warning, not a failure */
	if (why)
		fprintf(err, "warning: '%s' has corrupt debug information (%s); source lines and "
			"variables may be missing\n", d->exe_path, why);
}

static enum cmd_status exec_file(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;

	if (dbg_set_exe(d, a->argv[0], &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	fprintf(ctx->out, "Current executable set to '%s' (x86_64).\n", d->exe_path);
	fflush(ctx->out);
	cmd_warn_dwarf(d, ctx->err);
	return CMD_OK;
}

const struct cmd_node cmd_file_node = {
	.name = "file", .summary = "Set the executable to debug.",
	.syntax = "<filename>", .min_args = 1, .max_args = 1, .flags = CMD_ARGS_FILES,
	.details = "Loads the program's symbols and line tables.  Breakpoints already set are resolved against it.",
	.exec = exec_file,
};

/* Output the inferior writes must follow what ptdb printed before it. */
static void flush(struct cmd_ctx *ctx)
{
	fflush(ctx->out);
	fflush(ctx->err);
}

static enum cmd_status finish_run(struct cmd_ctx *ctx, int r, struct dbg_stop *stop,
				  struct ptdb_err *err)
{
	return cmd_after_stop(ctx, r, stop, err);
}

/* 'r' with a live process: as LLDB, asks on a terminal (default yes) and
 * proceeds otherwise; kills the process (its exit reported).  -1: keep it. */
static int relaunch(struct cmd_ctx *ctx)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_stop stop;
	struct ptdb_err err;

	if (ctx->s->interactive &&
	    !cmd_ask_yes(ctx->out, "There is a running process, kill it and restart?: [Y/n] "))
		return -1;
	if (dbg_kill(d, &stop, &err) < 0)
		return 0;	/* gone meanwhile: launch anyway */
	report_exit(ctx->out, d, &stop);
	return 0;
}

/* The program's stdio, as LLDB gives it: its own pseudo-terminal when
 * ptdb is at a terminal's prompt or --tty asks, /dev/null for --no-stdio,
 * the files of -i/-o/-e; otherwise ptdb's own (batch mode: output straight
 * through).  fds[i] -1: ptdb's; *master: the pseudo-terminal's master or
 * -1.  -1 after the error. */
static int launch_stdio(struct cmd_ctx *ctx, const struct cmd_args *a, int fds[3], int *master)
{
	static const char *const names[3] = { "stdin", "stdout", "stderr" };
	int pty = cmd_opt_given(ctx->node, a, "tty") ||
		  (ctx->s->interactive && isatty(STDOUT_FILENO));
	int slave = -1, given = 0;
	struct ptdb_err err;

	*master = -1;
	for (int i = 0; i < 3; i++) {
		const char *path = cmd_opt(ctx->node, a, names[i]);

		fds[i] = -1;
		if (cmd_opt_given(ctx->node, a, "no-stdio") && !path)
			path = "/dev/null";
		if (!path)
			continue;
		fds[i] = open(path, (i ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY) | O_CLOEXEC, 0644);
		if (fds[i] < 0) {
			int e = errno;

			for (int k = 0; k < i; k++)
				if (fds[k] >= 0)
					close(fds[k]);
			return cmd_error(ctx, "cannot open '%s' for %s: %s", path, names[i], strerror(e)), -1;
		}
		given++;
	}
	if (pty && given < 3) {
		if (target_pty_open(isatty(STDIN_FILENO) ? STDIN_FILENO : -1, master, &slave, &err) < 0) {
			for (int i = 0; i < 3; i++)
				if (fds[i] >= 0)
					close(fds[i]);
			return cmd_error(ctx, "%s", err.msg), -1;
		}
		for (int i = 0; i < 3; i++)
			if (fds[i] < 0)
				fds[i] = dup(slave);
		close(slave);
	}
	return 0;
}

static enum cmd_status exec_launch(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_stop stop;
	struct ptdb_err err;
	char **argv, **words = NULL;
	unsigned reread;
	int n = 0, r, fds[3], master, own;
	const char *msg;

	if (need_target(ctx) < 0)
		return CMD_ERROR;
	if (dbg_alive(d) && relaunch(ctx) < 0)
		return CMD_OK;	/* the user said no: nothing changes */
	if (a->argc == 0) {
		n = cmd_split(settings_get(&ctx->s->settings, SETTING_RUN_ARGS), &words, &msg);
		if (n < 0)
			return cmd_error(ctx, "target.run-args: %s", msg);
	}
	argv = xcalloc((size_t)(a->argc + n + 2), sizeof(*argv));
	argv[0] = d->exe_path;
	for (int i = 0; i < a->argc; i++)
		argv[1 + i] = a->argv[i];
	for (int i = 0; i < n; i++)
		argv[1 + a->argc + i] = words[i];
	flush(ctx);
	if (launch_stdio(ctx, a, fds, &master) < 0) {
		free(argv);
		cmd_argv_free(words);
		return CMD_ERROR;
	}
	own = fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0;
	reread = d->exe_reread;
	r = dbg_launch_io(d, argv, settings_get_bool(&ctx->s->settings, SETTING_DISABLE_ASLR),
			  own ? fds : NULL, &err);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(argv);
	cmd_argv_free(words);
	if (r < 0) {
		if (master >= 0)
			close(master);
		return cmd_error(ctx, "%s", err.msg);
	}
	cmd_relay_own_session = own;
	if (master >= 0)
		cmd_relay_start(master, &d->running);
	if (d->exe_reread != reread)
		fprintf(ctx->out, "'%s' has changed on disk: read again.\n", d->exe_path);
	dbg_interrupt_arm(d);
	fprintf(ctx->out, "Process %d launched: '%s' (x86_64)\n", (int)d->pid, d->exe_path);
	flush(ctx);
	r = dbg_continue(d, &stop, &err);
	return finish_run(ctx, r, &stop, &err);
}

static enum cmd_status exec_continue(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_stop stop;
	struct ptdb_err err;
	int r;

	(void)a;
	if (dbg_replaying(d))	/* forward through the history */
		return cmd_replay_run(ctx, 1, DBG_RP_CONTINUE);
	if (need_process(ctx) < 0)
		return CMD_ERROR;
	dbg_interrupt_arm(d);
	fprintf(ctx->out, "Process %d resuming\n", (int)d->pid);
	flush(ctx);
	/* a finish another stop interrupted may complete */
	r = dbg_continue(d, &stop, &err);
	if (r == 0 && stop.out_done)
		cmd_note_return_value(d, stop.tid, d->out_ret);
	return finish_run(ctx, r, &stop, &err);
}

/* The one attachable process named name: its pid, or -1 with the error
 * (none, or several: their pids listed, as -p picks one). */
static long find_by_name(struct cmd_ctx *ctx, const char *name)
{
	pid_t pids[64];
	char list[512];
	size_t used = 0;
	int count = target_pids_named(name, pids, 64);

	if (count < 0) {
		cmd_error(ctx, "attach failed: cannot read /proc: %s", strerror(errno));
		return -1;
	}
	if (count == 0) {
		cmd_error(ctx, "attach failed: could not find a process named %s", name);
		return -1;
	}
	if (count == 1)
		return pids[0];
	list[0] = 0;
	for (int i = 0; i < count; i++) {
		if (i == 64 || used >= sizeof(list) - 32) {
			snprintf(list + used, sizeof(list) - used, ", ...");
			break;
		}
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d", i ? ", " : "", (int)pids[i]);
	}
	cmd_error(ctx, "attach failed: more than one process named %s: %s (use -p <pid>)", name, list);
	return -1;
}

static enum cmd_status exec_attach(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *p = cmd_opt(ctx->node, a, "pid");
	const char *name = cmd_opt(ctx->node, a, "name");
	struct ptdb_err err;
	char *end;
	long pid;

	if (p && name)
		return cmd_error(ctx, "attach takes either a process id (-p) or a name (-n), not both");
	if (!p && !name)
		return cmd_error(ctx, "attach requires a process id (-p <pid>) or a name (-n <name>)");
	if (p) {
		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || *end || pid <= 0 || pid != (pid_t)pid)
			return cmd_error(ctx, "invalid process id '%s'", p);
	}
	if (dbg_alive(d))
		return cmd_error(ctx, "a process is already being debugged; use 'process detach' first");
	if (!p) {
		if (!*name)
			return cmd_error(ctx, "attach failed: empty process name");
		if ((pid = find_by_name(ctx, name)) < 0)
			return CMD_ERROR;
	}
	if (dbg_attach(d, (pid_t)pid, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	fprintf(ctx->out, "Process %d stopped\n", (int)d->pid);
	report_thread_frame(ctx->out, d, d->sel_tid, 0);
	if (d->exe_path)
		fprintf(ctx->out, "Executable module set to \"%s\".\n", d->exe_path);
	return CMD_OK;
}

static enum cmd_status exec_detach(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;
	pid_t pid = d->pid;

	(void)a;
	if (need_process(ctx) < 0)
		return CMD_ERROR;
	if (dbg_detach(d, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	fprintf(ctx->out, "Process %d detached\n", (int)pid);
	return CMD_OK;
}

static enum cmd_status exec_kill(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_stop stop;
	struct ptdb_err err;

	(void)a;
	if (need_process(ctx) < 0)
		return CMD_ERROR;
	if (dbg_kill(d, &stop, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (stop.signaled && stop.signo == SIGKILL) {
		/* lldb-16 words the exit the kill made "killed" */
		fflush(ctx->out);
		cmd_relay_drain();
		fprintf(ctx->out, "Process %d exited with status = %d (0x%08x) killed\n", (int)d->pid,
			SIGKILL, SIGKILL);
	} else {
		report_exit(ctx->out, d, &stop);
	}
	return CMD_OK;
}

static enum cmd_status exec_interrupt(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	if (need_process(ctx) < 0)
		return CMD_ERROR;
	/* Commands run only while the process is stopped (all-stop). */
	return cmd_error(ctx, "Failed to halt process: Process is not running.");
}

static enum cmd_status exec_status(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;

	(void)a;
	if (!dbg_alive(d)) {
		if (d->proc && d->last.reason == DBG_R_EXITED) {
			report_exit(ctx->out, d, &d->last);
			return CMD_OK;
		}
		return need_process(ctx) < 0 ? CMD_ERROR : CMD_OK;
	}
	fprintf(ctx->out, "Process %d stopped\n", (int)d->pid);
	report_thread_frame(ctx->out, d, d->sel_tid, d->sel_frame);
	return CMD_OK;
}

/* "process handle": signal policy. */
static int parse_bool(const char *s, int *out)
{
	if (!strcasecmp(s, "true") || !strcasecmp(s, "1") || !strcasecmp(s, "yes")) {
		*out = 1;
		return 0;
	}
	if (!strcasecmp(s, "false") || !strcasecmp(s, "0") || !strcasecmp(s, "no")) {
		*out = 0;
		return 0;
	}
	return -1;
}

static void handle_row(FILE *out, const struct dbg *d, int sig, const char *alias)
{
	const struct dbg_sig *g = &d->sig[sig];

	fprintf(out, "%-11s  %-5s  %-5s  %-5s\n", alias ? alias : target_signal_name(sig),
		g->pass ? "true" : "false", g->stop ? "true" : "false",
		g->notify ? "true" : "false");
}

static enum cmd_status exec_handle(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	static const char *const names[3] = { "stop", "pass", "notify" };
	struct dbg *d = &ctx->s->dbg;
	int val[3], given[3], sigs[65], ns = 0;
	const char *alias[65] = { 0 };

	for (int k = 0; k < 3; k++) {
		const char *v = cmd_opt(ctx->node, a, names[k]);

		given[k] = v != NULL;
		if (v && parse_bool(v, &val[k]) < 0)
			return cmd_error(ctx, "invalid value '%s' for --%s: expected true or false", v, names[k]);
	}
	for (int i = 0; i < a->argc && ns < 65; i++) {
		int s = cmd_parse_signal(a->argv[i]);

		if (s < 0)
			return cmd_error(ctx, "invalid signal name '%s'", a->argv[i]);
		/* lldb-16 lists an alias by the name given */
		if (!strcasecmp(a->argv[i], "SIGIOT") || !strcasecmp(a->argv[i], "SIGPOLL"))
			alias[ns] = s == 6 ? "SIGIOT" : "SIGPOLL";
		sigs[ns++] = s;
	}
	if (ns == 0)
		for (int s = 1; s < 65; s++)
			if (target_signal_name(s))
				sigs[ns++] = s;
	for (int i = 0; i < ns && a->argc; i++) {
		struct dbg_sig *g = &d->sig[sigs[i]];

		/* as lldb-16: stopping implies notifying, unless -n says
		 * otherwise (-n false leaves a stopping signal silent) */
		if (given[0]) {
			g->stop = (unsigned char)val[0];
			if (val[0])
				g->notify = 1;
		}
		if (given[1])
			g->pass = (unsigned char)val[1];
		if (given[2])
			g->notify = (unsigned char)val[2];
	}
	fprintf(ctx->out, "NAME         PASS   STOP   NOTIFY\n");
	fprintf(ctx->out, "===========  =====  =====  ======\n");
	for (int i = 0; i < ns; i++)
		handle_row(ctx->out, d, sigs[i], alias[i]);
	return CMD_OK;
}

static const struct cmd_opt launch_opts[] = {
	{ 't', "tty", OPT_FLAG, NULL, "Give the program a pseudo-terminal of its own, ptdb relaying its output "
	  "(the default at the prompt on a terminal)." },
	{ 'n', "no-stdio", OPT_FLAG, NULL, "The program's stdin, stdout and stderr are /dev/null." },
	{ 'i', "stdin", OPT_STRING, "filename", "Redirect the program's stdin from the file." },
	{ 'o', "stdout", OPT_STRING, "filename", "Redirect the program's stdout to the file." },
	{ 'e', "stderr", OPT_STRING, "filename", "Redirect the program's stderr to the file." },
	{ 0 }
};

static const struct cmd_node process_launch = {
	.name = "launch", .opts = launch_opts, .summary = "Launch the executable in the debugger.",
	.syntax = "[-- <run-args> ...]", .min_args = 0, .max_args = -1,
	.details = "Arguments after -- are passed to the program; without any, the setting target.run-args is used.  "
		"The program runs until a breakpoint, a signal or its exit.  At the prompt on a terminal it has a "
		"pseudo-terminal of its own (ptdb writes its output and passes it the keys typed while it runs; "
		"the terminal's Ctrl-C stops it with SIGSTOP); elsewhere it shares ptdb's stdin and stdout "
		"unless -t, -n, -i, -o or -e say otherwise.  With a live process it asks "
		"(at the prompt on a terminal) whether to kill it and restart, and does so otherwise.",
	.needs = CMD_NEEDS_TARGET, .exec = exec_launch, .flags = CMD_NO_REPEAT,
};

static const struct cmd_node process_attach = {
	.name = "attach", .summary = "Attach to a running process.",
	.syntax = "", .min_args = 0, .max_args = 0, .exec = exec_attach, .flags = CMD_NO_REPEAT,
	.details = "Give the process by its id (-p) or by its name (-n); a name that fits no process, "
		"or more than one, is an error (the candidates' ids are listed).  The process stops "
		"where it is; 'detach' leaves it running.  The alias 'attach' takes either: "
		"'attach 1234' is 'process attach -p 1234', 'attach NAME' is 'process attach -n NAME'.",
	.opts = (const struct cmd_opt[]){
		{ 'p', "pid", OPT_STRING, "pid", "The process ID of the process to attach to." },
		{ 'n', "name", OPT_STRING, "process-name", "The name of the process to attach to: "
		  "the one process (not ptdb, not traced already) whose command name, or the "
		  "basename of whose executable or argv[0], is this." },
		{ 0 } },
};

static const struct cmd_node process_continue = {
	.name = "continue", .summary = "Continue execution of all threads in the current process.",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = exec_continue,
};

static const struct cmd_node process_detach = {
	.name = "detach", .summary = "Detach from the current process, leaving it running.",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_PROCESS, .exec = exec_detach,
};

static const struct cmd_node process_kill = {
	.name = "kill", .summary = "Terminate the current process.",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_PROCESS, .exec = exec_kill,
};

static const struct cmd_node process_interrupt = {
	.name = "interrupt", .summary = "Interrupt the current process (Ctrl-C while it runs).",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_PROCESS, .exec = exec_interrupt,
};

static const struct cmd_node process_status = {
	.name = "status", .summary = "Show the status of the current process.",
	.syntax = "", .min_args = 0, .max_args = 0, .exec = exec_status,
	.opts = (const struct cmd_opt[]){
		{ 'v', "verbose", OPT_FLAG, NULL, "Show more: the extended crash information some "
		  "platforms keep, which a Linux process has none of (the same output)." },
		{ 0 } },
};

static const struct cmd_node process_handle = {
	.name = "handle", .summary = "Show or change what the debugger does when the process receives a signal.",
	.syntax = "[<signal-name> ...]",
	.min_args = 0, .max_args = -1, .exec = exec_handle,
	.opts = (const struct cmd_opt[]){
		{ 's', "stop", OPT_STRING, "boolean", "Whether the process stops when the signal arrives." },
		{ 'p', "pass", OPT_STRING, "boolean", "Whether the signal is passed to the process." },
		{ 'n', "notify", OPT_STRING, "boolean", "Whether the debugger says the signal arrived." },
		{ 0 } },
};

const struct cmd_node cmd_process_node = {
	.name = "process", .summary = "Commands for interacting with processes on the current platform.",
	.children = (const struct cmd_node *const[]){
		&process_attach, &process_continue, &process_detach, &process_handle,
		&process_interrupt, &process_kill, &process_launch, &process_status,
		&cmd_process_trace_node, NULL },
};
