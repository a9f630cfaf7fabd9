/* cmd/dap-live.c: the client's requests between the reader thread and the
 * request loop.  While a command runs the process (dap->live: from its
 * first resume to its end) the reader answers what needs no stopped
 * process itself (threads as they were when the run began, an empty
 * stackTrace, "the process is running" for the rest) and queues what must
 * wait for a stop (pause, disconnect, terminate, restart: the run is
 * interrupted for them; the breakpoint requests: a client's continue is
 * stopped and resumed unseen for them).  Also: cancel (answered at once),
 * and the continued event for a run the client did not ask for (a console
 * command). */
#include "cmd/dap.h"

#include <stdlib.h>
#include <string.h>

static struct dbg *D(struct dap *dp)
{
	return &dp->s->dbg;
}

static int among(const char *c, const char *const *list)
{
	for (; c && *list; list++)
		if (!strcmp(c, *list))
			return 1;
	return 0;
}

static const char *const stoppers[] = { "pause", "disconnect", "terminate", "restart", NULL };
static const char *const bp_requests[] = { "setBreakpoints", "setFunctionBreakpoints",
	"setInstructionBreakpoints", "setDataBreakpoints", NULL };

/* ---- the queue (qlock) ---- */

static void append(struct dap *dp, struct dap_msg *m)
{
	if (dp->qtail)
		dp->qtail->next = m;
	else
		dp->qhead = m;
	dp->qtail = m;
	pthread_cond_signal(&dp->qcond);
}

/* Unlinks m (after prev, or the head). */
static void unlink_msg(struct dap *dp, struct dap_msg *prev, struct dap_msg *m)
{
	if (prev)
		prev->next = m->next;
	else
		dp->qhead = m->next;
	if (dp->qtail == m)
		dp->qtail = prev;
	m->next = NULL;
}

static void free_msg(struct dap_msg *m)
{
	json_object_put(m->req);
	free(m->error);
	free(m);
}

static struct dap_msg *new_msg(struct json_object *req, const char *error)
{
	struct dap_msg *m = calloc(1, sizeof(*m));

	if (!m)
		abort();
	m->req = req;
	m->error = error ? strdup(error) : NULL;
	return m;
}

void dap_enqueue(struct dap *dp, struct json_object *req, const char *error)
{
	struct dap_msg *m = new_msg(req, error);

	pthread_mutex_lock(&dp->qlock);
	append(dp, m);
	pthread_mutex_unlock(&dp->qlock);
}

struct dap_msg *dap_dequeue(struct dap *dp)
{
	struct dap_msg *m;

	pthread_mutex_lock(&dp->qlock);
	while (!dp->qhead)
		pthread_cond_wait(&dp->qcond, &dp->qlock);
	m = dp->qhead;
	unlink_msg(dp, NULL, m);
	pthread_mutex_unlock(&dp->qlock);
	return m;
}

/* ---- while the process runs ---- */

/* (qlock held, dp->live) req answered now (1), or queued for the loop (0),
 * perhaps after asking the run to stop for it.  queued: it waited in the
 * queue since before the run (the reader asks a running process to stop
 * for the stoppers itself: once, or a second SIGSTOP would linger). */
static int serve_running(struct dap *dp, struct json_object *req, int queued)
{
	const char *c = dap_str(req, "command");
	int64_t seq = dap_int(req, "seq", 0);
	struct json_object *b;

	if (among(c, stoppers)) {
		if (queued)
			dbg_request_interrupt(D(dp), 0);	/* (before the resume: a flag) */
		return 0;
	}
	if (among(c, bp_requests)) {
		if (dp->transparent_ok && !dp->bp_interrupt) {
			dp->bp_interrupt = 1;
			dbg_request_interrupt(D(dp), 0);
		}
		return 0;	/* (a step or a console command: after it) */
	}
	if (!strcmp(c, "threads")) {
		b = dp->threads_snap ? json_tokener_parse(dp->threads_snap) : NULL;
		dap_respond(dp, seq, c, 1, NULL, b ? b : json_object_new_object());
		return 1;
	}
	if (!strcmp(c, "stackTrace")) {
		/* as lldb-vscode: no frames while it runs */
		b = json_object_new_object();
		json_object_object_add(b, "stackFrames", json_object_new_array());
		json_object_object_add(b, "totalFrames", json_object_new_int(0));
		dap_respond(dp, seq, c, 1, NULL, b);
		return 1;
	}
	dap_respond(dp, seq, c, 0, "the process is running: pause it first", NULL);
	return 1;
}

/* cancel: a queued request is answered "cancelled" and dropped; the one
 * being handled (an evaluate: a console command) is interrupted and
 * answered so; a long decode's progress is interrupted (the move waiting
 * for it fails); anything else has finished: nothing to do. */
static void cancel(struct dap *dp, struct json_object *req)
{
	struct json_object *args = NULL;
	int64_t id;
	const char *pid;

	json_object_object_get_ex(req, "arguments", &args);
	id = dap_int(args, "requestId", 0);
	pid = dap_str(args, "progressId");
	if (id && id == dp->cur_seq && dp->cur_cancellable) {
		dp->cancel_cur = 1;
		dbg_request_interrupt(D(dp), 0);
	} else if (id) {
		for (struct dap_msg *p = NULL, *m = dp->qhead; m; p = m, m = m->next) {
			if (!m->req || dap_int(m->req, "seq", 0) != id)
				continue;
			unlink_msg(dp, p, m);
			dap_respond(dp, id, dap_str(m->req, "command"), 0, "cancelled", NULL);
			free_msg(m);
			break;
		}
	}
	if (pid && dp->decode_id[0] && !strcmp(pid, dp->decode_id))
		dbg_request_interrupt(D(dp), 0);
	dap_respond(dp, dap_int(req, "seq", 0), "cancel", 1, NULL, NULL);
}

int dap_live_route(struct dap *dp, struct json_object *req)
{
	const char *c = dap_str(req, "command");
	int done = 0;

	pthread_mutex_lock(&dp->qlock);
	if (!strcmp(c, "cancel")) {
		cancel(dp, req);
		done = 1;
	} else if (dp->live) {
		done = serve_running(dp, req, 0);
	}
	if (!done)
		append(dp, new_msg(req, NULL));
	pthread_mutex_unlock(&dp->qlock);
	if (done)
		json_object_put(req);
	return done;
}

/* A command resumes the process (core's on_resume, before each resume):
 * at the first, the requests queued meanwhile are served as while it runs,
 * and the client is told it continues unless it asked for it. */
static void on_resume(void *ctx)
{
	struct dap *dp = ctx;
	struct json_object *snap, *b;
	char *text;

	if (dp->live)
		return;
	snap = dap_threads_body(dp);
	text = strdup(json_object_to_json_string_ext(snap, JSON_C_TO_STRING_PLAIN));
	json_object_put(snap);
	pthread_mutex_lock(&dp->qlock);
	dp->live = 1;
	free(dp->threads_snap);
	dp->threads_snap = text;
	for (struct dap_msg *p = NULL, *m = dp->qhead, *next; m; m = next) {
		next = m->next;
		if (m->req && strcmp(dap_str(m->req, "command"), "cancel") &&
		    serve_running(dp, m->req, 1)) {
			unlink_msg(dp, p, m);
			free_msg(m);
		} else {
			p = m;
		}
	}
	pthread_mutex_unlock(&dp->qlock);
	if (dp->implied || !dp->stopped_once || dp->gone)
		return;
	b = json_object_new_object();
	json_object_object_add(b, "threadId", json_object_new_int(D(dp)->sel_tid));
	json_object_object_add(b, "allThreadsContinued", json_object_new_boolean(1));
	dap_event(dp, "continued", b);
}

void dap_live_install(struct dap *dp)
{
	D(dp)->on_resume.fn = on_resume;
	D(dp)->on_resume.ctx = dp;
}

struct json_object *dap_live_take_bp(struct dap *dp)
{
	struct json_object *req = NULL;

	pthread_mutex_lock(&dp->qlock);
	for (struct dap_msg *p = NULL, *m = dp->qhead; m; p = m, m = m->next) {
		if (!m->req || !among(dap_str(m->req, "command"), bp_requests))
			continue;
		unlink_msg(dp, p, m);
		req = m->req;
		m->req = NULL;
		free_msg(m);
		break;
	}
	pthread_mutex_unlock(&dp->qlock);
	return req;
}

int dap_live_stop_wanted(struct dap *dp)
{
	int want = dp->gone || dp->pause_pending;

	pthread_mutex_lock(&dp->qlock);
	for (struct dap_msg *m = dp->qhead; m && !want; m = m->next)
		want = (!m->req && !m->error) || among(dap_str(m->req, "command"), stoppers);
	pthread_mutex_unlock(&dp->qlock);
	return want;
}

void dap_live_begin_request(struct dap *dp, int64_t seq, const char *command)
{
	pthread_mutex_lock(&dp->qlock);
	dp->cur_seq = seq;
	/* a console command (which may run the process or dump a trace) */
	dp->cur_cancellable = !strcmp(command, "evaluate");
	dp->cancel_cur = 0;
	pthread_mutex_unlock(&dp->qlock);
}

int dap_live_end_request(struct dap *dp)
{
	int c;

	pthread_mutex_lock(&dp->qlock);
	c = dp->cancel_cur;
	dp->cur_seq = 0;
	dp->cancel_cur = 0;
	pthread_mutex_unlock(&dp->qlock);
	return c;
}
