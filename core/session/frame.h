/* core/session/frame.h: a frame's variables (core/session/dbg_var.c): the
 * session opens a struct frame_ctx (core/data/value.h) for a thread's
 * frame, with the registers its CFI recovers and the variables in scope,
 * and finds and reads them. */
#ifndef PTDB_CORE_SESSION_FRAME_H
#define PTDB_CORE_SESSION_FRAME_H

#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"
#include "core/data/value.h"

struct dbg;

/* Opens frame index of thread tid (live process).  0 ok; -1 with err when
 * the thread or frame does not exist.  A frame without debug information
 * opens with nvars 0 and vars NULL. */
int frame_ctx_open(struct dbg *d, pid_t tid, unsigned index, struct frame_ctx *fc,
		   struct ptdb_err *err);
/* The same for a frame already unwound (fr: frame index of tid). */
int frame_ctx_init(struct dbg *d, pid_t tid, unsigned index, const struct dbg_frame *fr,
		   struct frame_ctx *fc, struct ptdb_err *err);
void frame_ctx_close(struct frame_ctx *fc);
/* "thread return": thread tid's frame 0 popped, as if it returned now: its
 * registers become its caller's (rip the return address, rsp the CFA, rbp
 * and the callee-saved ones by the CFI), rax *rax when rax is not NULL.
 * Nothing runs.  Errors: frame 0 an inlined call (its caller is the same
 * code), no caller found. */
int dbg_thread_return(struct dbg *d, pid_t tid, const uint64_t *rax, struct ptdb_err *err);

/* LLDB's frame description with the arguments: "a.out`add(a=1, b=2) at
 * add.c:3:12" (dbg_format_frame's text when the frame has no DWARF
 * function or no live process).  Returns buf. */
char *frame_format(struct dbg *d, pid_t tid, unsigned index, const struct dbg_frame *f,
		   char *buf, size_t n);

/* The value of a variable of the frame (or a global of any module). */
void frame_var_value(struct frame_ctx *fc, struct sym_module *m, const struct sym_var *v,
		     struct value *out);

/* The variable called name: the innermost local, else a global of the
 * frame's unit, else of any module.  0, or -1 when there is none. */
int frame_var_named(struct frame_ctx *fc, const char *name, struct value *out);
/* dbg_global.c: the global called name ("x", "ns::x", "C::x"): 0, or -1
 * when there is none. */
int frame_global_named(struct frame_ctx *fc, const char *name, struct value *out);
/* "ns::f(int) const" -> "ns::f": a demangled name without its parameters. */
void frame_strip_params(const char *func, char *buf, size_t n);

/* Evaluates a variable path: a name, then .member, ->member, [index];
 * leading * and & apply to the whole.  Locals first, then the globals of
 * the frame's unit, then of every module.  Errors in LLDB's words ("no
 * variable named 'x' found in this frame", "\"zz\" is not a member of
 * \"(point) p\"").  Returns 0, FRAME_PATH_NO_VAR when no variable has the
 * path's name, -1 for the other errors. */
#define FRAME_PATH_NO_VAR (-2)
int frame_path_value(struct frame_ctx *fc, const char *path, struct value *out,
		     struct ptdb_err *err);

/* The value a function of type t just returned to thread tid (rax:rdx,
 * xmm0, or the memory rax points to); -1 when the type's return
 * convention is not one of these. */
int frame_return_value(struct dbg *d, pid_t tid, const struct sym_type *t, struct value *out);

#endif
