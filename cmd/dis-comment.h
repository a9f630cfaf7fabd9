/* cmd/dis-comment.h: the comment lldb-16 puts after a direct branch or
 * call in a disassembly ("; <+112>", "; symbol stub for: f",
 * "; g + 4 at f.c:3"), for the disassemble command and the disassembly
 * a stop shows where there are no lines. */
#ifndef PTDB_CMD_DIS_COMMENT_H
#define PTDB_CMD_DIS_COMMENT_H

#include <stddef.h>
#include <stdint.h>

struct dbg;
struct disasm_insn;

/* Into buf ("" when none); func_addr: the start of the function holding
 * the instruction (its own targets are "<+N>"). */
void cmd_dis_comment(struct dbg *d, const struct disasm_insn *in, uint64_t func_addr,
		     char *buf, size_t n);

/* A disassembly's header names the function as lldb-16's
 * ${function.name-without-args} does: a C++ name without its parameter
 * list, qualifiers and return type ("void ns::f<int>(int) const" ->
 * "ns::f<int>"); a C name as it is.  Into buf. */
const char *cmd_dis_func_name(const char *func, char *buf, size_t n);

#endif
