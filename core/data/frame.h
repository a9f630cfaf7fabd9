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
	int lm_order;		/* its place in the dynamic linker's link map
				 * (1 the first library), 0 if not there */
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

/* A function call as the SysV x86-64 ABI makes it (the data classifies
 * the arguments, core/session/dbg_call.c makes the call): the INTEGER
 * eightbytes in rdi, rsi, rdx, rcx, r8, r9, the SSE ones in the low
 * halves of xmm0-7, and the rest (MEMORY-class structs, what did not fit
 * in registers) as bytes the callee finds above its return address.  A
 * MEMORY-class result (ret_mem > 0 bytes) is made in space the call
 * reserves on the stack: its address goes in gpr[0] (rdi), which the
 * caller leaves free, and its bytes come back in ret_buf. */
struct dbg_call_args {
	uint64_t gpr[6];
	int ngpr;
	uint64_t sse[8];
	int nsse;
	const uint8_t *stack;	/* a multiple of 8 bytes, in order */
	size_t nstack;
	size_t ret_mem;
	uint8_t *ret_buf;	/* ret_mem bytes */
	/* the result: rax, rdx and the low halves of xmm0 and xmm1 */
	uint64_t rax, rdx, xmm0, xmm1;
};

#endif
