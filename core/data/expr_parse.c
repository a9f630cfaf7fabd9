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

/* A C++ reference stands for the object it refers to. */
static int deref_reference(struct ex *x, struct value *v)
{
	const struct sym_type *t = sym_type_strip(v->type);
	uint64_t a;

	if (!t || (t->kind != SYM_T_REF && t->kind != SYM_T_RVREF) || !t->target)
		return 0;
	a = ex_u(v);
	value_release(v);
	return ex_load(x, v, t->target, a);
}

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

static int this_member(struct ex *x, const char *name, struct value *v);

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
	if (ex_peek(x, "("))
		return call_function(x, name, at, v);
	if (x->fc->no_data)
		return ex_fail(x, "%s", x->fc->no_data);
	if (x->fc->env->var_named(x->fc, name, v) < 0) {
		int r = this_member(x, name, v);

		if (r <= 0)
			return r;
		if ((r = ex_function_value(x, name, v)) != 0)	/* "p main" */
			return r < 0 ? -1 : 0;
		return ex_fail(x, "use of undeclared identifier '%s'", name);
	}
	if (v->status == VAL_OK || x->skip)
		return deref_reference(x, v);
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
	if (isalpha((unsigned char)*x->p) || *x->p == '_')
		return identifier(x, v);
	if (!*x->p)
		return ex_fail(x, "expected an expression%s", "");
	{
		char c[2] = { *x->p, 0 };

		return ex_fail(x, "unexpected '%s'", c);
	}
}

const struct sym_member *ex_find_member(const struct sym_type *t, const char *name,
					uint64_t *off, int depth)
{
	t = sym_type_strip(t);
	if (!t || depth > 8 || (t->kind != SYM_T_STRUCT && t->kind != SYM_T_UNION &&
				t->kind != SYM_T_CLASS))
		return NULL;
	for (int i = 0; i < t->nmem; i++) {
		const struct sym_member *m = &t->mem[i];

		if (m->name && !m->is_base && !strcmp(m->name, name)) {
			*off = m->off;
			return m;
		}
	}
	for (int i = 0; i < t->nmem; i++) {	/* anonymous members, bases */
		const struct sym_member *m = &t->mem[i], *r;
		uint64_t sub;

		if ((!m->name || m->is_base) && (r = ex_find_member(m->type, name, &sub, depth + 1))) {
			*off = m->off + sub;
			return r;
		}
	}
	return NULL;
}

static int member_named(struct ex *x, struct value *v, const char *name, int arrow);

static int member(struct ex *x, struct value *v, int arrow)
{
	char name[256];

	if (!ex_ident(x, name, sizeof(name))) {
		value_release(v);
		return ex_fail(x, "expected a member name%s", "");
	}
	return member_named(x, v, name, arrow);
}

/* name, not a variable, as a member of the object a method runs on
 * ("name_" for "this->name_", as LLDB reads it): 0 done (v the member),
 * 1 not such a member (v released), -1 failed. */
static int this_member(struct ex *x, const char *name, struct value *v)
{
	const struct sym_type *t;
	uint64_t off;

	if (!strcmp(name, "this") || x->fc->env->var_named(x->fc, "this", v) < 0)
		return 1;
	t = sym_type_strip(v->type);
	if (v->status != VAL_OK || !t || t->kind != SYM_T_POINTER ||
	    !ex_find_member(t->target, name, &off, 0)) {
		value_release(v);
		return 1;
	}
	return member_named(x, v, name, 1) < 0 ? -1 : 0;
}

static int member_named(struct ex *x, struct value *v, const char *name, int arrow)
{
	char tn[256];
	const struct sym_member *m;
	uint64_t off = 0;
	struct value nv;

	if (arrow) {
		const struct sym_type *t = sym_type_strip(v->type);

		if (!t || t->kind != SYM_T_POINTER) {
			sym_type_name(v->type, tn, sizeof(tn));
			value_release(v);
			return ex_fail(x, "member reference type '%s' is not a pointer", tn);
		}
		{
			uint64_t a = ex_u(v);

			value_release(v);
			if (ex_load(x, v, t->target, a) < 0)
				return -1;
		}
	}
	if (ex_peek(x, "(")) {	/* a member function: this = the object */
		const struct sym_type *ct = sym_type_strip(v->type);
		char full[768];
		uint64_t self = v->addr;

		if (!ct || (ct->kind != SYM_T_CLASS && ct->kind != SYM_T_STRUCT) || !ct->name) {
			value_release(v);
			return ex_fail(x, "member function call on a value that is not a class ('%s')",
				       name);
		}
		if (!v->in_mem) {
			value_release(v);
			return ex_fail(x, "the object is not in memory: cannot call '%s' on it", name);
		}
		snprintf(full, sizeof(full), "%s::%s", ct->name, name);
		for (char *q; (q = strstr(full, "> >"));)	/* the demangler's spelling */
			memmove(q + 1, q + 2, strlen(q + 2) + 1);
		x->self_type = v->type;	/* its declaration types a call without DWARF */
		value_release(v);
		return ex_call(x, full, &self, NULL, v);
	}
	m = ex_find_member(v->type, name, &off, 0);
	if (!m) {
		int scalar = ex_is_scalar(v->type);

		sym_type_name(v->type, tn, sizeof(tn));
		value_release(v);
		if (scalar && !arrow)
			return ex_fail(x, "member reference base type '%.200s' is not a structure or union", tn);
		return ex_fail(x, "no member named '%.200s' in '%.200s'", name, tn);
	}
	ex_val(&nv, m->type);
	if (sym_type_is_const(v->type)) {	/* a member of a const object is const */
		struct sym_type *ct = expr_new_type(x->st, SYM_T_CONST, m->type);

		ct->size = m->type ? m->type->size : 0;
		nv.type = ct;
	}
	if (m->bit_size) {
		uint64_t raw = 0, u;

		memcpy(&raw, v->bytes + off, (m->bit_off + m->bit_size + 7) / 8 <= 8 ?
		       (m->bit_off + m->bit_size + 7) / 8 : 8);
		u = (raw >> m->bit_off) & ((1ull << m->bit_size) - 1);
		memcpy(nv.bytes, &u, nv.size < 8 ? nv.size : 8);
	} else if (off + nv.size <= v->size)
		memcpy(nv.bytes, v->bytes + off, nv.size);
	nv.in_mem = v->in_mem && !m->bit_size;
	nv.addr = v->addr + off;
	value_release(v);
	*v = nv;
	return deref_reference(x, v);
}

static int subscript(struct ex *x, struct value *v)
{
	struct value idx;
	const struct sym_type *t = sym_type_strip(v->type), *elem;
	uint64_t base;

	if (assign(x, &idx) < 0) {
		value_release(v);
		return -1;
	}
	if (!ex_eat(x, "]")) {
		value_release(&idx);
		value_release(v);
		return ex_fail(x, "expected ']'%s", "");
	}
	if (t && t->kind != SYM_T_ARRAY && t->kind != SYM_T_POINTER && ex_is_scalar(idx.type) &&
	    !ex_is_float(idx.type) && v->status == VAL_OK) {
		/* a library container: its i-th element (fmt_cxx.c) */
		const struct sym_type *et;
		uint64_t a;
		const char *why;
		int64_t i = (int64_t)ex_u(&idx);

		value_release(&idx);
		if (i < 0 || cxx_index_expr(x->fc->env, t, v->bytes, v->size, (uint64_t)i, &et, &a, &why) < 0) {
			value_release(v);
			return ex_fail(x, "%s", i < 0 ? "index out of range" : why);
		}
		value_release(v);
		return ex_load(x, v, et, a);
	}
	if (!t || (t->kind != SYM_T_ARRAY && t->kind != SYM_T_POINTER) || !ex_is_scalar(idx.type) ||
	    ex_is_float(idx.type)) {
		value_release(&idx);
		value_release(v);
		return ex_fail(x, "subscripted value is not an array or pointer%s", "");
	}
	if (t->kind == SYM_T_ARRAY && t->ndims > 1) {
		/* a row of a multi-dimensional array: an array of the rest */
		struct sym_type *row = expr_new_type(x->st, SYM_T_ARRAY, t->target);

		row->dims = NULL;
		row->ndims = 0;
		row->size = t->dims[0] ? t->size / t->dims[0] : 0;
		row->dims = (uint64_t *)t->dims + 1;
		row->ndims = t->ndims - 1;
		elem = row;
	} else
		elem = t->target;
	base = t->kind == SYM_T_ARRAY ? v->addr : ex_u(v);
	if (!elem || !elem->size) {
		char tn[256];

		value_release(&idx);
		value_release(v);
		if (ex_is_fn_ptr(t))	/* "main[0]" */
			return ex_fail(x, "subscript of pointer to function type '%s'",
				       sym_type_name(elem, tn, sizeof(tn)));
		return ex_fail(x, "subscript of pointer to incomplete type%s", "");
	}
	{
		int64_t i = (int64_t)ex_u(&idx);

		value_release(&idx);
		value_release(v);
		return ex_load(x, v, elem, base + (uint64_t)i * elem->size);
	}
}

static int postfix(struct ex *x, struct value *v)
{
	if (primary(x, v) < 0)
		return -1;
	for (;;) {
		if (ex_eat(x, "["))  {
			if (subscript(x, v) < 0)
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
			if (member(x, v, 1) < 0)
				return -1;
		} else if (ex_eat(x, ".")) {
			if (member(x, v, 0) < 0)
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

	if (!v->in_mem && ex_is_fn_ptr(v->type))	/* "&main": the pointer "main" is */
		return 0;
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
		if (unary(x, v) < 0) {
			x->skip--;
			return -1;
		}
		x->skip--;
		t = v->type;
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
