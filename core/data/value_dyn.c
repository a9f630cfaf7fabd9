/* core/data/value_dyn.c: dynamic types as LLDB finds them (its default,
 * target.prefer-dynamic-value no-run-target): a pointer or reference to a
 * C++ class with virtual functions, or a void *, shows the class of the
 * object it points to — the one whose vtable the object's first word
 * points into, by the vtable's symbol — and the object's start (the
 * vtable's offset-to-top added).  As LLDB, the type shown is then
 * "Derived *" or "Derived &", the static type's const and typedefs gone. */
#include <string.h>

#include "core/data/value.h"
#include "core/data/value_int.h"

/* Whether t (stripped) has a vtable: its own or a base's. */
static int has_vtable(const struct sym_type *t, int depth)
{
	t = sym_type_strip(t);
	if (!t || depth > 32 || (t->kind != SYM_T_STRUCT && t->kind != SYM_T_CLASS))
		return 0;
	if (t->dynamic)
		return 1;
	for (int i = 0; i < t->nmem; i++)
		if (t->mem[i].is_base && has_vtable(t->mem[i].type, depth + 1))
			return 1;
	return 0;
}

const struct sym_type *value_dynamic(const struct value_env *env, const struct sym_type *t,
				     const uint8_t *b, uint64_t *addr)
{
	const struct sym_type *s = sym_type_strip(t), *tg;
	struct sym_type *cls;
	uint64_t p, vptr;
	int64_t top;

	if (!env || !env->vtable_class || !s ||
	    (s->kind != SYM_T_POINTER && s->kind != SYM_T_REF && s->kind != SYM_T_RVREF))
		return NULL;
	tg = sym_type_strip(s->target);
	if (tg ? tg->kind != SYM_T_VOID && !has_vtable(tg, 0) : s->kind != SYM_T_POINTER)
		return NULL;
	memcpy(&p, b, 8);
	if (!p || env->read(env->d, p, &vptr, 8, NULL) < 0 || vptr < 16 ||
	    !(cls = env->vtable_class(env->d, vptr)) ||
	    env->read(env->d, vptr - 16, &top, 8, NULL) < 0)
		return NULL;
	*addr = p + (uint64_t)top;
	return s->kind == SYM_T_POINTER ? sym_type_pointer_to(cls) : sym_type_ref_to(cls);
}

int value_dynamic_on(const struct value_env *env)
{
	return env && env->dynamic_values && env->dynamic_values(env->d);
}
