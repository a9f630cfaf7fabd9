/* cmd/tty-relay.c: the launched program's pseudo-terminal (see
 * tty-relay.h).  One thread polls the master (the program's output) and,
 * while a command runs the program, ptdb's stdin (keys for the program);
 * the main thread drains the master before it reports a stop, so the
 * program's output comes before the report.  The thread takes no
 * signals: SIGINT stays with the main thread's waits. */
#include "cmd/tty-relay.h"
#include "cmd/trace-progress.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

volatile sig_atomic_t cmd_relay_own_session;

static struct relay {
	pthread_t th;
	int started;
	pthread_mutex_t mu;
	int master;		/* -1: none */
	int eof;		/* the program's side is closed: nothing more */
	int input;		/* forward keys while the program runs */
	const volatile sig_atomic_t *running;
	int wake[2];		/* main -> thread: look again (or quit) */
	int quit;
	struct termios saved;	/* ptdb's terminal while keys are forwarded */
	int raw;
	int want;		/* cmd_relay_input's last word */
} r = { .mu = PTHREAD_MUTEX_INITIALIZER, .master = -1, .wake = { -1, -1 } };

/* Reads what the master holds now (mu held); 0 once nothing is left. */
static void pump(void)
{
	char buf[4096];

	while (r.master >= 0 && !r.eof) {
		ssize_t n = read(r.master, buf, sizeof(buf));

		if (n > 0) {
			cmd_trace_progress_output(buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN)
			r.eof = 1;	/* EIO: the program and its children are gone */
		return;
	}
}

static void forward_keys(void)
{
	char buf[1024];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	for (ssize_t off = 0; n > 0 && off < n;) {
		ssize_t w = write(r.master, buf + off, (size_t)(n - off));

		if (w <= 0)
			break;	/* the program reads nothing: keys dropped */
		off += w;
	}
}

static void *relay_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd pf[3] = { { .fd = r.wake[0], .events = POLLIN } };
		int n = 1, keys = 0, timeout = -1;

		pthread_mutex_lock(&r.mu);
		if (r.quit) {
			pthread_mutex_unlock(&r.mu);
			return NULL;
		}
		if (r.master >= 0 && !r.eof)
			pf[n++] = (struct pollfd){ .fd = r.master, .events = POLLIN };
		if (r.input && r.master >= 0 && !r.eof) {
			keys = n;
			pf[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		}
		pthread_mutex_unlock(&r.mu);
		if (poll(pf, (nfds_t)n, timeout) < 0)
			continue;
		if (pf[0].revents) {
			char c[16];

			if (read(r.wake[0], c, sizeof(c)) < 0)
				continue;
			continue;
		}
		pthread_mutex_lock(&r.mu);
		if (n > 1 && keys != 1 && pf[1].revents)
			pump();
		if (keys && (pf[keys].revents & POLLIN) && r.input && !r.eof) {
			if (r.running && *r.running)
				forward_keys();
			else {
				/* keys typed while ptdb itself works: kept for
				 * the prompt unless the program runs on */
				pthread_mutex_unlock(&r.mu);
				poll(pf, 1, 20);
				continue;
			}
		}
		pthread_mutex_unlock(&r.mu);
	}
}

static void wake(void)
{
	if (r.wake[1] >= 0 && write(r.wake[1], "x", 1) < 0)
		return;
}

void cmd_relay_end(void)
{
	int want = r.want;

	if (!r.started)
		return;
	cmd_relay_input(0);
	r.want = want;
	cmd_relay_drain();
	pthread_mutex_lock(&r.mu);
	r.quit = 1;
	pthread_mutex_unlock(&r.mu);
	wake();
	pthread_join(r.th, NULL);
	close(r.master);
	close(r.wake[0]);
	close(r.wake[1]);
	r.master = r.wake[0] = r.wake[1] = -1;
	r.started = r.quit = 0;
}

void cmd_relay_start(int master, const volatile sig_atomic_t *running)
{
	sigset_t all, old;

	cmd_relay_end();
	if (master < 0 || pipe2(r.wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		if (master >= 0)
			close(master);
		return;
	}
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	r.master = master;
	r.eof = 0;
	r.input = 0;
	r.running = running;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r.started = pthread_create(&r.th, NULL, relay_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r.started && r.want)
		cmd_relay_input(1);	/* launched by the command that runs */
	if (!r.started) {
		close(master);
		close(r.wake[0]);
		close(r.wake[1]);
		r.master = r.wake[0] = r.wake[1] = -1;
	}
}

void cmd_relay_drain(void)
{
	if (!r.started)
		return;
	pthread_mutex_lock(&r.mu);
	pump();
	pthread_mutex_unlock(&r.mu);
}

void cmd_relay_input(int on)
{
	r.want = on;
	if (!r.started || !isatty(STDIN_FILENO) || on == r.input)
		return;
	if (on) {
		struct termios t;

		if (tcgetattr(STDIN_FILENO, &r.saved) == 0) {
			t = r.saved;
			t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
			t.c_cc[VMIN] = 1;
			t.c_cc[VTIME] = 0;
			r.raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
		}
	}
	pthread_mutex_lock(&r.mu);
	r.input = on;
	pthread_mutex_unlock(&r.mu);
	wake();
	if (!on && r.raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &r.saved);
		r.raw = 0;
	}
}

int cmd_ask_yes(FILE *out, const char *question)
{
	int was = r.want, yes;
	char line[64];

	cmd_relay_input(0);	/* ptdb's terminal, echo and all */
	fputs(question, out);
	fflush(out);
	yes = fgets(line, sizeof(line), stdin) &&
	      (line[0] == '\n' || line[0] == 'y' || line[0] == 'Y');
	if (was)
		cmd_relay_input(1);
	return yes;
}
