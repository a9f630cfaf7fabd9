/* cmd/dap.c: ptdb --dap — the Debug Adapter Protocol's framing
 * (Content-Length headers, JSON bodies through json-c), a reader thread
 * that hands the client's requests to dap-live.c (queued, or answered at
 * once while the program runs) and asks a running process to stop for
 * pause and disconnect, a thread that turns the program's stdout and
 * stderr into output events, and the loop that answers the queued
 * requests in order on the session the REPL uses. */
#include "cmd/dap.h"
#include "cmd/cmd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- reading (the reader thread) ---- */

/* SIGTERM, SIGHUP: the session ends as when the client goes away (a
 * launched program killed, an attached one detached); the handler only
 * wakes the reader through this pipe. */
static int sig_pipe[2] = { -1, -1 };

static void on_term(int sig)
{
	int e = errno;

	(void)sig;
	if (write(sig_pipe[1], "t", 1) < 0)
		errno = e;
	errno = e;
}

struct rbuf {
	int fd;
	char buf[65536];
	size_t pos, len;
};

static int rbyte(struct rbuf *r)
{
	if (r->pos == r->len) {
		struct pollfd p[2] = { { r->fd, POLLIN, 0 }, { sig_pipe[0], POLLIN, 0 } };
		ssize_t n;

		while (poll(p, 2, -1) < 0)
			if (errno != EINTR)
				return -1;
		if (p[1].revents)
			return -1;	/* SIGTERM or SIGHUP */
		do
			n = read(r->fd, r->buf, sizeof(r->buf));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		r->pos = 0;
		r->len = (size_t)n;
	}
	return (unsigned char)r->buf[r->pos++];
}

/* One header block: the body's length, -2 without Content-Length, -1 at
 * the end of the input. */
static long long read_header(struct rbuf *r)
{
	char line[1024];
	long long len = -2;
	size_t n = 0;
	int c;

	for (;;) {
		if ((c = rbyte(r)) < 0)
			return -1;
		if (c != '\n') {
			if (n < sizeof(line) - 1)
				line[n++] = (char)c;
			continue;
		}
		if (n && line[n - 1] == '\r')
			n--;
		line[n] = 0;
		if (!n) {
			if (len != -2)
				return len;
			continue;	/* blank lines before a header: skipped */
		}
		if (!strncasecmp(line, "Content-Length:", 15)) {
			char *end;

			len = strtoll(line + 15, &end, 10);
			while (*end == ' ')
				end++;
			if (*end || len < 0)
				len = -3;
		}
		n = 0;
	}
}

static void *reader(void *arg)
{
	struct dap *dp = arg;
	struct rbuf *r = calloc(1, sizeof(*r));
	char msg[160];

	r->fd = dp->in_fd;
	for (;;) {
		long long len = read_header(r);
		struct json_tokener *tok;
		struct json_object *o;
		char *body;

		if (len == -1)
			break;
		if (len < 0) {
			dap_enqueue(dp, NULL, "malformed header: expected 'Content-Length: <bytes>'");
			continue;
		}
		if ((unsigned long long)len > DAP_MAX_MESSAGE) {
			for (long long i = 0; i < len; i++)
				if (rbyte(r) < 0)
					goto out;
			snprintf(msg, sizeof(msg), "message of %lld bytes refused: the limit is %u bytes",
				 len, DAP_MAX_MESSAGE);
			dap_enqueue(dp, NULL, msg);
			continue;
		}
		body = malloc((size_t)len + 1);
		for (long long i = 0; i < len; i++) {
			int c = rbyte(r);

			if (c < 0) {
				free(body);
				goto out;
			}
			body[i] = (char)c;
		}
		body[len] = 0;
		tok = json_tokener_new();
		o = json_tokener_parse_ex(tok, body, (int)len);
		if (o && dap_str(o, "type") && !strcmp(dap_str(o, "type"), "response")) {
			/* the answer to our runInTerminal (dap-term.c waits for it) */
			struct json_object *ok = NULL;

			json_object_object_get_ex(o, "success", &ok);
			pthread_mutex_lock(&dp->qlock);
			if (dp->rit_state == 1)
				dp->rit_state = json_object_get_boolean(ok) ? 2 : 3;
			pthread_mutex_unlock(&dp->qlock);
			json_object_put(o);
		} else if (!o || json_tokener_get_error(tok) != json_tokener_success ||
		    !json_object_is_type(o, json_type_object) || !dap_str(o, "command")) {
			json_object_put(o);
			dap_enqueue(dp, NULL, "malformed message: not a JSON object with a command");
		} else {
			const char *c = dap_str(o, "command");

			/* the main thread may be waiting on the process */
			if (!strcmp(c, "pause"))
				dp->pause_pending = 1;
			if (dp->running && (!strcmp(c, "pause") || !strcmp(c, "disconnect") ||
					    !strcmp(c, "terminate") || !strcmp(c, "restart")))
				dbg_request_interrupt(&dp->s->dbg, 0);
			dap_live_route(dp, o);	/* (answered at once, or queued) */
			o = NULL;
		}
		json_tokener_free(tok);
		free(body);
	}
out:
	free(r);
	dp->gone = 1;
	if (dp->running)
		dbg_request_interrupt(&dp->s->dbg, 0);
	dap_enqueue(dp, NULL, NULL);
	return NULL;
}

/* ---- the loop ---- */

static int initialize(struct dap *dp, struct json_object *args, struct json_object **body,
		      char *msg, size_t n)
{
	static const char *const yes[] = {
		"supportsConfigurationDoneRequest", "supportsFunctionBreakpoints",
		"supportsConditionalBreakpoints", "supportsHitConditionalBreakpoints",
		"supportsEvaluateForHovers", "supportsStepBack", "supportsSetVariable",
		"supportsRestartRequest", "supportsCompletionsRequest", "supportsModulesRequest",
		"supportsLogPoints", "supportsTerminateRequest", "supportsDataBreakpoints",
		"supportsReadMemoryRequest", "supportsWriteMemoryRequest",
		"supportsDisassembleRequest", "supportsSteppingGranularity",
		"supportsInstructionBreakpoints", "supportTerminateDebuggee",
		"supportsLoadedSourcesRequest", "supportsCancelRequest", NULL,
	};
	struct json_object *b = json_object_new_object();

	(void)msg;
	(void)n;
	dp->lines_start_at1 = dap_bool(args, "linesStartAt1", 1);
	dp->progress_ok = dap_bool(args, "supportsProgressReporting", 0);
	dp->rit_ok = dap_bool(args, "supportsRunInTerminalRequest", 0);
	for (int i = 0; yes[i]; i++)
		json_object_object_add(b, yes[i], json_object_new_boolean(1));
	dp->initialized = 1;
	*body = b;
	return 0;
}

static void handle(struct dap *dp, struct json_object *req)
{
	const char *command = dap_str(req, "command");
	int64_t seq = dap_int(req, "seq", 0);
	struct json_object *args = NULL, *body = NULL;
	dap_handler h = NULL;
	char msg[1024] = "";
	int rc;

	json_object_object_get_ex(req, "arguments", &args);
	if (!strcmp(command, "initialize"))
		h = initialize;
	else if (!(h = dap_run_handler(command)))
		h = dap_data_handler(command);
	if (!h) {
		snprintf(msg, sizeof(msg), "unknown request '%.200s'", command);
		dap_respond(dp, seq, command, 0, msg, NULL);
		return;
	}
	if (!dp->initialized && h != initialize) {
		dap_respond(dp, seq, command, 0, "the first request must be 'initialize'", NULL);
		return;
	}
	dap_live_begin_request(dp, seq, command);
	rc = h(dp, args, &body, msg, sizeof(msg));
	if (dap_live_end_request(dp)) {
		json_object_put(body);
		dap_respond(dp, seq, command, 0, "cancelled", NULL);
		if (dp->stop_pending)
			dap_after(dp, "", NULL);	/* where the interrupted command stopped */
		return;
	}
	dap_respond(dp, seq, command, rc == 0, msg, body);
	if (rc == 0)
		dap_after(dp, command, args);
	else if (dp->stop_pending)
		dap_after(dp, "", NULL);	/* only the stop a console command made */
}

static int listen_port(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(a);
	int one = 1, s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), c;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0) {
		fprintf(stderr, "error: cannot listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
		return -1;
	}
	fprintf(stderr, "ptdb: DAP server listening on 127.0.0.1:%d\n", ntohs(a.sin_port));
	fflush(stderr);
	do
		c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	while (c < 0 && errno == EINTR);
	close(s);
	if (c < 0)
		fprintf(stderr, "error: accept: %s\n", strerror(errno));
	return c;
}

int dap_main(struct session *s, int port)
{
	struct dap *dp = calloc(1, sizeof(*dp));
	pthread_t rd, fw;
	int in, out;

	signal(SIGPIPE, SIG_IGN);
	if (pipe2(sig_pipe, O_CLOEXEC) == 0) {
		signal(SIGTERM, on_term);
		signal(SIGHUP, on_term);
	}
	if (port >= 0) {
		if ((in = listen_port(port)) < 0)
			return 1;
		out = in;
	} else {
		in = fcntl(0, F_DUPFD_CLOEXEC, 3);
		out = fcntl(1, F_DUPFD_CLOEXEC, 3);
	}
	if (in < 0 || out < 0 || dap_redirect_stdio() < 0) {
		fprintf(stderr, "error: cannot set up the DAP channel: %s\n", strerror(errno));
		return 1;
	}
	dp->s = s;
	dp->in_fd = in;
	dp->out_fd = out;
	dp->next_bp = 1;
	dp->term_fd = -1;
	dap_progress_install(dp);
	dap_live_install(dp);
	pthread_mutex_init(&dp->wlock, NULL);
	pthread_mutex_init(&dp->qlock, NULL);
	pthread_cond_init(&dp->qcond, NULL);
	pthread_create(&fw, NULL, dap_forwarder, dp);
	pthread_create(&rd, NULL, reader, dp);
	while (!dp->done) {
		struct dap_msg *m = dap_dequeue(dp);

		if (m->req)
			handle(dp, m->req);
		else if (m->error)
			dap_respond(dp, 0, "", 0, m->error, NULL);
		else
			dap_abandon(dp);	/* the client went away */
		json_object_put(m->req);
		free(m->error);
		free(m);
	}
	dap_refs_reset(dp);
	json_object_put(dp->launch_args);
	return 0;
}
