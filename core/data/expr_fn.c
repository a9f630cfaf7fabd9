/* core/data/expr_fn.c: a function's name as a value ("p main", "p &main",
 * "p (char *)main + 2"), as LLDB evaluates it: a pointer to the function,
 * typed by its DWARF ("int (*)(int, char **)"), whose summary names the
 * function ("(prog`main at prog.c:6:1)", printed as any function
 * pointer's).  The function is found through the frame's value_env, as a
 * call's is (expr_call.c). */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "core/data/expr.h"
#include "core/data/expr_int.h"
#include "core/symbols/sym.h"

int ex_is_fn_ptr(const struct sym_type *t)
{
	t = sym_type_strip(t);
	return t && t->kind == SYM_T_POINTER && t->target &&
	       sym_type_strip(t->target) && sym_type_strip(t->target)->kind == SYM_T_FUNC;
}

/* The type of the function at fn from its DWARF (made in the store),
 * or NULL when the module has none for it. */
static struct sym_type *function_type(struct ex *x, struct dbg_module *m, uint64_t fn)
{
	struct sym_func_scope sc;
	struct sym_var *vars = NULL;
	struct sym_type *ft = NULL;
	int nv, np = 0;

	memset(&sc, 0, sizeof(sc));
	/* (no process: the executable is not mapped, fn its file address) */
	nv = (fn >= m->start && fn < m->end) || !m->end ?
	     sym_scope_vars(m->sym, fn, 0, &sc, &vars, NULL) : -1;
	if (nv < 0)
		return NULL;
	for (int i = 0; i < nv; i++)
		if (vars[i].is_param && !vars[i].artificial)
			np++;
	if (sc.func) {
		/* one block with its parameters, freed with the store's types */
		ft = xcalloc(1, sizeof(*ft) + (size_t)np * sizeof(*ft->mem));
		ft->kind = SYM_T_FUNC;
		ft->target = sc.ret;
		ft->mem = (struct sym_member *)(ft + 1);
		/* LLDB's clang prints a C function without parameters "()" */
		ft->is_cxx = 1;
		ft->variadic = sc.variadic;
		for (int i = 0; i < nv; i++)
			if (vars[i].is_param && !vars[i].artificial)
				ft->mem[ft->nmem++].type = vars[i].type;
		x->st->types = xrealloc(x->st->types,
					(size_t)(x->st->ntypes + 1) * sizeof(*x->st->types));
		x->st->types[x->st->ntypes++] = ft;
	}
	sym_vars_free(vars, nv);
	free(sc.frame_base);
	return ft;
}

int ex_function_value(struct ex *x, const char *name, struct value *v)
{
	const struct value_env *env = x->fc->env;
	struct dbg_module *m;
	struct sym_type *ft;
	uint64_t fn = 0;

	if (!env || !env->function_named || !(m = env->function_named(x->fc->d, x->fc->mod, name, &fn)))
		return 0;
	ft = function_type(x, m, fn);
	if (!ft)	/* no DWARF: LLDB asks for a cast */
		return ex_fail(x, "'%s' has unknown type; cast it to its declared type to use it",
			       name);
	ex_set_u(v, expr_new_type(x->st, SYM_T_POINTER, ft), fn);
	x->fn_designator = 1;
	return 1;
}

int ex_fn_declarator(struct ex *x, const struct sym_type **t)
{
	const char *save = x->p;
	const struct sym_type *pt[64];
	struct sym_type *ft;
	int np = 0, variadic = 0;

	if (!ex_eat(x, "(") || !ex_eat(x, "*") || !ex_eat(x, ")") || !ex_eat(x, "(")) {
		x->p = save;
		return 0;
	}
	while (!ex_eat(x, ")")) {
		const struct sym_type *a;
		int r;

		if (np && !ex_eat(x, ","))
			return ex_fail(x, "expected ')' after the parameter types%s", "");
		if (ex_eat(x, "...")) {
			variadic = 1;
			continue;
		}
		if ((r = ex_type_name(x, &a)) <= 0)
			return r < 0 ? -1 : ex_fail(x, "expected a parameter type%s", "");
		if (np == (int)(sizeof(pt) / sizeof(pt[0])))
			return ex_fail(x, "too many parameter types%s", "");
		pt[np++] = a;
	}
	if (np == 1 && sym_type_strip(pt[0]) && sym_type_strip(pt[0])->kind == SYM_T_VOID)
		np = 0;		/* "(void)" */
	/* one block with its parameters, freed with the store's types */
	ft = xcalloc(1, sizeof(*ft) + (size_t)np * sizeof(*ft->mem));
	ft->kind = SYM_T_FUNC;
	ft->target = sym_type_strip(*t) && sym_type_strip(*t)->kind == SYM_T_VOID ?
		     NULL : (struct sym_type *)*t;
	ft->mem = (struct sym_member *)(ft + 1);
	ft->is_cxx = 1;
	ft->variadic = variadic;
	for (int i = 0; i < np; i++)
		ft->mem[ft->nmem++].type = (struct sym_type *)pt[i];
	x->st->types = xrealloc(x->st->types, (size_t)(x->st->ntypes + 1) * sizeof(*x->st->types));
	x->st->types[x->st->ntypes++] = ft;
	*t = expr_new_type(x->st, SYM_T_POINTER, ft);
	return 1;
}
