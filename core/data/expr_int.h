/* core/data/expr_int.h: what core/data/expr.c (lexer, values, conversions) and
 * core/data/expr_parse.c (the grammar) share.  Not for use elsewhere. */
#ifndef PTDB_CORE_EXPR_INT_H
#define PTDB_CORE_EXPR_INT_H

/* Its users include core/data/expr.h first; it declares what it needs, so
 * the expr module and it form no cycle. */
#include <stddef.h>
#include <stdint.h>

#include "core/data/frame.h"
#include "core/symbols/sym_var.h"

struct frame_ctx;
struct ptdb_err;
struct value;

struct expr_store {
	struct value *v;	/* $base + i */
	int n;
	unsigned base, next;	/* numbers: base is v[0]'s, next the next given */
	struct sym_type **types;	/* made-up types, freed with the store */
	int ntypes;
};

/* One evaluation. */
struct ex {
	const char *p;		/* next character */
	const char *text;
	struct frame_ctx *fc;
	struct expr_store *st;
	struct ptdb_err *err;
	int failed;
	int skip;		/* > 0: evaluate for types only, no effects */
	int depth;		/* nesting, bounded: "((((..." must not exhaust the stack */
	/* "(double)f(x)": the cast's type, and where its operand begins (a
	 * call there without DWARF returns that type, as in LLDB) */
	const struct sym_type *cast_to;
	const char *cast_at;
	/* a member function call's class (ex_call with self) */
	const struct sym_type *self_type;
	/* the last operand was a function's name, not a pointer to it
	 * ("sizeof(main)" is refused as clang refuses it) */
	int fn_designator;
};

extern const struct sym_type expr_t_int, expr_t_uint, expr_t_long, expr_t_ulong,
	expr_t_llong, expr_t_ullong, expr_t_short, expr_t_ushort, expr_t_char,
	expr_t_schar, expr_t_uchar, expr_t_bool, expr_t_float, expr_t_double, expr_t_void;

struct sym_type *expr_new_type(struct expr_store *st, enum sym_tkind k,
			       const struct sym_type *target);

int ex_peek(struct ex *x, const char *op);
int ex_eat(struct ex *x, const char *op);
int ex_ident(struct ex *x, char *buf, size_t n);
int ex_fail(struct ex *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void ex_val(struct value *v, const struct sym_type *t);
void ex_set_u(struct value *v, const struct sym_type *t, uint64_t u);
void ex_set_d(struct value *v, const struct sym_type *t, double d);
int ex_is_float(const struct sym_type *t);
int ex_is_ptr(const struct sym_type *t);
int ex_is_signed(const struct sym_type *t);
int ex_is_scalar(const struct sym_type *t);
uint64_t ex_u(const struct value *v);
double ex_d(const struct value *v);
const struct sym_type *ex_common(const struct sym_type *a, const struct sym_type *b);
void ex_convert(struct value *v, const struct sym_type *t);
/* v = the object of type t at addr (read now unless skipping). */
int ex_load(struct ex *x, struct value *v, const struct sym_type *t, uint64_t addr);
/* expr_lit.c: a number or character literal at x->p. */
int ex_number(struct ex *x, struct value *v);
int ex_char_literal(struct ex *x, struct value *v);
/* expr_fn.c: the function called name as a value (a pointer to it,
 * typed by its DWARF): 1 with v, 0 when there is none, -1 on error. */
int ex_function_value(struct ex *x, const char *name, struct value *v);
/* t is a pointer to a function. */
int ex_is_fn_ptr(const struct sym_type *t);
/* A function pointer's abstract declarator after the return type *t at
 * x->p, "(*)(int, long)": 1 with *t the pointer type, 0 when there is
 * none (x->p unmoved), -1 on error. */
int ex_fn_declarator(struct ex *x, const struct sym_type **t);
/* expr_parse.c: an assignment expression (a call's argument). */
int ex_assign(struct ex *x, struct value *v);
/* expr_call.c: "name(args)" called in the frame's thread; self: a member
 * function's object address (this), or NULL; cast: the type a cast
 * around the call gives a function without DWARF (NULL: none). */
int ex_call(struct ex *x, const char *name, const uint64_t *self,
	    const struct sym_type *cast, struct value *v);
/* v(args): a call through v, a function pointer, typed by v's type (its
 * parameters convert the arguments, its return type the result); x->p at
 * the '('; v replaced by the result. */
int ex_call_pointer(struct ex *x, struct value *v);
/* expr_abi.c: a call's arguments and result placed as the SysV ABI
 * classifies them.  ex_abi_ret first (a result in memory takes rdi), then
 * ex_abi_arg for each argument in order (its value already of the
 * parameter's type); after the call, ex_abi_result makes the value. */
struct ex_abi {
	struct dbg_call_args c;
	uint8_t *stack;
	size_t nstack, cap;
	int ret_cls[2], nret;
};
int ex_abi_ret(struct ex *x, struct ex_abi *a, const struct sym_type *t, const char *fname);
int ex_abi_arg(struct ex *x, struct ex_abi *a, const struct value *v, const char *fname);
void ex_abi_result(struct ex_abi *a, const struct sym_type *t, struct value *v);
void ex_abi_free(struct ex_abi *a);
/* After '$': a register ($rax) or an earlier result ($3). */
int ex_dollar(struct ex *x, struct value *v);
/* Writes rv into the variable, register or memory lv stands for. */
int ex_store_to(struct ex *x, struct value *lv, const struct value *rv);
/* A type name at x->p (casts, sizeof): 1 with *t, 0 when what follows is
 * no type (x->p unmoved), -1 on error. */
int ex_type_name(struct ex *x, const struct sym_type **t);
/* expr_access.c.  The member called name of class t, its own or a
 * base's or an anonymous member's; its offset in *off.  NULL: none. */
const struct sym_member *ex_find_member(const struct sym_type *t, const char *name,
					uint64_t *off, int depth);
/* v, a reference, replaced by the object it refers to (else unchanged). */
int ex_deref_reference(struct ex *x, struct value *v);
/* v = v.name (arrow: v->name), the name at x->p; a method called on it. */
int ex_member(struct ex *x, struct value *v, int arrow);
/* name as a member of the object a method runs on: 0 done (v the
 * member), 1 not such a member (v released), -1 failed. */
int ex_this_member(struct ex *x, const char *name, struct value *v);
/* v = v[index], x->p after the '['. */
int ex_subscript(struct ex *x, struct value *v);
/* expr_member.c: "&Class::member" at x->p (after the '&'): 1 with v the
 * pointer to that data member, 0 when it is not one (x->p unmoved). */
int ex_member_pointer(struct ex *x, struct value *v);
/* v = v.*pm (arrow: v->*pm); pm and, on failure, v released. */
int ex_member_apply(struct ex *x, struct value *v, struct value *pm, int arrow);
/* a = a op b (op "+", "<<", "&&", ...); b is released; on failure a too. */
int ex_arith(struct ex *x, const char *op, struct value *a, struct value *b);

#endif
