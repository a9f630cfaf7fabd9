/* core/data/expr.h: a C expression evaluator over DWARF (core/data/expr.c) for
 * "expression" / "p": literals, variables, members, subscripts, unary and
 * binary operators, casts to DWARF and C types, sizeof, registers ($rax,
 * $pc), earlier results ($0), and assignment to variables, registers and
 * memory.  It calls no function of the process. */
#ifndef PTDB_CORE_EXPR_H
#define PTDB_CORE_EXPR_H

#include "core/data/value.h"

/* Results kept for later expressions ($0, $1, ...), and the types made up
 * for them (pointers to DWARF types, literals' types).  Owned by the dbg
 * (d->results); dropped, with their numbers kept, when modules go. */
struct expr_store;
void expr_store_free(struct expr_store *st);
/* Forgets the stored values (their types may belong to modules being
 * freed); numbering goes on. */
void expr_store_drop(struct expr_store *st);

/* Evaluates text in frame fc.  On success *out holds the value (its type
 * lives in the store or a module) and 0 is returned; on failure -1 with a
 * one-line message in err. */
int expr_eval(struct frame_ctx *fc, struct expr_store **st, const char *text,
	      struct value *out, struct ptdb_err *err);
/* Keeps a copy of v as the next result; returns its number. */
unsigned expr_keep(struct expr_store **st, struct dbg *d, const struct value *v);

/* Register names the evaluator knows ("rax", "eax", "pc", "rflags"). */
int expr_register_known(const char *name);
/* Writes v into register name of frame 0 (the low part for eax & co). */
int expr_register_write(struct frame_ctx *fc, struct expr_store **st, const char *name,
			uint64_t v, struct ptdb_err *err);

#endif
