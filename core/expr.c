/* core/expr.c: C expressions over the program's DWARF, evaluated while
 * they are parsed (recursive descent, C's precedence).  Arithmetic follows
 * C's conversions as LLDB's clang-based evaluator does; comparisons and
 * logical operators give bool as in C++, which LLDB evaluates in.  A
 * "skip" depth evaluates the untaken side of && || ?: without effects. */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/expr.h"
#include "core/expr_int.h"

/* ---- the store ---- */

void expr_store_drop(struct expr_store *st)
{
	if (!st)
		return;
	for (int i = 0; i < st->n; i++)
		free(st->v[i].bytes);
	free(st->v);
	st->v = NULL;
	st->n = 0;
	for (int i = 0; i < st->ntypes; i++)
		free(st->types[i]);
	free(st->types);
	st->types = NULL;
	st->ntypes = 0;
	st->base = st->next;	/* older numbers are gone */
}

void expr_store_free(struct expr_store *st)
{
	expr_store_drop(st);
	free(st);
}

static struct expr_store *store(struct expr_store **st)
{
	if (!*st)
		*st = xcalloc(1, sizeof(**st));
	return *st;
}

struct sym_type *expr_new_type(struct expr_store *st, enum sym_tkind k, const struct sym_type *target)
{
	struct sym_type *t = xcalloc(1, sizeof(*t));

	t->kind = k;
	t->target = (struct sym_type *)target;
	t->size = 8;
	st->types = xrealloc(st->types, (size_t)(st->ntypes + 1) * sizeof(*st->types));
	st->types[st->ntypes++] = t;
	return t;
}

unsigned expr_keep(struct expr_store **stp, struct dbg *d, const struct value *v)
{
	struct expr_store *st = store(stp);
	struct value *k;

	(void)d;
	st->v = xrealloc(st->v, (size_t)(st->n + 1) * sizeof(*st->v));
	k = &st->v[st->n++];
	*k = *v;
	k->bytes = xmalloc(v->size ? v->size : 1);
	memcpy(k->bytes, v->bytes, v->size);
	return st->next++;
}

/* ---- built-in types ---- */

#define BASE(n, s, e) { .kind = SYM_T_BASE, .name = n, .size = s, .enc = e }
const struct sym_type expr_t_int = BASE("int", 4, DW_ATE_signed);
const struct sym_type expr_t_uint = BASE("unsigned int", 4, DW_ATE_unsigned);
const struct sym_type expr_t_long = BASE("long", 8, DW_ATE_signed);
const struct sym_type expr_t_ulong = BASE("unsigned long", 8, DW_ATE_unsigned);
const struct sym_type expr_t_llong = BASE("long long", 8, DW_ATE_signed);
const struct sym_type expr_t_ullong = BASE("unsigned long long", 8, DW_ATE_unsigned);
const struct sym_type expr_t_short = BASE("short", 2, DW_ATE_signed);
const struct sym_type expr_t_ushort = BASE("unsigned short", 2, DW_ATE_unsigned);
const struct sym_type expr_t_char = BASE("char", 1, DW_ATE_signed_char);
const struct sym_type expr_t_schar = BASE("signed char", 1, DW_ATE_signed_char);
const struct sym_type expr_t_uchar = BASE("unsigned char", 1, DW_ATE_unsigned_char);
const struct sym_type expr_t_bool = BASE("bool", 1, DW_ATE_boolean);
const struct sym_type expr_t_float = BASE("float", 4, DW_ATE_float);
const struct sym_type expr_t_double = BASE("double", 8, DW_ATE_float);
const struct sym_type expr_t_void = { .kind = SYM_T_VOID, .name = "void" };

/* ---- lexer ---- */

static void skip_ws(struct ex *x)
{
	while (isspace((unsigned char)*x->p))
		x->p++;
}

int ex_peek(struct ex *x, const char *op)
{
	size_t n = strlen(op);

	skip_ws(x);
	if (strncmp(x->p, op, n))
		return 0;
	/* "<" is not "<<", "&" is not "&&", "=" is not "==" */
	if (n == 1 && strchr("<>&|=!+-*/%^", op[0]) && x->p[1] == '=' && op[0] != '!')
		return 0;
	if (n == 1 && strchr("<>&|+-", op[0]) && x->p[1] == op[0])
		return 0;
	if (n == 2 && strchr("<>", op[0]) && op[1] == op[0] && x->p[2] == '=')
		return 0;
	if (n == 1 && op[0] == '-' && x->p[1] == '>')
		return 0;
	return 1;
}

int ex_eat(struct ex *x, const char *op)
{
	if (!ex_peek(x, op))
		return 0;
	x->p += strlen(op);
	return 1;
}

int ex_ident(struct ex *x, char *buf, size_t n)
{
	size_t k = 0;

	skip_ws(x);
	if (!isalpha((unsigned char)*x->p) && *x->p != '_')
		return 0;
	while (isalnum((unsigned char)*x->p) || *x->p == '_' ||
	       (x->p[0] == ':' && x->p[1] == ':' && (x->p++, 1))) {
		if (k < n - 1)
			buf[k++] = *x->p;
		x->p++;
	}
	buf[k] = 0;
	return 1;
}

int ex_fail(struct ex *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->failed && x->err) {
		va_start(ap, fmt);
		vsnprintf(x->err->msg, sizeof(x->err->msg), fmt, ap);
		va_end(ap);
	}
	x->failed = 1;
	return -1;
}

/* ---- values ---- */

void ex_val(struct value *v, const struct sym_type *t)
{
	memset(v, 0, sizeof(*v));
	v->type = t;
	v->size = t ? (size_t)t->size : 0;
	v->bytes = xcalloc(v->size ? v->size : 1, 1);
	v->in_reg = -1;
}

void ex_set_u(struct value *v, const struct sym_type *t, uint64_t u)
{
	ex_val(v, t);
	memcpy(v->bytes, &u, v->size < 8 ? v->size : 8);
}

void ex_set_d(struct value *v, const struct sym_type *t, double d)
{
	ex_val(v, t);
	if (v->size == 4) {
		float f = (float)d;

		memcpy(v->bytes, &f, 4);
	} else
		memcpy(v->bytes, &d, 8);
}

int ex_is_float(const struct sym_type *t)
{
	t = sym_type_strip(t);
	return t && t->kind == SYM_T_BASE && t->enc == DW_ATE_float;
}

int ex_is_ptr(const struct sym_type *t)
{
	t = sym_type_strip(t);
	return t && (t->kind == SYM_T_POINTER || t->kind == SYM_T_ARRAY);
}

int ex_is_signed(const struct sym_type *t)
{
	t = sym_type_strip(t);
	if (!t)
		return 0;
	if (t->kind == SYM_T_ENUM)
		return !t->unsigned_enum;
	return t->kind == SYM_T_BASE && (t->enc == DW_ATE_signed || t->enc == DW_ATE_signed_char);
}

int ex_is_scalar(const struct sym_type *t)
{
	t = sym_type_strip(t);
	return t && (t->kind == SYM_T_BASE || t->kind == SYM_T_ENUM || t->kind == SYM_T_POINTER ||
		     t->kind == SYM_T_REF);
}

uint64_t ex_u(const struct value *v)
{
	const struct sym_type *t = sym_type_strip(v->type);
	uint64_t u = 0;
	size_t n = v->size < 8 ? v->size : 8;

	if (t && t->kind == SYM_T_ARRAY)
		return v->addr;
	if (ex_is_float(t)) {
		double d = ex_d(v);

		return d < 0 ? (uint64_t)(int64_t)d : (uint64_t)d;
	}
	memcpy(&u, v->bytes, n);
	if (ex_is_signed(t) && n && n < 8 && ((u >> (n * 8 - 1)) & 1))
		u |= ~0ull << (n * 8);
	return u;
}

double ex_d(const struct value *v)
{
	const struct sym_type *t = sym_type_strip(v->type);

	if (ex_is_float(t)) {
		if (v->size == 4) {
			float f;

			memcpy(&f, v->bytes, 4);
			return f;
		}
		if (v->size == 8) {
			double d;

			memcpy(&d, v->bytes, 8);
			return d;
		}
		{
			long double ld = 0;

			memcpy(&ld, v->bytes, v->size < sizeof(ld) ? v->size : sizeof(ld));
			return (double)ld;
		}
	}
	return ex_is_signed(t) ? (double)(int64_t)ex_u(v) : (double)ex_u(v);
}

/* C's usual arithmetic conversions, after the integer promotions. */
const struct sym_type *ex_common(const struct sym_type *a, const struct sym_type *b)
{
	const struct sym_type *sa = sym_type_strip(a), *sb = sym_type_strip(b);

	if (ex_is_float(sa) || ex_is_float(sb)) {
		if ((ex_is_float(sa) && sa->size > 4) || (ex_is_float(sb) && sb->size > 4))
			return &expr_t_double;
		return &expr_t_float;
	}
	{
		uint64_t za = sa ? sa->size : 4, zb = sb ? sb->size : 4;
		int ua = !ex_is_signed(sa) && za >= 4, ub = !ex_is_signed(sb) && zb >= 4;

		if (za < 4)
			za = 4;
		if (zb < 4)
			zb = 4;
		if (za == zb)
			return za == 8 ? (ua || ub ? &expr_t_ulong : &expr_t_long)
				       : (ua || ub ? &expr_t_uint : &expr_t_int);
		if (za > zb)
			return za == 8 ? (ua ? &expr_t_ulong : &expr_t_long) : &expr_t_int;
		return zb == 8 ? (ub ? &expr_t_ulong : &expr_t_long) : &expr_t_int;
	}
}

/* Converts v to type t (a scalar), in place. */
void ex_convert(struct value *v, const struct sym_type *t)
{
	struct value n;

	if (ex_is_float(t))
		ex_set_d(&n, t, ex_d(v));
	else if (sym_type_strip(t) && sym_type_strip(t)->kind == SYM_T_BASE &&
		 sym_type_strip(t)->enc == DW_ATE_boolean)
		ex_set_u(&n, t, ex_is_float(v->type) ? ex_d(v) != 0 : ex_u(v) != 0);
	else
		ex_set_u(&n, t, ex_u(v));
	value_release(v);
	*v = n;
}
