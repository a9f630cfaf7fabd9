/* core/data/expr_member.c: C++ pointers to members in expressions, as
 * lldb-16 evaluates them: "&Foo::x" (a data member's offset, typed
 * "int Foo::*"), "&Foo::f" (a member function's address, or its vtable
 * slot's offset + 1 when virtual, and 0 to add to this: 16 bytes),
 * "obj.*pm" and "ptr->*pm" (the data member they select). */
#include <string.h>

#include "core/data/expr.h"
#include "core/data/expr_int.h"
#include "core/data/value.h"

int ex_member_pointer(struct ex *x, struct value *v)
{
	const char *save = x->p;
	char name[256], *sep = NULL;
	const struct sym_member *m;
	struct sym_type *cls, *t;
	uint64_t off;

	if (!ex_ident(x, name, sizeof(name)) || ex_peek(x, "(") || !x->fc->env ||
	    !x->fc->env->type_named) {
		x->p = save;
		return 0;
	}
	for (char *q = strstr(name, "::"); q; q = strstr(q + 2, "::"))
		sep = q;
	if (!sep) {
		x->p = save;
		return 0;
	}
	*sep = 0;
	cls = x->fc->env->type_named(x->fc->env->d, name);
	m = cls ? ex_find_member(cls, sep + 2, &off, 0) : NULL;
	if (cls && !m) {	/* a member function: its address, or vtable slot + 1 */
		const struct sym_type *mt;
		int slot;
		uint64_t fn;

		if (sym_type_method_ptr((struct sym_type *)sym_type_strip(cls), sep + 2, &mt,
					&slot) == 0) {
			*sep = ':';
			if (slot >= 0)
				ex_set_u(v, mt, (uint64_t)slot * 8 + 1);
			else if (x->fc->env->function_named &&
				 x->fc->env->function_named(x->fc->d, x->fc->mod, name, &fn))
				ex_set_u(v, mt, fn);
			else
				return ex_fail(x, "the program has no out-of-line copy of '%s' "
					       "(inlined away, or never used)", name);
			return 1;
		}
	}
	if (!m || m->bit_size || !m->type) {	/* not a class's data member */
		x->p = save;
		return 0;
	}
	t = expr_new_type(x->st, SYM_T_MEMBER_PTR, m->type);
	t->cls = cls;
	t->size = 8;
	ex_set_u(v, t, off);
	return 1;
}

int ex_member_apply(struct ex *x, struct value *v, struct value *pm, int arrow)
{
	const struct sym_type *mt = sym_type_strip(pm->type), *ot;
	char tn[256];
	int64_t off;
	uint64_t a;

	if (!mt || mt->kind != SYM_T_MEMBER_PTR) {
		sym_type_name(pm->type, tn, sizeof(tn));
		value_release(pm);
		value_release(v);
		return ex_fail(x, "right hand operand to %s has non-pointer-to-member type '%s'",
			       arrow ? "->*" : ".*", tn);
	}
	if (!mt->target || sym_type_strip(mt->target)->kind == SYM_T_FUNC) {
		value_release(pm);
		value_release(v);
		return ex_fail(x, "calling a member function through a pointer to member is not "
			       "supported%s", "");
	}
	off = (int64_t)ex_u(pm);
	value_release(pm);
	ot = sym_type_strip(v->type);
	if (arrow) {
		if (!ot || ot->kind != SYM_T_POINTER) {
			sym_type_name(v->type, tn, sizeof(tn));
			value_release(v);
			return ex_fail(x, "left hand operand to ->* must be a pointer to class "
				       "compatible with the right hand operand, but is '%s'", tn);
		}
		a = ex_u(v);
	} else {
		if (!ot || (ot->kind != SYM_T_STRUCT && ot->kind != SYM_T_CLASS) || !v->in_mem) {
			sym_type_name(v->type, tn, sizeof(tn));
			value_release(v);
			return ex_fail(x, "left hand operand to .* must be a class compatible with the "
				       "right hand operand, but is '%s'", tn);
		}
		a = v->addr;
	}
	value_release(v);
	if (off == -1)	/* the null pointer to a data member */
		return ex_fail(x, "dereferencing a null pointer to member%s", "");
	return ex_load(x, v, mt->target, a + (uint64_t)off);
}
