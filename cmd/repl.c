/* cmd/repl.c: the libedit prompt: history, completion, Ctrl-C, repeat of
 * stepping commands on an empty line. */
#include "cmd/repl.h"
#include "cmd/cmd.h"
#include "base/err.h"

#include <errno.h>
#include <histedit.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

/* Set by the SIGINT handler; the only signal-shared state ptdb has. */
static volatile sig_atomic_t repl_interrupted;

static struct session *prompt_session;

static void on_sigint(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	repl_interrupted = 1;
	/* While a command runs the inferior: stop it (only kill(2) inside).
	 * A terminal's Ctrl-C (SI_KERNEL) reached a launched inferior too. */
	if (prompt_session)
		dbg_request_interrupt(&prompt_session->dbg, si && si->si_code == SI_KERNEL);
}

/* The signals that end a wait for a key: blocked while libedit works and
 * let in only inside ppoll, so one that comes between two reads (after
 * libedit echoed a key, before it reads the next) is taken at the next
 * wait instead of waiting for another key. */
static sigset_t key_wait_mask;

/* libedit's read-a-character function: one byte at a time through ppoll,
 * decoded as the locale says; -1 with errno EINTR when a signal came. */
static int getc_fn(EditLine *el, wchar_t *wc)
{
	mbstate_t mbs;

	(void)el;
	memset(&mbs, 0, sizeof(mbs));
	for (;;) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		ssize_t n;
		size_t k;
		char c;

		if (repl_interrupted || prompt_session->term_signal ||
		    (ppoll(&pfd, 1, NULL, &key_wait_mask) < 0 && errno == EINTR)) {
			*wc = 0;
			errno = EINTR;
			return -1;
		}
		n = read(STDIN_FILENO, &c, 1);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			*wc = 0;
			return -1;
		}
		k = mbrtowc(wc, &c, 1, &mbs);
		if (k == (size_t)-2)
			continue;	/* more bytes of this character */
		if (k == (size_t)-1)
			*wc = (unsigned char)c;
		return 1;
	}
}

static char *prompt_fn(EditLine *el)
{
	(void)el;
	return (char *)settings_get(&prompt_session->settings, SETTING_PROMPT);
}

const char *repl_history_path(void)
{
	static char path[4096];
	const char *env = getenv("PTDB_HISTORY"), *home = getenv("HOME");

	if (env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else
		snprintf(path, sizeof(path), "%s/.ptdb_history", home ? home : ".");
	return path;
}

/* Longest common prefix of the candidates. */
static size_t common_prefix(char **v, int n)
{
	size_t len = strlen(v[0]);

	for (int i = 1; i < n; i++) {
		size_t k = 0;

		while (k < len && v[i][k] == v[0][k])
			k++;
		len = k;
	}
	return len;
}

static unsigned char complete_fn(EditLine *el, int ch)
{
	const LineInfo *li = el_line(el);
	size_t wordlen, plen;
	char *line, **m;
	int n;
	unsigned char ret = CC_REFRESH;

	(void)ch;
	line = xmalloc((size_t)(li->cursor - li->buffer) + 1);
	memcpy(line, li->buffer, (size_t)(li->cursor - li->buffer));
	line[li->cursor - li->buffer] = '\0';
	n = cmd_complete_in(line, prompt_session ? &prompt_session->dbg : NULL, &m, &wordlen);
	free(line);
	if (n == 0) {
		ret = CC_ERROR;
	} else if (n == 1) {
		const char *tail = m[0] + wordlen;
		size_t tl = strlen(tail);
		char buf[1024];

		snprintf(buf, sizeof(buf), "%s%s", tail, tl && tail[tl - 1] == '/' ? "" : " ");
		if (!tl && m[0][strlen(m[0]) - 1] == '/')
			buf[0] = '\0';
		el_insertstr(el, buf);
	} else {
		plen = common_prefix(m, n);
		if (plen > wordlen) {
			char buf[1024];

			snprintf(buf, sizeof(buf), "%.*s", (int)(plen - wordlen), m[0] + wordlen);
			el_insertstr(el, buf);
		} else {
			fputc('\n', stdout);
			for (int i = 0; i < n; i++)
				printf("%s%s", m[i], i + 1 < n ? "  " : "\n");
			ret = CC_REDISPLAY;
		}
	}
	cmd_argv_free(m);
	return ret;
}

/* What an empty line runs after line (LLDB's stepping/continuing repeat
 * themselves, "memory read" goes on): a new string, or NULL. */
static char *repeatable(const char *line)
{
	char path[256], msg[256], **w;
	const char *errmsg;
	const struct cmd_node *node = NULL;
	int n, used, alias = 0;

	n = cmd_split(line, &w, &errmsg);
	if (n <= 0) {
		if (n == 0)
			cmd_argv_free(w);
		return NULL;
	}
	for (const struct cmd_alias *al = cmd_aliases(); al->name; al++)
		if (!strcmp(al->name, w[0]))
			alias = 1;
	if (!strncmp(w[0], "x/", 2)) {	/* GDB's x/NFU */
		cmd_argv_free(w);
		return xstrdup("memory read");
	}
	if (!alias) {
		node = cmd_lookup(w, n, &used, path, sizeof(path), msg, sizeof(msg));
	} else {
		for (const struct cmd_alias *al = cmd_aliases(); al->name; al++)
			if (!strcmp(al->name, w[0])) {
				char **e;
				int ne = cmd_split(al->expansion, &e, &errmsg);

				if (ne > 0)
					node = cmd_lookup(e, ne, &used, path, sizeof(path), msg, sizeof(msg));
				if (ne >= 0)
					cmd_argv_free(e);
			}
	}
	cmd_argv_free(w);
	if (!node || !(node->flags & CMD_REPEAT))
		return NULL;
	return xstrdup(node->repeat ? node->repeat : line);
}

int repl_run(struct session *s)
{
	struct sigaction sa = { .sa_sigaction = on_sigint }, old;
	sigset_t key_sigs;
	int tty = isatty(STDIN_FILENO), count, status = CMD_OK;
	char *last = NULL;
	HistEvent ev;
	History *hist;
	EditLine *el;

	prompt_session = s;
	s->interactive = tty;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, &old);
	sigemptyset(&key_sigs);
	sigaddset(&key_sigs, SIGINT);
	sigaddset(&key_sigs, SIGTERM);
	sigaddset(&key_sigs, SIGHUP);
	el = el_init("ptdb", stdin, stdout, stderr);
	hist = history_init();
	history(hist, &ev, H_SETSIZE, 1000);
	history(hist, &ev, H_SETUNIQUE, 1);
	if (tty)
		history(hist, &ev, H_LOAD, repl_history_path());
	el_set(el, EL_GETCFN, getc_fn);
	el_set(el, EL_PROMPT, prompt_fn);
	el_set(el, EL_EDITOR, "emacs");
	el_set(el, EL_HIST, history, hist);
	el_set(el, EL_ADDFN, "ptdb-complete", "Complete a command word", complete_fn);
	el_set(el, EL_BIND, "^I", "ptdb-complete", NULL);
	el_source(el, NULL);

	for (;;) {
		const char *raw;
		char *line;
		size_t len;

		repl_interrupted = 0;
		if (s->term_signal)
			break;
		sigprocmask(SIG_BLOCK, &key_sigs, &key_wait_mask);
		raw = el_gets(el, &count);
		sigprocmask(SIG_SETMASK, &key_wait_mask, NULL);
		if (s->term_signal)
			break;
		if (repl_interrupted) {
			/* Ctrl-C at the prompt: drop the line, new prompt. */
			fputc('\n', stdout);
			el_reset(el);
			continue;
		}
		if (!raw) {
			if (count < 0 && errno == EINTR)
				continue;
			fputc('\n', stdout);
			break;
		}
		line = xstrdup(raw);
		len = strlen(line);
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!tty) {
			/* Not a terminal: echo as in batch mode so output reads the same. */
			fprintf(stdout, "%s\n", line);
		}
		if (!*line && last) {
			free(line);
			line = xstrdup(last);
		} else if (*line) {
			history(hist, &ev, H_ENTER, line);
			free(last);
			last = repeatable(line);
		}
		if (*line)
			status = cmd_run_line(s, line, stdout, stderr);
		fflush(stdout);
		free(line);
		if (status == CMD_EXIT)
			break;
	}
	if (tty)
		history(hist, &ev, H_SAVE, repl_history_path());
	free(last);
	history_end(hist);
	el_end(el);
	s->interactive = 0;
	sigaction(SIGINT, &old, NULL);
	return status == CMD_EXIT ? CMD_EXIT : CMD_OK;
}
