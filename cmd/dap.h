/* cmd/dap.h: ptdb as a Debug Adapter Protocol server (ptdb --dap), the
 * editor's front end beside the REPL over the same session.  Shared by
 * dap.c (framing, the message loop, events), dap-run.c (launch, attach,
 * breakpoints, running, stepping forward and back, stops), dap-data.c
 * (threads, frames, scopes, variables, evaluate, memory, disassembly),
 * dap-live.c (the queue; requests while the program runs; cancel) and
 * dap-term.c (the program in the client's terminal). */
#ifndef PTDB_CMD_DAP_H
#define PTDB_CMD_DAP_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdint.h>

#include "core/session/session.h"
#include "core/data/value.h"

/* The largest message accepted (bigger ones are answered with an error
 * and skipped). */
#define DAP_MAX_MESSAGE (16u << 20)

struct dap_msg {
	struct json_object *req;	/* NULL: the client went away */
	char *error;			/* a message that could not be read */
	struct dap_msg *next;
};

/* A breakpoint the client set: its DAP id and what it stands for. */
struct dap_bp {
	unsigned id;			/* the DAP id */
	unsigned dbg_id;		/* the session's breakpoint (0: none) */
	int kind;			/* 's' source, 'f' function, 'i' instruction, 'd' data */
	char *file;			/* 's': the source path */
	char *log;			/* a log point's message, or NULL */
	int nlocs;			/* locations last told the client */
};

/* What a variablesReference or frame id stands for; valid until the next
 * resume (the table is emptied then). */
enum dap_ref_kind { REF_LOCALS, REF_ARGS, REF_REGS, REF_GLOBALS, REF_VALUE, REF_REPLAY };
struct dap_ref {
	enum dap_ref_kind kind;
	pid_t tid;
	unsigned frame;
	struct value v;			/* REF_VALUE: owned */
};

struct dap_frame_id {
	pid_t tid;
	unsigned index;
};

struct dap {
	struct session *s;
	int in_fd, out_fd;
	pthread_mutex_t wlock;		/* one message on out_fd at a time */
	int seq;
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct dap_msg *qhead, *qtail;
	volatile int running;		/* the main thread is resuming the process */
	volatile int gone;		/* the client went away */
	volatile int pause_pending;	/* pause came: the next run stops at once */
	int stop_pending;		/* a console command moved the stop: report it
					 * after the response (dap_after) */
	int initialized, launched, attached, configured, stop_on_entry, done;
	int exited_sent;
	struct json_object *launch_args;	/* for restart (owned) */
	struct dap_bp *bps;
	int nbps;
	unsigned next_bp;
	struct dap_ref *refs;
	int nrefs;
	struct dap_frame_id *frames;
	int nframes;
	int lines_start_at1;
	pid_t *known;			/* threads told the client (thread events) */
	int nknown;
	char **mods;			/* modules told the client (module events) */
	int nmods;
	int progress_ok;		/* the client takes progress events */
	int progress_on;		/* a progressStart was sent */
	unsigned progress_n;
	/* while a command runs the process (dap-live.c); under qlock */
	int live;			/* it runs: the reader answers for it */
	int implied;			/* a client's request runs it (no continued event) */
	int transparent_ok;		/* a client's continue runs it: breakpoint
					 * requests may stop and resume it unseen */
	int bp_interrupt;		/* it was stopped for breakpoint requests */
	int stopped_once;		/* a stop was told (continued events after it) */
	char *threads_snap;		/* the threads at the run's start (JSON text) */
	int64_t cur_seq;		/* the request being handled (0: none) */
	int cur_cancellable;		/* ... can be cancelled (evaluate) */
	int cancel_cur;			/* ... was cancelled */
	char decode_id[32];		/* a long decode's progressId ("": none) */
	unsigned decode_n;
	/* the program in the client's terminal (dap-term.c) */
	int rit_ok;			/* the client takes runInTerminal */
	int rit_state;			/* (qlock) 1 asked, 2 done, 3 refused */
	int term_fd;			/* the launcher's connection, or -1 */
};

/* dap.c: the request loop, on top of the other dap files */
/* Serves one client on stdio (port < 0) or on 127.0.0.1:port (0: any
 * free port, told on stderr); returns main's exit status. */
int dap_main(struct session *s, int port);

/* dap-io.c: below every other dap file */
/* Our stdio becomes /dev/null and two pipes the launched program
 * inherits; the forwarder thread turns them into output events. */
int dap_redirect_stdio(void);
void *dap_forwarder(void *dp);
/* The program's output read so far, as output events (before a stop). */
void dap_flush_output(struct dap *dp);
void dap_send(struct dap *dp, struct json_object *msg);	/* takes msg */
/* The response to request seq (ok 0: msg is the error); takes body. */
void dap_respond(struct dap *dp, int64_t seq, const char *command, int ok, const char *msg,
		 struct json_object *body);
void dap_event(struct dap *dp, const char *event, struct json_object *body);
void dap_output(struct dap *dp, const char *category, const char *text);
/* Runs a ptdb command line; its output as console output events (the
 * stop reports of stepping commands are not shown: quiet).  The status. */
int dap_command(struct dap *dp, const char *line, int quiet);

/* dap-live.c: the requests that come while the process runs (answered
 * at once by the reader, or made to stop the run), cancel, the continued
 * event; the request queue. */
void dap_enqueue(struct dap *dp, struct json_object *req, const char *error);
struct dap_msg *dap_dequeue(struct dap *dp);
/* The reader's request: answered or acted on now (1), or to be queued (0). */
int dap_live_route(struct dap *dp, struct json_object *req);
/* A breakpoint request queued (removed from the queue), or NULL. */
struct json_object *dap_live_take_bp(struct dap *dp);
/* A request that wants the process stopped (pause, disconnect, ...) is
 * queued, or the client went away. */
int dap_live_stop_wanted(struct dap *dp);
void dap_live_install(struct dap *dp);
/* The request loop takes request seq / is done with it: 1 if it was
 * cancelled meanwhile. */
void dap_live_begin_request(struct dap *dp, int64_t seq, const char *command);
int dap_live_end_request(struct dap *dp);

/* dap-term.c: ptdb --dap-terminal SOCKET (the launcher, main's), and
 * the terminal's stdin, stdout, stderr for a launch: asks the client to
 * run the launcher (kind "integrated" or "external"); 0, or -1 with msg. */
int dap_terminal_main(const char *socket_path);
int dap_terminal_open(struct dap *dp, const char *kind, const char *title, int fds[3], char *msg,
		      size_t n);
void dap_terminal_started(struct dap *dp, pid_t pid);	/* tells the launcher */
void dap_terminal_close(struct dap *dp);		/* the launcher ends */

/* dap-run.c */
typedef int (*dap_handler)(struct dap *dp, struct json_object *args, struct json_object **body,
			   char *msg, size_t n);
dap_handler dap_run_handler(const char *command);
/* After a run: the stopped, or exited and terminated, events. */
void dap_report_stop(struct dap *dp, const char *reason_hint);
/* The client went away: the debuggee is killed (launched) or detached. */
void dap_abandon(struct dap *dp);
/* The request's response is sent; now resume (or whatever it asked). */
void dap_after(struct dap *dp, const char *command, struct json_object *args);

/* dap-bp.c: the breakpoint requests; the client's breakpoint standing for
 * a session breakpoint (kind 'd': a watchpoint), or NULL. */
dap_handler dap_bp_handler(const char *command);
struct dap_bp *dap_bp_of_dbg(struct dap *dp, unsigned dbg_id, int kind);
/* The answer for a breakpoint (verified, its line, or why not). */
struct json_object *dap_bp_json(struct dap *dp, struct dap_bp *b, const char *why);

/* dap-events.c: thread, module and breakpoint events for what changed
 * since the last stop; a traced run's progress events. */
void dap_events_sync(struct dap *dp);
void dap_progress_install(struct dap *dp);
void dap_progress_end(struct dap *dp);

/* dap-data.c */
dap_handler dap_data_handler(const char *command);
/* The threads request's body (the live process's threads). */
struct json_object *dap_threads_body(struct dap *dp);
void dap_refs_reset(struct dap *dp);
/* A log point's message with each {expression} replaced by its value. */
void dap_log_message(struct dap *dp, const char *text, char *out, size_t n);
/* dap-mem.c: disassemble, readMemory, writeMemory, modules, sources. */
dap_handler dap_mem_handler(const char *command);
int dap_ref_add(struct dap *dp, enum dap_ref_kind kind, pid_t tid, unsigned frame,
		const struct value *v);
/* The frame a DAP frame id names: 0, or -1. */
int dap_frame_of(struct dap *dp, int64_t id, pid_t *tid, unsigned *index);

/* Small helpers over json-c. */
const char *dap_str(struct json_object *o, const char *key);
int64_t dap_int(struct json_object *o, const char *key, int64_t def);
int dap_bool(struct json_object *o, const char *key, int def);

#endif
