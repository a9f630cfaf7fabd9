/* core/data/expr_call.c: calls of the program's functions in an
 * expression ("p add(2, 3)", "p v.size()"): the function found by name
 * (the frame's module first, the dynamic loader's private copies last),
 * an IFUNC resolved by calling its resolver, the result typed by the
 * function's DWARF.  The function is found and called by the
 * session, through the frame's value_env. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/expr.h"
#include "core/data/expr_int.h"
#include "core/symbols/sym.h"

/* "f(1, 2)": the program's function called in the stopped thread
 * (dbg_call); integer and pointer arguments and results.  A member
 * function ("v.size()", name "Class::size") gets this = self first. */
int ex_call(struct ex *x, const char *name, const uint64_t *self, struct value *v)
{
	uint64_t args[6], fn = 0, rax = 0;
	int nargs = 0;

	if (self)
		args[nargs++] = *self;
	struct dbg_module *m;
	struct sym_func_scope sc;
	struct sym_var *vars = NULL;
	const struct sym_type *ret = &expr_t_ulong, *rs;	/* no DWARF: rax whole */
	struct ptdb_err err = { 0 };
	int nv;

	ex_eat(x, "(");
	while (!ex_eat(x, ")")) {
		struct value a;

		if (nargs && !ex_eat(x, ","))
			return ex_fail(x, "expected ')'%s", "");
		if (ex_assign(x, &a) < 0)
			return -1;
		if (!ex_is_scalar(a.type) || ex_is_float(a.type) || nargs == 6) {
			value_release(&a);
			return ex_fail(x, "ptdb calls functions with up to 6 integer or pointer "
				       "arguments only ('%s')", name);
		}
		args[nargs++] = ex_u(&a);
		value_release(&a);
	}
	if (x->skip) {
		ex_set_u(v, &expr_t_int, 0);
		return 0;
	}
	if (x->fc->no_data)
		return ex_fail(x, "%s", x->fc->no_data);
	if (!(m = x->fc->env->function_named(x->fc->d, x->fc->mod, name, &fn)))
		return self ? ex_fail(x, "the program has no out-of-line copy of '%.300s' to call "
				      "(inlined away, or never used)", name)
			    : ex_fail(x, "use of undeclared identifier '%s'", name);
	if (sym_addr_is_ifunc(m->sym, fn)) {	/* ask the resolver for the function */
		if (x->fc->env->call(x->fc->d, x->fc->tid, fn, NULL, 0, &fn, &err) < 0)
			return ex_fail(x, "%s", err.msg);
	}
	memset(&sc, 0, sizeof(sc));
	nv = fn >= m->start && fn < m->end ? sym_scope_vars(m->sym, fn, 0, &sc, &vars, NULL) : -1;
	if (nv >= 0) {
		if (sc.func)
			ret = sc.ret;
		sym_vars_free(vars, nv);
		free(sc.frame_base);
	}
	rs = sym_type_strip(ret);
	if (rs && rs->kind == SYM_T_VOID)	/* unspecified (assembly): rax whole */
		ret = rs = &expr_t_ulong;
	if (ret && (!rs || (rs->kind != SYM_T_BASE && rs->kind != SYM_T_POINTER &&
			    rs->kind != SYM_T_ENUM) || (rs->kind == SYM_T_BASE && rs->enc == DW_ATE_float)))
		return ex_fail(x, "ptdb calls functions returning an integer or a pointer only ('%s')",
			       name);
	if (x->fc->env->call(x->fc->d, x->fc->tid, fn, args, nargs, &rax, &err) < 0)
		return ex_fail(x, "%s", err.msg);
	ex_set_u(v, ret ? ret : &expr_t_void, rax);
	return 0;
}
