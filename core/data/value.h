/* core/data/value.h: the program's data at a stop — the variables of a frame
 * (dbg_var.c: the frame's registers, its CFA, the variables in scope and
 * their values, paths such as p->next->val, a[3], *p) and their text as
 * LLDB prints it (value_fmt.c). */
#ifndef PTDB_CORE_VALUE_H
#define PTDB_CORE_VALUE_H

#include <stdio.h>
#include <stdint.h>
#include <sys/user.h>

#include "core/session/dbg.h"
#include "core/symbols/sym_var.h"

enum value_status {
	VAL_OK,
	VAL_NOT_AVAIL,		/* "<variable not available>" */
	VAL_NO_REG,		/* "<register rdx is not available>" */
	VAL_MEM,		/* memory could not be read */
	VAL_NO_LOC,		/* no location at all: "<no location, value may
				 * have been optimized out>" */
};

struct value {
	const struct sym_type *type;
	uint8_t *bytes;		/* heap, type size */
	size_t size;
	int in_mem;
	uint64_t addr;
	int in_reg;		/* DWARF register, -1 none */
	enum value_status status;
	unsigned bad_reg;
};

void value_release(struct value *v);

/* A frame's registers and variables. */
struct frame_ctx {
	struct dbg *d;
	pid_t tid;
	struct dbg_frame f;
	unsigned index;
	unsigned conc;		/* the concrete frame (inlined calls share one) */
	uint64_t cpc;		/* its pc, and the address its scope is read at */
	uint64_t look;
	struct dbg_module *mod;
	struct user_regs_struct regs;
	int all_regs;		/* frame 0: every register (writable) */
	struct sym_regs known;	/* the frame's registers by DWARF number: a
				 * caller's rsp, rbp, rip and those the CFI
				 * recovers (rbx, r12-r15) */
	int have_cfa;
	uint64_t cfa;
	struct sym_func_scope sc;
	struct sym_var *vars;	/* NULL: no debug information for the frame */
	int nvars;
	const char *no_data;	/* set: no memory or registers (why, for errors) */
	int depth;		/* callers opened for entry values, a bound */
};

/* Opens frame index of thread tid (live process).  0 ok; -1 with err when
 * the thread or frame does not exist.  A frame without debug information
 * opens with nvars 0 and vars NULL. */
int frame_ctx_open(struct dbg *d, pid_t tid, unsigned index, struct frame_ctx *fc,
		   struct ptdb_err *err);
/* The same for a frame already unwound (fr: frame index of tid). */
int frame_ctx_init(struct dbg *d, pid_t tid, unsigned index, const struct dbg_frame *fr,
		   struct frame_ctx *fc, struct ptdb_err *err);
void frame_ctx_close(struct frame_ctx *fc);

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

/* ---- value_fmt.c ---- */
struct value_fmt {
	char format;		/* 0 natural, 'x' 'd' 'u' 'c' 'b' */
	int show_types;		/* -T: types on children too */
	int show_loc;		/* -L: the address before every line */
	int raw;		/* -R: members, not the library's formatters */
};

/* "(int) a = 1\n", or the aggregate over several lines, as LLDB's
 * frame variable prints it. */
void value_print(FILE *out, struct dbg *d, const char *name, const struct value *v,
		 const struct value_fmt *o);
/* The short form used in frame lines: "1", "0x00007ffe...", "<unavailable>". */
void value_brief(struct dbg *d, const struct value *v, char *buf, size_t n);
/* A floating-point number as LLDB (APFloat) prints it: "1.5", "1.0E+7". */
void value_float_str(double v, int bits, char *buf, size_t n);

#endif
