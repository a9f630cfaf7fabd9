/* core/data/frame.h: a module of the process as loaded (its symbols and
 * where it is mapped) and a frame of a thread's stack: what the data and
 * every room above it (the trace session, the session, cmd/) share of a
 * stop.  Types only. */
#ifndef PTDB_CORE_DATA_FRAME_H
#define PTDB_CORE_DATA_FRAME_H

#include <stdint.h>

struct sym_module;

struct dbg_module {
	struct sym_module *sym;	/* NULL: the file is not ELF (ignored) */
	char *path;		/* as the user named it (the executable: a
				 * symlink stays one, as in lldb-16) */
	char *real;		/* path with its links resolved (the process's
				 * maps name it so), or NULL */
	uint64_t start, end;	/* mapped range; 0,0 when not loaded */
	int is_exe;
	int anon;		/* a loaded trace's copy of anonymous executable
				 * memory: code without a name (symbolized as no
				 * module, as live) */
};

#define DBG_MAX_INLINE 16	/* inlined calls shown per concrete frame */

struct dbg_frame {
	uint64_t pc, rsp, rbp;
	struct dbg_module *mod;		/* NULL: no module covers pc */
	int untraced;			/* replaying: the callers before the
					 * trace began (no pc) */
	int replaying;			/* replaying: the cursor's frame */
	/* inlined calls (LLDB's "[inlined]" frames): a concrete frame whose
	 * address look lies in ninl inlined calls is shown as ninl + 1
	 * frames, inl = 0 (the innermost call) .. ninl (the function); all
	 * but inl 0 are virtual (pc: the start of the inlined block, the
	 * registers the concrete frame's).  look 0: not computed. */
	uint64_t look;
	unsigned inl, ninl;
	int virt;
	unsigned conc;			/* the concrete frame's number (0: the
					 * thread's registers) */
	uint64_t cpc;			/* and its pc */
	int trap;			/* pc is not a return address (a signal
					 * interrupted it, or the trampoline) */
	int sigtramp;			/* the signal trampoline's frame */
};

#endif
