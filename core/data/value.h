/* core/data/value.h: the program's data at a stop — a value, the frame it
 * is read in (struct frame_ctx: its registers, its CFA, the variables in
 * scope; the session opens it, core/session/frame.h) and its text as LLDB
 * prints it (value_fmt.c).  What values and expressions read of the
 * session (memory, names, variables by name, the replay position) comes
 * through struct value_env, handed to them in the frame (fc->env) or as
 * value_print's argument; they never call up. */
#ifndef PTDB_CORE_VALUE_H
#define PTDB_CORE_VALUE_H

#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "base/err.h"
#include "core/data/frame.h"
#include "core/symbols/sym_var.h"

enum value_status {
	VAL_OK,
	VAL_NOT_AVAIL,		/* "<variable not available>" */
	VAL_NO_REG,		/* "<register rdx is not available>" */
	VAL_MEM,		/* memory could not be read */
	VAL_NO_LOC,		/* no location at all: "<no location, value may
				 * have been optimized out>" */
	VAL_NULL_PARENT,	/* *p of a null p in a variable path: "<parent
				 * is NULL>" */
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

struct dbg;		/* the session: opaque here, handed back to env's functions */
struct frame_ctx;
struct target_proc;

/* What values and expressions need of the session (core/session/dbg_var.c
 * fills d->env). */
struct value_env {
	struct dbg *d;
	/* memory of the live process (post-mortem: the modules' files) */
	int (*read)(struct dbg *d, uint64_t addr, void *buf, size_t n, struct ptdb_err *err);
	/* up to n bytes at addr: how many could be read (0: none) */
	size_t (*read_some)(struct dbg *d, uint64_t addr, void *buf, size_t n);
	/* "trace_loop`main + 4 at trace_loop.c:2:7" */
	char *(*format_addr)(struct dbg *d, uint64_t addr, char *buf, size_t n);
	/* the variable called name in fc (frame_var_named) */
	int (*var_named)(struct frame_ctx *fc, const char *name, struct value *out);
	/* a DWARF type by name in any loaded module, or NULL */
	struct sym_type *(*type_named)(struct dbg *d, const char *name);
	/* the class whose vtable holds vptr (by its symbol), or NULL */
	struct sym_type *(*vtable_class)(struct dbg *d, uint64_t vptr);
	/* whether values show their dynamic types (target.prefer-dynamic-value) */
	int (*dynamic_values)(struct dbg *d);
	/* the live process written to (memory, registers), or NULL */
	struct target_proc *(*proc)(struct dbg *d);
	/* memory was written: code read earlier may have changed */
	void (*code_changed)(struct dbg *d);
	/* replaying a thread's trace: 1, and the cursor's pc */
	int (*replaying)(const struct dbg *d);
	uint64_t (*replay_pc)(struct dbg *d);
	/* the program's function called name: its entry in *fn and its module
	 * (first's first, the dynamic loader's copies last), or NULL */
	struct dbg_module *(*function_named)(struct dbg *d, struct dbg_module *first,
					     const char *name, uint64_t *fn);
	/* fn called in the stopped thread tid with the arguments in c
	 * (dbg_call: SysV ABI, every register restored): 0 and c's result,
	 * or -1 with err */
	int (*call)(struct dbg *d, pid_t tid, uint64_t fn, struct dbg_call_args *c,
		    struct ptdb_err *err);
};

/* A frame's registers and variables. */
struct frame_ctx {
	struct dbg *d;
	const struct value_env *env;	/* d's (d->env) */
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
	int no_process;		/* no process at all: a function's name is its
				 * file address (lldb-16's "p main") */
	int depth;		/* callers opened for entry values, a bound */
};

/* ---- value_fmt.c ---- */
struct value_fmt {
	char format;		/* 0 natural, 'x' 'd' 'u' 'c' 'b' */
	int show_types;		/* -T: types on children too */
	int show_loc;		/* -L: the address before every line */
	int raw;		/* -R: members, not the library's formatters */
	int dynamic;		/* pointers and references by their dynamic
				 * types (value_dynamic) */
	int max_depth;		/* -D: levels of children shown (0: all; -1:
				 * none), deeper ones "{...}" */
	int ptr_depth;		/* -P: pointers expanded along a path (LLDB's
				 * ptr-depth; 0: none) */
	int no_process;		/* no process: a function pointer without its
				 * function after it, as lldb-16 */
};

/* "(int) a = 1\n", or the aggregate over several lines, as LLDB's
 * frame variable prints it. */
void value_print(FILE *out, const struct value_env *env, const char *name, const struct value *v,
		 const struct value_fmt *o);
/* The short form used in frame lines: "1", "0x00007ffe...", "<unavailable>". */
void value_brief(const struct value_env *env, const struct value *v, char *buf, size_t n);
/* A floating-point number as LLDB (APFloat) prints it: "1.5", "1.0E+7". */
void value_float_str(double v, int bits, char *buf, size_t n);

/* ---- value_dyn.c ---- */
/* LLDB's dynamic type of a pointer or reference of type t (b its 8
 * bytes) to a C++ class with virtual functions, or of a void *: a pointer
 * to (or reference to) the class of the object, and the object's start in
 * *addr; NULL when there is none (not such a type, no vtable found). */
const struct sym_type *value_dynamic(const struct value_env *env, const struct sym_type *t,
				     const uint8_t *b, uint64_t *addr);
/* Whether the session shows dynamic types (its setting); 0 without env. */
int value_dynamic_on(const struct value_env *env);

/* A value's children as a tree view shows them (the members, elements,
 * or a pointer's pointee: its members, or one child "*"), with the names
 * LLDB gives them.  value_child fills out (release it) and name; -1 when
 * i is out of range. */
int value_nchildren(const struct value *v);
int value_child(const struct value_env *env, const struct value *v, int i, char *name, size_t n,
		struct value *out);

#endif
