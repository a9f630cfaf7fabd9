/* core/data/expr_access.c: the parts of an object an expression reaches:
 * members ("s.x", "p->x", a method's own members by name, a method
 * called on an object), subscripts of arrays, pointers and library
 * containers ("a[i]", "v[i]", "s[i]"), and a reference standing for the
 * object it refers to.  The grammar around them: expr_parse.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data/expr.h"
#include "core/data/expr_int.h"
#include "core/data/fmt_cxx.h"

static int member_named(struct ex *x, struct value *v, const char *name, int arrow);

/* A C++ reference stands for the object it refers to. */
int ex_deref_reference(struct ex *x, struct value *v)
{
	const struct sym_type *t = sym_type_strip(v->type);
	uint64_t a;

	if (!t || (t->kind != SYM_T_REF && t->kind != SYM_T_RVREF) || !t->target)
		return 0;
	a = ex_u(v);
	value_release(v);
	return ex_load(x, v, t->target, a);
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

int ex_member(struct ex *x, struct value *v, int arrow)
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
int ex_this_member(struct ex *x, const char *name, struct value *v)
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
	return ex_deref_reference(x, v);
}

int ex_subscript(struct ex *x, struct value *v)
{
	struct value idx;
	const struct sym_type *t = sym_type_strip(v->type), *elem;
	uint64_t base;

	if (ex_assign(x, &idx) < 0) {
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
		if (i < 0 || cxx_index_expr(x->fc->env, v->type, v->bytes, v->size, (uint64_t)i, &et, &a, &why) < 0) {
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
