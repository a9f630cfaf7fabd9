/* core/session/session.h: the debugger session, the one mutable object main()
 * creates: settings and the debugger state (executable, process, breakpoints). */
#ifndef PTDB_CORE_SESSION_H
#define PTDB_CORE_SESSION_H

#include "core/session/dbg.h"
#include "core/session/settings.h"

struct session {
	struct settings settings;
	int batch;		/* -b: quit after the commands */
	int interactive;	/* commands come from the prompt on a terminal:
				 * questions (r with a live process) are asked */
	int depth;		/* nesting of "command source" */
	struct dbg dbg;		/* executable, process, breakpoints */
	/* "source list" without arguments continues here (cmd/cmd-data.c):
	 * the next line to show of list_file; list_next 0 = nothing listed. */
	unsigned list_next;
	unsigned list_count;	/* the lines the last listing asked for: a
				 * continuation shows as many (LLDB) */
	unsigned long list_seen;	/* the stop listings (cmd/report.c's
					 * count) when it listed: a later one
					 * is where it goes on */
	char list_file[4096];
	pid_t list_pid;		/* the process stop the listing belonged to */
	uint64_t list_stop_id;
	pid_t list_replay_tid;	/* and the replay cursor's place (tid 0: none) */
	uint64_t list_replay_id;
	/* "memory read" without an address continues here (cmd/cmd-memory.c)
	 * with the last read's format, item size and count; mem_next_ok 0 =
	 * nothing read yet */
	int mem_next_ok;
	uint64_t mem_next;
	char mem_fmt;
	unsigned mem_size, mem_count;
	/* "memory region" without an address continues at the end of the
	 * last region shown (cmd/cmd-region.c) */
	int region_next_ok;
	uint64_t region_next;
	/* "process trace start --snapshot-on SIG": on SIG a bundle is saved
	 * as snapshot_dir/snapshot-N and the process continues */
	int snapshot_signo;
	char snapshot_dir[4096];
	unsigned snapshot_count;
	struct dbg_sig snapshot_policy;	/* SIG's policy before, restored after */
	/* SIGTERM or SIGHUP reached ptdb (cmd/main.c's handler): the command
	 * loops stop after the command running, and main detaches from an
	 * attached process (breakpoints removed) or kills a launched one */
	volatile sig_atomic_t term_signal;
};

void session_init(struct session *s);
void session_release(struct session *s);

#endif
