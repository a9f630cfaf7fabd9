/* cmd/dap-io.c: what every part of ptdb --dap uses below the request
 * loop (cmd/dap.c): reading a request's arguments, writing messages and
 * events, the program's output turned into output events, and a ptdb
 * command run with its output sent to the console. */
#include "cmd/dap.h"
#include "cmd/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *dap_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int64_t dap_int(struct json_object *o, const char *key, int64_t def)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return def;
	if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
		return json_object_get_int64(v);
	if (json_object_is_type(v, json_type_string)) {
		char *end;
		long long r = strtoll(json_object_get_string(v), &end, 0);

		return *end ? def : r;
	}
	return def;
}

int dap_bool(struct json_object *o, const char *key, int def)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_boolean))
		return def;
	return json_object_get_boolean(v);
}

/* ---- writing ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

void dap_send(struct dap *dp, struct json_object *msg)
{
	const char *text;
	char head[64];

	pthread_mutex_lock(&dp->wlock);
	json_object_object_add(msg, "seq", json_object_new_int(++dp->seq));
	text = json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	snprintf(head, sizeof(head), "Content-Length: %zu\r\n\r\n", strlen(text));
	if (!dp->gone && (write_all(dp->out_fd, head, strlen(head)) < 0 ||
			  write_all(dp->out_fd, text, strlen(text)) < 0))
		dp->gone = 1;
	pthread_mutex_unlock(&dp->wlock);
	json_object_put(msg);
}

void dap_event(struct dap *dp, const char *event, struct json_object *body)
{
	struct json_object *m = json_object_new_object();

	json_object_object_add(m, "type", json_object_new_string("event"));
	json_object_object_add(m, "event", json_object_new_string(event));
	if (body)
		json_object_object_add(m, "body", body);
	dap_send(dp, m);
}

void dap_respond(struct dap *dp, int64_t seq, const char *command, int ok, const char *msg,
		 struct json_object *body)
{
	struct json_object *m = json_object_new_object();

	json_object_object_add(m, "type", json_object_new_string("response"));
	json_object_object_add(m, "request_seq", json_object_new_int64(seq));
	json_object_object_add(m, "success", json_object_new_boolean(ok));
	json_object_object_add(m, "command", json_object_new_string(command ? command : ""));
	if (!ok) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(m, "message", json_object_new_string(msg));
		json_object_object_add(e, "id", json_object_new_int(1));
		json_object_object_add(e, "format", json_object_new_string(msg));
		json_object_object_add(e, "showUser", json_object_new_boolean(0));
		if (!body)
			body = json_object_new_object();
		json_object_object_add(body, "error", e);
	}
	if (body)
		json_object_object_add(m, "body", body);
	dap_send(dp, m);
}

/* A long text (a console command's dump) goes in pieces of whole lines of
 * at most this many bytes, not as one event of many megabytes. */
#define OUTPUT_PIECE 65536

void dap_output(struct dap *dp, const char *category, const char *text)
{
	size_t len = text ? strlen(text) : 0;

	while (len) {
		struct json_object *b = json_object_new_object();
		size_t k = len;

		if (k > OUTPUT_PIECE) {
			const char *nl = memrchr(text, '\n', OUTPUT_PIECE);

			k = nl ? (size_t)(nl - text) + 1 : OUTPUT_PIECE;
		}
		json_object_object_add(b, "category", json_object_new_string(category));
		json_object_object_add(b, "output", json_object_new_string_len(text, (int)k));
		dap_event(dp, "output", b);
		text += k;
		len -= k;
	}
}

/* ---- the program's output ---- */

static int pipe_out = -1, pipe_err = -1;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;

static void drain(struct dap *dp)
{
	char buf[8192];
	int fds[2] = { pipe_out, pipe_err };

	pthread_mutex_lock(&drain_lock);
	for (int i = 0; i < 2; i++) {
		ssize_t n;

		if (fds[i] < 0)
			continue;
		while ((n = read(fds[i], buf, sizeof(buf) - 1)) > 0) {
			buf[n] = 0;
			dap_output(dp, i ? "stderr" : "stdout", buf);
		}
	}
	pthread_mutex_unlock(&drain_lock);
}

void *dap_forwarder(void *arg)
{
	struct dap *dp = arg;

	for (;;) {
		struct pollfd p[2] = { { pipe_out, POLLIN, 0 }, { pipe_err, POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		drain(dp);
	}
	return NULL;
}

/* Our stdin, stdout, stderr become /dev/null and the pipes (the launched
 * program inherits them); the protocol keeps its own descriptors. */
int dap_redirect_stdio(void)
{
	int po[2], pe[2], null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0 || pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	dup2(null, 0);
	dup2(po[1], 1);
	dup2(pe[1], 2);
	close(null);
	close(po[1]);
	close(pe[1]);
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	pipe_out = po[0];
	pipe_err = pe[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

void dap_flush_output(struct dap *dp)
{
	fflush(stdout);
	fflush(stderr);
	drain(dp);
}

int dap_command(struct dap *dp, const char *line, int quiet)
{
	char *ob = NULL, *eb = NULL;
	size_t on = 0, en = 0;
	FILE *out = open_memstream(&ob, &on), *err = open_memstream(&eb, &en);
	enum cmd_status st;

	dp->running = 1;
	if (dp->pause_pending) {
		/* a pause that came before the run began stops it at once */
		dbg_interrupt_arm(&dp->s->dbg);
		dbg_request_interrupt(&dp->s->dbg, 0);
	}
	st = cmd_run_line(dp->s, line, out, err);
	pthread_mutex_lock(&dp->qlock);
	dp->live = 0;		/* the reader queues requests again */
	pthread_mutex_unlock(&dp->qlock);
	dp->running = 0;
	fclose(out);
	fclose(err);
	dap_flush_output(dp);
	if (!quiet)
		dap_output(dp, "console", ob);
	dap_output(dp, "console", eb);
	free(ob);
	free(eb);
	return st;
}

