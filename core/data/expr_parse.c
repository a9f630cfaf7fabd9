/* core/data/expr_parse.c: the grammar of "expression" — C's precedence from
 * assignment down to postfix and primary expressions, each level
 * evaluating as it parses (core/data/expr.c holds the lexer and the values). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/expr.h"
#include "core/data/expr_int.h"
#include "core/data/fmt_cxx.h"

static int assign(struct ex *x, struct value *v);
static int unary(struct ex *x, struct value *v);

/* ---- primary and postfix ---- */

/* at: where the name began (a cast just before it types a call of a
 * function without DWARF) */
static int call_function(struct ex *x, const char *name, const char *at, struct value *v)
{
	return ex_call(x, name, NULL, x->cast_at == at ? x->cast_to : NULL, v);
}

int ex_assign(struct ex *x, struct value *v)
{
	return assign(x, v);
}

static int identifier(struct ex *x, struct value *v)
{
	char name[256];
	const char *at = x->p;

	ex_ident(x, name, sizeof(name));
	if (!strcmp(name, "true") || !strcmp(name, "false")) {
		ex_set_u(v, &expr_t_bool, name[0] == 't');
		return 0;
	}
	if (!strcmp(name, "nullptr") || !strcmp(name, "NULL")) {
		ex_set_u(v, expr_new_type(x->st, SYM_T_POINTER, &expr_t_void), 0);
		return 0;
	}
	if (ex_peek(x, "(")) {
		/* a variable that is a function pointer, else a function */
		if (!x->fc->no_data && x->fc->env->var_named(x->fc, name, v) == 0) {
			if (v->status == VAL_OK && ex_is_fn_ptr(v->type))
				return 0;	/* postfix calls it */
			value_release(v);
		}
		return call_function(x, name, at, v);
	}
	if (x->fc->no_data) {
		int r;

		if (x->fc->no_process && (r = ex_function_value(x, name, v)) != 0)
			return r < 0 ? -1 : 0;	/* "p main": its file address */
		return ex_fail(x, "%s", x->fc->no_data);
	}
	if (x->fc->env->var_named(x->fc, name, v) < 0) {
		int r = ex_this_member(x, name, v);

		if (r <= 0)
			return r;
		if ((r = ex_function_value(x, name, v)) != 0)	/* "p main" */
			return r < 0 ? -1 : 0;
		return ex_fail(x, "use of undeclared identifier '%s'", name);
	}
	if (v->status == VAL_OK || x->skip)
		return ex_deref_reference(x, v);
	value_release(v);
	return ex_fail(x, "'%s' is not available at this point (optimized out, or in a register "
		       "this frame does not recover)", name);
}

static int primary(struct ex *x, struct value *v)
{
	if (ex_eat(x, "(")) {
		if (assign(x, v) < 0)
			return -1;
		if (!ex_eat(x, ")")) {
			value_release(v);
			return ex_fail(x, "expected ')'%s", "");
		}
		return 0;
	}
	if (isdigit((unsigned char)*x->p) || (*x->p == '.' && isdigit((unsigned char)x->p[1])))
		return ex_number(x, v);
	if (*x->p == '\'')
		return ex_char_literal(x, v);
	if (*x->p == '"')
		return ex_fail(x, "string literals are not supported%s", "");
	if (*x->p == '$') {
		x->p++;
		return ex_dollar(x, v);
	}
	if (isalpha((unsigned char)*x->p) || *x->p == '_' ||
	    (x->p[0] == ':' && x->p[1] == ':' && (isalpha((unsigned char)x->p[2]) || x->p[2] == '_')))
		return identifier(x, v);	/* "::x": the global x */
	if (!*x->p)
		return ex_fail(x, "expected an expression%s", "");
	{
		char c[2] = { *x->p, 0 };

		return ex_fail(x, "unexpected '%s'", c);
	}
}

static int postfix(struct ex *x, struct value *v)
{
	if (primary(x, v) < 0)
		return -1;
	for (;;) {
		if (ex_eat(x, "["))  {
			if (ex_subscript(x, v) < 0)
				return -1;
		} else if (ex_peek(x, "->*") || ex_peek(x, ".*")) {
			int arrow = ex_eat(x, "->*");
			struct value pm;

			if (!arrow)
				ex_eat(x, ".*");
			memset(&pm, 0, sizeof(pm));
			if (postfix(x, &pm) < 0) {
				value_release(v);
				return -1;
			}
			if (ex_member_apply(x, v, &pm, arrow) < 0)
				return -1;
		} else if (ex_eat(x, "->")) {
			if (ex_member(x, v, 1) < 0)
				return -1;
		} else if (ex_eat(x, ".")) {
			if (ex_member(x, v, 0) < 0)
				return -1;
		} else if (ex_peek(x, "(") && ex_is_fn_ptr(v->type)) {
			if (ex_call_pointer(x, v) < 0)	/* "fp(3)", "((int(*)(int))f)(3)" */
				return -1;
		} else if (ex_peek(x, "++") || ex_peek(x, "--")) {
			value_release(v);
			return ex_fail(x, "increment and decrement operators are not supported%s", "");
		} else
			return 0;
	}
}

/* ---- unary ---- */

static int deref(struct ex *x, struct value *v)
{
	const struct sym_type *t = sym_type_strip(v->type);
	uint64_t a;

	if (!t || (t->kind != SYM_T_POINTER && t->kind != SYM_T_ARRAY)) {
		char tn[256];

		sym_type_name(v->type, tn, sizeof(tn));
		value_release(v);
		return ex_fail(x, "indirection requires pointer operand ('%s' invalid)", tn);
	}
	if (!t->target || sym_type_strip(t->target)->kind == SYM_T_VOID) {
		value_release(v);
		return ex_fail(x, "indirection of a void pointer%s", "");
	}
	if (ex_is_fn_ptr(t))	/* "*main": the function, a pointer to it again */
		return 0;
	a = t->kind == SYM_T_ARRAY ? v->addr : ex_u(v);
	value_release(v);
	return ex_load(x, v, t->target, a);
}

static int address_of(struct ex *x, struct value *v)
{
	const struct sym_type *t;
	uint64_t a;

	if (!v->in_mem && ex_is_fn_ptr(v->type)) {	/* "&main": the pointer "main" is */
		x->fn_designator = 0;
		return 0;
	}
	if (!v->in_mem) {
		value_release(v);
		return ex_fail(x, "cannot take the address of an rvalue or a register%s", "");
	}
	t = expr_new_type(x->st, SYM_T_POINTER, v->type);
	a = v->addr;
	value_release(v);
	ex_set_u(v, t, a);
	return 0;
}

static int sizeof_op(struct ex *x, struct value *v)
{
	const struct sym_type *t = NULL;
	const char *save = x->p;

	if (ex_eat(x, "(")) {
		int r = ex_type_name(x, &t);

		if (r < 0)
			return -1;
		if (r > 0 && !ex_eat(x, ")"))
			return ex_fail(x, "expected ')'%s", "");
		if (r == 0)
			x->p = save;
	}
	if (!t) {
		x->skip++;
		x->fn_designator = 0;
		if (unary(x, v) < 0) {
			x->skip--;
			return -1;
		}
		x->skip--;
		t = v->type;
		if (x->fn_designator && !v->in_mem && ex_is_fn_ptr(t)) {
			value_release(v);
			return ex_fail(x, "invalid application of 'sizeof' to a function type%s", "");
		}
		value_release(v);
	}
	ex_set_u(v, &expr_t_ulong, t ? t->size : 0);
	return 0;
}

static int cast(struct ex *x, struct value *v, const struct sym_type *t)
{
	const struct sym_type *s = sym_type_strip(t), *outer_to = x->cast_to;
	const char *outer_at = x->cast_at;
	int rc;

	while (isspace((unsigned char)*x->p))
		x->p++;
	x->cast_to = t;
	x->cast_at = x->p;
	rc = unary(x, v);
	x->cast_to = outer_to;
	x->cast_at = outer_at;
	x->fn_designator = 0;	/* "(int (*)(int))f": a pointer now */
	if (rc < 0)
		return -1;
	if (!s || s->kind == SYM_T_VOID) {
		value_release(v);
		ex_val(v, &expr_t_void);
		return 0;
	}
	if (!ex_is_scalar(s) || (!ex_is_scalar(v->type) && !ex_is_ptr(v->type))) {
		char tn[256];

		value_release(v);
		return ex_fail(x, "cannot cast to '%s'", sym_type_name(t, tn, sizeof(tn)));
	}
	ex_convert(v, t);
	return 0;
}

static int unary_(struct ex *x, struct value *v);

static int unary(struct ex *x, struct value *v)
{
	int rc;

	if (x->depth >= 200)
		return ex_fail(x, "expression nested too deeply%s", "");
	x->depth++;
	rc = unary_(x, v);
	x->depth--;
	return rc;
}

static int unary_(struct ex *x, struct value *v)
{
	const char *save;
	const struct sym_type *t;

	if (ex_eat(x, "-") || ex_eat(x, "+") || ex_eat(x, "!") || ex_eat(x, "~")) {
		char op = x->p[-1];

		if (unary(x, v) < 0)
			return -1;
		if (!ex_is_scalar(v->type)) {
			value_release(v);
			return ex_fail(x, "invalid argument type to unary operator%s", "");
		}
		if (ex_is_ptr(v->type) && (op == '-' || op == '~')) {	/* "-main" */
			char tn[256];

			sym_type_name(v->type, tn, sizeof(tn));
			value_release(v);
			return ex_fail(x, "invalid argument type '%s' to unary expression", tn);
		}
		if (op == '!') {
			int z = ex_is_float(v->type) ? ex_d(v) == 0 : ex_u(v) == 0;

			value_release(v);
			ex_set_u(v, &expr_t_bool, (uint64_t)z);
			return 0;
		}
		t = ex_is_float(v->type) ? v->type : ex_common(v->type, &expr_t_int);
		if (op == '~' && ex_is_float(t)) {
			value_release(v);
			return ex_fail(x, "invalid argument type to unary '~'%s", "");
		}
		ex_convert(v, t);
		if (ex_is_float(t) && op == '-') {
			double dv = ex_d(v);

			value_release(v);	/* ex_set_d makes a new value */
			ex_set_d(v, t, -dv);
		} else if (op == '-' || op == '~') {
			uint64_t u = ex_u(v);

			value_release(v);
			ex_set_u(v, t, op == '-' ? (uint64_t)0 - u : ~u);
		}
		return 0;
	}
	if (ex_eat(x, "*"))
		return unary(x, v) < 0 ? -1 : deref(x, v);
	if (ex_eat(x, "&")) {
		int r = ex_member_pointer(x, v);	/* &Foo::x */

		if (r)
			return r < 0 ? -1 : 0;
		return unary(x, v) < 0 ? -1 : address_of(x, v);
	}
	save = x->p;
	{
		char w[16];

		if (ex_ident(x, w, sizeof(w)) && !strcmp(w, "sizeof"))
			return sizeof_op(x, v);
		x->p = save;
	}
	if (ex_eat(x, "(")) {
		int r = ex_type_name(x, &t);

		if (r < 0)
			return -1;
		if (r > 0) {
			if (!ex_eat(x, ")"))
				return ex_fail(x, "expected ')' after the type%s", "");
			return cast(x, v, t);
		}
		x->p = save;
	}
	return postfix(x, v);
}

/* ---- binary ---- */


static const struct { const char *ops[6]; } levels[] = {
	{ { "||" } }, { { "&&" } }, { { "|" } }, { { "^" } }, { { "&" } },
	{ { "==", "!=" } }, { { "<=", ">=", "<", ">" } }, { { "<<", ">>" } },
	{ { "+", "-" } }, { { "*", "/", "%" } },
};
#define NLEVELS ((int)(sizeof(levels) / sizeof(levels[0])))

static int binary(struct ex *x, struct value *v, int level)
{
	if (level == NLEVELS)
		return unary(x, v);
	if (binary(x, v, level + 1) < 0)
		return -1;
	for (;;) {
		const char *op = NULL;
		struct value rhs;
		int shortcut = 0;

		for (int i = 0; i < 6 && levels[level].ops[i]; i++)
			if (ex_eat(x, levels[level].ops[i])) {
				op = levels[level].ops[i];
				break;
			}
		if (!op)
			return 0;
		if (!strcmp(op, "&&") || !strcmp(op, "||")) {
			int truth = ex_is_float(v->type) ? ex_d(v) != 0 : ex_u(v) != 0;

			shortcut = (op[0] == '&') ? !truth : truth;
		}
		x->skip += shortcut;
		if (binary(x, &rhs, level + 1) < 0) {
			x->skip -= shortcut;
			value_release(v);
			return -1;
		}
		x->skip -= shortcut;
		if (ex_arith(x, op, v, &rhs) < 0)
			return -1;
	}
}

/* ---- conditional and assignment ---- */

static int conditional(struct ex *x, struct value *v)
{
	struct value a, b;
	int truth;

	if (binary(x, v, 0) < 0)
		return -1;
	if (!ex_eat(x, "?"))
		return 0;
	truth = ex_is_float(v->type) ? ex_d(v) != 0 : ex_u(v) != 0;
	value_release(v);
	x->skip += !truth;
	if (assign(x, &a) < 0) {
		x->skip -= !truth;
		return -1;
	}
	x->skip -= !truth;
	if (!ex_eat(x, ":")) {
		value_release(&a);
		return ex_fail(x, "expected ':'%s", "");
	}
	x->skip += truth;
	if (conditional(x, &b) < 0) {
		x->skip -= truth;
		value_release(&a);
		return -1;
	}
	x->skip -= truth;
	if (truth) {
		*v = a;
		value_release(&b);
	} else {
		*v = b;
		value_release(&a);
	}
	return 0;
}

static int assign_(struct ex *x, struct value *v);

static int assign(struct ex *x, struct value *v)
{
	int rc;

	if (x->depth >= 200)
		return ex_fail(x, "expression nested too deeply%s", "");
	x->depth++;
	rc = assign_(x, v);
	x->depth--;
	return rc;
}

static int assign_(struct ex *x, struct value *v)
{
	static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
					   "^=", "<<=", ">>=" };
	const char *op = NULL;
	struct value rhs;

	if (conditional(x, v) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ex_eat(x, ops[i])) {
			op = ops[i];
			break;
		}
	if (!op)
		return 0;
	if (assign(x, &rhs) < 0) {
		value_release(v);
		return -1;
	}
	if (op[1]) {	/* compound: v op= rhs */
		struct value cur;
		char bop[3] = { op[0], op[0] == '<' || op[0] == '>' ? op[1] : 0, 0 };

		ex_val(&cur, v->type);
		memcpy(cur.bytes, v->bytes, v->size);
		if (ex_arith(x, bop, &cur, &rhs) < 0) {
			value_release(v);
			return -1;
		}
		rhs = cur;
	}
	if (!ex_is_scalar(v->type) || (!ex_is_scalar(rhs.type) && !ex_is_ptr(rhs.type))) {
		value_release(&rhs);
		value_release(v);
		return ex_fail(x, "only scalar values can be assigned%s", "");
	}
	ex_convert(&rhs, v->type);
	if (ex_store_to(x, v, &rhs) < 0) {
		value_release(&rhs);
		value_release(v);
		return -1;
	}
	memcpy(v->bytes, rhs.bytes, v->size);
	value_release(&rhs);
	return 0;
}

int expr_eval(struct frame_ctx *fc, struct expr_store **st, const char *text,
	      struct value *out, struct ptdb_err *err)
{
	struct ex x;

	memset(&x, 0, sizeof(x));
	memset(out, 0, sizeof(*out));
	x.p = x.text = text;
	x.fc = fc;
	x.err = err;
	if (!*st)
		*st = xcalloc(1, sizeof(**st));
	x.st = *st;
	if (assign(&x, out) < 0)
		return -1;
	while (isspace((unsigned char)*x.p))
		x.p++;
	if (*x.p) {
		char c[2] = { *x.p, 0 };

		value_release(out);
		return ptdb_err_set(err, "unexpected '%s' after the expression", c);
	}
	return 0;
}
