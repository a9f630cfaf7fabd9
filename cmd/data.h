/* cmd/data.h: what the files of the data commands share (cmd-data.c,
 * cmd-register.c, cmd-disasm.c, cmd-memory.c): reading memory or, without
 * a process, the executable's file; the module holding an address;
 * address expressions; disassembly; the selected frame's pc. */
#ifndef PTDB_CMD_DATA_H
#define PTDB_CMD_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "base/err.h"

struct dbg;
struct dbg_module;
struct disasm;

/* cmd-register.c: the general registers of thread tid's frame in 'register
 * read' order, each given to fn (frame 0: every one; a caller frame: those
 * the unwinder recovered); the count of the others, or -1 with err. */
int cmd_frame_registers(struct dbg *d, pid_t tid, unsigned frame,
			void (*fn)(void *ctx, const char *name, int size, uint64_t v), void *ctx,
			struct ptdb_err *err);

/* cmd/data.c: up to n bytes at addr (a live process, a loaded trace's
 * modules, else the executable's file); how many could be read from the
 * start (0: none). */
size_t cmd_data_read(struct dbg *d, uint64_t addr, uint8_t *buf, size_t n);
/* 1 if addr lies in module m's mapping (or, before the process runs, in a
 * PT_LOAD segment of its file). */
int cmd_module_covers(struct dbg_module *m, uint64_t addr);
/* 1 if addr lies in an executable segment of module m. */
int cmd_module_code(struct dbg_module *m, uint64_t addr);
/* Whether m is the executable's program interpreter: lldb-16 resolves
 * no address in it (register read, memory region), having made a second
 * module of it from the PT_INTERP path, whose unloading unloads the
 * sections of both. */
int cmd_module_is_interp(struct dbg *d, struct dbg_module *m);
/* The module really holding addr, or NULL. */
struct dbg_module *cmd_module_at(struct dbg *d, uint64_t addr);
/* 1 if m's symbols answer for the session's state. */
int cmd_module_usable(const struct dbg *d, const struct dbg_module *m);
/* The option's unsigned value (def when not given); -1 after "invalid
 * value for --<name>: '<text>'". */
int cmd_data_opt_uint(struct cmd_ctx *ctx, const struct cmd_args *a, const char *name,
		      unsigned def, unsigned *out);
/* pc of the selected frame (0 without a process); *caller set when the
 * frame is not the innermost one. */
uint64_t cmd_selected_pc(struct dbg *d, int *caller);

/* cmd-register.c: an address expression as LLDB evaluates it: any
 * expression of the selected frame whose value is a pointer or an integer
 * (buf, &len, &buf[4], $rsp), else "expr", "expr+N", "expr-N" where expr
 * is a number, a $register or a function name.  -1 after printing the
 * error. */
int cmd_eval_addr(struct cmd_ctx *ctx, const char *s, uint64_t *out);

/* cmd-disasm.c: a disassembler with the session's flavor (NULL after
 * printing the error); instructions from start printed LLDB style: at most
 * count (0: no limit), below end (0: no limit), with func_only within the
 * function starting at start.  -1 (error printed) if nothing could be read. */
struct cmd_dis_opts {
	uint64_t mark;		/* pc marked "->" (0: none) */
	int show_bytes;
	int bare;		/* memory read -f i: no "module`function:" line nor
				 * <+offset>, as lldb-16's ("0x...: bytes  insn") */
};
struct disasm *cmd_dis_new(struct cmd_ctx *ctx);
int cmd_dis_range(struct cmd_ctx *ctx, struct disasm *ds, uint64_t start, uint64_t end,
		  unsigned count, int func_only, const struct cmd_dis_opts *o);

/* -d/--dynamic-type's value as LLDB takes it: no-dynamic-values (*dyn
 * 0), no-run-target or run-target (1); -1 after the error. */
int cmd_dynamic_option(struct cmd_ctx *ctx, const char *v, int *dyn);

#endif
