/* cmd/dap-term.c: the program in the editor's terminal (launch with
 * "console": "integratedTerminal" or "externalTerminal", or lldb-dap's
 * "runInTerminal": true).  ptdb --dap asks the client (the runInTerminal
 * reverse request) to run "ptdb --dap-terminal SOCKET" in its terminal;
 * that launcher connects to the socket and hands over its standard input,
 * output and error (SCM_RIGHTS), on which ptdb launches the program as it
 * launches any (so breakpoints, tracing, kill at disconnect are the same).
 * The launcher stays, passing the terminal's Ctrl-C to the program, until
 * ptdb closes the socket (the program ended, or the session). */
#include "cmd/dap.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* How long the client may take to start the launcher. */
#define TERM_WAIT_MS 30000

/* ---- the launcher (ptdb --dap-terminal SOCKET) ---- */

static volatile pid_t term_prog;

static void pass_sigint(int sig)
{
	(void)sig;
	if (term_prog > 0)
		kill(term_prog, SIGINT);
}

int dap_terminal_main(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fds[3] = { 0, 1, 2 }, s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char cbuf[CMSG_SPACE(sizeof(fds))], line[32] = "", *p = line;
	struct iovec iov = { "t", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	ssize_t n;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "error: socket path too long: %s\n", path);
		return 1;
	}
	strcpy(a.sun_path, path);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fprintf(stderr, "error: cannot reach ptdb --dap at %s: %s\n", path, strerror(errno));
		return 1;
	}
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	if (sendmsg(s, &m, 0) != 1) {
		fprintf(stderr, "error: cannot hand the terminal to ptdb: %s\n", strerror(errno));
		return 1;
	}
	signal(SIGINT, pass_sigint);
	/* the program's pid, then nothing until ptdb closes the socket */
	while ((n = read(s, p, 1)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (*p == '\n') {
			term_prog = (pid_t)atoi(line);
			p = line;
		} else if (p < line + sizeof(line) - 1) {
			p++;
		}
	}
	return 0;
}

/* ---- ptdb --dap's side ---- */

static void reverse_request(struct dap *dp, const char *kind, const char *title, const char *cwd,
			    const char *sock)
{
	struct json_object *m = json_object_new_object(), *a = json_object_new_object();
	struct json_object *argv = json_object_new_array();
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = 0;
	json_object_array_add(argv, json_object_new_string(n > 0 ? self : "ptdb"));
	json_object_array_add(argv, json_object_new_string("--dap-terminal"));
	json_object_array_add(argv, json_object_new_string(sock));
	json_object_object_add(a, "kind", json_object_new_string(kind));
	json_object_object_add(a, "title", json_object_new_string(title));
	json_object_object_add(a, "cwd", json_object_new_string(cwd));
	json_object_object_add(a, "args", argv);
	json_object_object_add(m, "type", json_object_new_string("request"));
	json_object_object_add(m, "command", json_object_new_string("runInTerminal"));
	json_object_object_add(m, "arguments", a);
	pthread_mutex_lock(&dp->qlock);
	dp->rit_state = 1;	/* asked */
	pthread_mutex_unlock(&dp->qlock);
	dap_send(dp, m);
}

/* The launcher's descriptors, from its connection. */
static int receive_fds(int c, int fds[3])
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *h;

	if (recvmsg(c, &m, MSG_CMSG_CLOEXEC) != 1 || !(h = CMSG_FIRSTHDR(&m)) ||
	    h->cmsg_type != SCM_RIGHTS || h->cmsg_len != CMSG_LEN(3 * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(h), 3 * sizeof(int));
	return 0;
}

int dap_terminal_open(struct dap *dp, const char *kind, const char *title, int fds[3], char *msg,
		      size_t n)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/ptdb-dap-XXXXXX", cwd[PATH_MAX];
	int s = -1, c = -1, waited = 0, state = 1;

	if (!dp->rit_ok) {
		snprintf(msg, n, "the client cannot run the program in a terminal "
			 "(no supportsRunInTerminalRequest)");
		return -1;
	}
	if (!mkdtemp(dir)) {
		snprintf(msg, n, "cannot make a directory in /tmp: %s", strerror(errno));
		return -1;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/terminal", dir);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0) {
		snprintf(msg, n, "cannot listen on %s: %s", a.sun_path, strerror(errno));
		goto out;
	}
	reverse_request(dp, kind, title, getcwd(cwd, sizeof(cwd)) ? cwd : "/", a.sun_path);
	for (;;) {
		struct pollfd p = { s, POLLIN, 0 };

		if (poll(&p, 1, 100) > 0) {
			c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
			break;
		}
		pthread_mutex_lock(&dp->qlock);
		state = dp->rit_state;
		pthread_mutex_unlock(&dp->qlock);
		if (state == 3 || dp->gone || (waited += 100) > TERM_WAIT_MS)
			break;	/* refused, or never run */
	}
	if (c < 0 || receive_fds(c, fds) < 0) {
		snprintf(msg, n, "%s", state == 3 ? "the client could not run the program in a terminal"
			 : "the terminal's launcher never connected");
		if (c >= 0)
			close(c);
		c = -1;
	}
out:
	if (s >= 0)
		close(s);
	unlink(a.sun_path);
	rmdir(dir);
	if (c >= 0)
		dp->term_fd = c;
	return c >= 0 ? 0 : -1;
}

void dap_terminal_started(struct dap *dp, pid_t pid)
{
	char line[32];

	if (dp->term_fd < 0)
		return;
	snprintf(line, sizeof(line), "%d\n", (int)pid);
	if (write(dp->term_fd, line, strlen(line)) < 0) {
		close(dp->term_fd);
		dp->term_fd = -1;
	}
}

void dap_terminal_close(struct dap *dp)
{
	if (dp->term_fd >= 0)
		close(dp->term_fd);
	dp->term_fd = -1;
}
