/* cmd/main.c: ptdb's entry point: options, batch scripts, then the prompt. */
#include "cmd/builtin.h"
#include "cmd/dap.h"
#include "cmd/repl.h"
#include "cmd/script.h"
#include "cmd/trace-progress.h"
#include "cmd/tty-relay.h"
#include "core/session/session.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("Usage: ptdb [options] [--] [program [args...]]\n"
	      "\n"
	      "Options:\n"
	      "  -p, --attach-pid PID    attach to process PID, then run -s/-o\n"
	      "  -n, --attach-name NAME  attach to the process named NAME, then -s/-o\n"
	      "  -s, --source FILE       run the commands in FILE ('-' is stdin)\n"
	      "  -o, --one-line CMD      run CMD (repeatable; runs in order with -s)\n"
	      "  -b, --batch             quit after running the commands\n"
	      "      --dap               serve the Debug Adapter Protocol on stdin/stdout\n"
	      "      --dap-port N        serve it on 127.0.0.1:N (0: a free port, told on stderr)\n"
	      "  -h, --help              show this help\n"
	      "  -V, --version           show the version\n", out);
}

struct action {
	int is_file;
	const char *text;
};

/* While commands from -s/-o run, Ctrl-C stops the inferior they run (as
 * at the prompt) instead of killing ptdb and leaving breakpoints planted in
 * an attached process.  The one pointer a signal handler may need. */
static struct dbg *script_dbg;

static void on_script_sigint(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (script_dbg)
		dbg_request_interrupt(script_dbg, si && si->si_code == SI_KERNEL &&
				      !cmd_relay_own_session);
}

/* SIGTERM, SIGHUP: finish (or interrupt) the command running, then leave
 * as 'quit' does but detaching from an attached process, so that it runs on
 * without ptdb's breakpoints.  The one session pointer the handler needs. */
static struct session *term_session;

static void on_term(int sig)
{
	if (!term_session)
		return;
	term_session->term_signal = sig;
	dbg_request_interrupt(&term_session->dbg, 0);
}

static void leave_on_signal(struct session *s)
{
	struct dbg *d = &s->dbg;
	struct ptdb_err err;
	const char *name = s->term_signal == SIGHUP ? "SIGHUP" : "SIGTERM";
	pid_t pid = d->pid;

	if (!dbg_alive(d))
		return;
	if (target_was_launched(d->proc)) {
		fprintf(stderr, "ptdb: %s received: killing process %d\n", name, (int)pid);
		return;	/* session_release kills it */
	}
	if (dbg_detach(d, &err) < 0)
		fprintf(stderr, "error: %s\n", err.msg);
	else
		fprintf(stderr, "ptdb: %s received: detached from process %d\n", name, (int)pid);
}

/* The bytes cmd_split treats specially, backslash-escaped (an empty word
 * as ""), so that it gives word back as it was. */
static char *escape_word(char *p, const char *word)
{
	if (!*word) {
		*p++ = '"';
		*p++ = '"';
	}
	for (const char *c = word; *c; c++) {
		if (strchr(" \t\n\r'\"\\", *c))
			*p++ = '\\';
		*p++ = *c;
	}
	return p;
}

/* "CMD WORD" with WORD escaped: one argument whatever it holds. */
static char *quoted_command(const char *cmd, const char *word)
{
	char *buf = xmalloc(strlen(cmd) + 2 * strlen(word) + 4), *p = buf;

	p += sprintf(p, "%s ", cmd);
	p = escape_word(p, word);
	*p = 0;
	return buf;
}

/* "ptdb PROG ARGS...": as 'file PROG' with target.run-args ARGS. */
static int set_program(struct session *s, char **args, int n)
{
	struct ptdb_err err;
	size_t len = 1;
	char *buf, *p;

	if (dbg_set_exe(&s->dbg, args[0], &err) < 0) {
		fprintf(stderr, "error: %s\n", err.msg);
		return -1;
	}
	printf("Current executable set to '%s' (x86_64).\n", s->dbg.exe_path);
	fflush(stdout);
	cmd_warn_dwarf(&s->dbg, stderr);
	for (int i = 1; i < n; i++)
		len += 2 * strlen(args[i]) + 3;
	p = buf = xmalloc(len);
	/* escaped, so cmd_split gives the words back and settings show reads
	 * as typed */
	for (int i = 1; i < n; i++) {
		if (i > 1)
			*p++ = ' ';
		p = escape_word(p, args[i]);
	}
	*p = 0;
	if (n > 1 && settings_set(&s->settings, "target.run-args", buf, &err) < 0)
		fprintf(stderr, "error: %s\n", err.msg);
	free(buf);
	return 0;
}

/* Ctrl-C while -s/-o run, and SIGTERM/SIGHUP ending the session. */
static void install_signals(struct session *s)
{
	struct sigaction sa = { .sa_sigaction = on_script_sigint };

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO;
	script_dbg = &s->dbg;
	sigaction(SIGINT, &sa, NULL);
	/* no SA_RESTART: a read waiting for a command line returns */
	sa.sa_flags = 0;
	sa.sa_handler = on_term;
	term_session = s;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* --dap-port's value: 0 to 65535, or -1 told on stderr. */
static int dap_port_arg(const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v < 0 || v > 65535) {
		fprintf(stderr, "error: invalid --dap-port '%s': expected 0 to 65535\n", arg);
		return -1;
	}
	return (int)v;
}

/* -s and -o in order, until one quits, a signal ends ptdb, or (stop-on-error)
 * one fails. */
static enum cmd_status run_actions(struct session *s, const struct action *acts, int nacts,
				   int *failed)
{
	enum cmd_status st = CMD_OK;

	for (int i = 0; i < nacts && st != CMD_EXIT && !s->term_signal; i++) {
		if (acts[i].is_file) {
			char why[128];
			FILE *f = strcmp(acts[i].text, "-") ? script_open(acts[i].text, why, sizeof(why)) : stdin;

			if (!f) {
				fprintf(stderr, "error: cannot open command file '%s': %s\n",
					acts[i].text, why);
				*failed = 1;
				continue;
			}
			st = script_run_file(s, f, stdout, stderr, failed);
			if (f != stdin)
				fclose(f);
		} else {
			st = script_run_line(s, acts[i].text, stdout, stderr, failed);
		}
		if (*failed && settings_get_bool(&s->settings, SETTING_STOP_ON_ERROR))
			break;
	}
	return st;
}

/* --dap: the client's launch or attach request names the program, so
 * nothing else may (other: a program, -s, -o, -p or -n was given). */
static int run_dap(struct session *s, int other, int port)
{
	if (other) {
		fprintf(stderr, "error: --dap takes no program, -s, -o, -p or -n: the client's "
			"launch or attach request names the program\n");
		return 2;
	}
	return dap_main(s, port);
}

/* What the command line asks for. */
struct opts {
	struct action *acts;	/* -s and -o in order */
	int nacts, batch, dap, dap_port;
	const char *attach_pid, *attach_name;
};

/* The options of argv into o: -1 to go on (optind: the program and its
 * arguments), else the exit status (--help, --version, --dap-terminal's
 * launcher, or an error said on stderr). */
static int parse_options(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "one-line", required_argument, NULL, 'o' },
		{ "batch", no_argument, NULL, 'b' },
		{ "attach-pid", required_argument, NULL, 'p' },
		{ "attach-name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "dap", no_argument, NULL, 'D' },
		{ "dap-port", required_argument, NULL, 'P' },
		{ "dap-terminal", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+s:o:p:n:bhV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
		case 'o':
			o->acts[o->nacts].is_file = c == 's';
			o->acts[o->nacts++].text = optarg;
			break;
		case 'b':
			o->batch = 1;
			break;
		case 'p':
			o->attach_pid = optarg;
			break;
		case 'n':
			o->attach_name = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'D':
			o->dap = 1;
			break;
		case 'P':
			if ((o->dap_port = dap_port_arg(optarg)) < 0)
				return 2;
			o->dap = 1;
			break;
		case 'T':	/* the launcher a DAP client runs in its terminal */
			return dap_terminal_main(optarg);
		case 'V':
			printf("ptdb version %s\n", PTDB_VERSION);
			return 0;
		default:
			if (optopt)
				fprintf(stderr, "error: invalid option or missing value: '-%c'\n", optopt);
			else
				fprintf(stderr, "error: invalid option: '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (o->attach_pid && o->attach_name) {
		fprintf(stderr, "error: -p and -n both given: attach takes a process id or a name\n");
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct opts o = { .dap_port = -1 };
	struct session s;
	char *attach_line = NULL;
	int failed = 0, rc;
	enum cmd_status st = CMD_OK;

	o.acts = calloc((size_t)argc + 1, sizeof(*o.acts));
	if (!o.acts)
		return 1;
	rc = parse_options(argc, argv, &o);
	if (rc >= 0) {
		free(o.acts);
		return rc;
	}
	rc = 0;
	session_init(&s);
	cmd_set_tree(cmd_builtin_root(), cmd_builtin_aliases());
	s.batch = o.batch;
	if (o.dap) {
		rc = run_dap(&s, optind < argc || o.nacts || o.attach_pid || o.attach_name,
			     o.dap_port);
		session_release(&s);
		free(o.acts);
		return rc;
	}
	cmd_trace_progress_install(&s.dbg, stderr);
	if (optind < argc && set_program(&s, argv + optind, argc - optind) < 0)
		failed = 1;
	install_signals(&s);
	/* -p/-n: the attach runs first, as a command, then -s/-o */
	if (o.attach_pid || o.attach_name) {
		attach_line = quoted_command(o.attach_pid ? "process attach -p" : "process attach -n",
					     o.attach_pid ? o.attach_pid : o.attach_name);
		st = script_run_line(&s, attach_line, stdout, stderr, &failed);
		free(attach_line);
		if (failed && settings_get_bool(&s.settings, SETTING_STOP_ON_ERROR))
			o.nacts = 0;
	}
	if (st != CMD_EXIT)
		st = run_actions(&s, o.acts, o.nacts, &failed);
	signal(SIGINT, SIG_DFL);
	if (!o.batch && st != CMD_EXIT && !s.term_signal)
		repl_run(&s);
	else if (o.batch && failed)
		rc = 1;
	fflush(stdout);
	if (s.term_signal) {
		leave_on_signal(&s);
		rc = 128 + s.term_signal;
	}
	session_release(&s);
	cmd_relay_end();
	free(o.acts);
	return rc;
}
