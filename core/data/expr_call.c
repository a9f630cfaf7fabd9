/* core/data/expr_call.c: calls of the program's functions in an
 * expression ("p add(2, 3)", "p v.size()", "p hypot(3.0, 4.0)",
 * "p norm(make_point(6, 8))"): the function found by name (the frame's
 * module first, the dynamic loader's private copies last), an IFUNC
 * resolved by calling its resolver, the arguments converted to the
 * parameters' DWARF types (without them: C's default promotions), placed
 * and the result taken as the SysV ABI classifies them (expr_abi.c), the
 * result typed by the function's DWARF (without it: by a cast around the
 * call, as LLDB asks).  The function is found and called by
 * the session, through the frame's value_env. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/expr.h"
#include "core/data/expr_int.h"
#include "core/symbols/sym.h"

#define CALL_MAX_ARGS 32

/* The callee's DWARF: its result type (*ret untouched without DWARF) and
 * its parameters' types (this first), their count, -1 without DWARF. */
static int callee_types(struct dbg_module *m, uint64_t fn, const struct sym_type **ret,
			const struct sym_type **pt, int max, int *has_this)
{
	struct sym_func_scope sc;
	struct sym_var *vars = NULL;
	int nv, np = -1;

	memset(&sc, 0, sizeof(sc));
	nv = fn >= m->start && fn < m->end ? sym_scope_vars(m->sym, fn, 0, &sc, &vars, NULL) : -1;
	if (nv < 0)
		return -1;
	if (sc.func) {
		*ret = sc.ret;
		np = 0;
		for (int i = 0; i < nv && np < max; i++)
			if (vars[i].is_param) {
				if (!np && has_this)
					*has_this = vars[i].artificial;
				pt[np++] = vars[i].type;
			}
	}
	sym_vars_free(vars, nv);
	free(sc.frame_base);
	return np;
}

static const char *ordinal(int n)
{
	if (n % 100 / 10 == 1)
		return "th";
	return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* The argument a made a value of the parameter's type pt (NULL: none
 * known, C's default promotions): an array decays, a reference takes the
 * object's address, a struct must be one of the same type. */
static int convert_arg(struct ex *x, struct value *a, const struct sym_type *pt, int i,
		       const char *fname)
{
	const struct sym_type *s = sym_type_strip(pt), *at = sym_type_strip(a->type);
	char tn[256], an[256];

	if (!at)
		return ex_fail(x, "argument %d of '%s' has no value", i + 1, fname);
	if (!s) {	/* no prototype: the default promotions */
		if (at->kind == SYM_T_ARRAY)
			s = pt = expr_new_type(x->st, SYM_T_POINTER, at->target);
		else if (ex_is_float(at) && at->size == 4)
			s = pt = &expr_t_double;
		else if ((at->kind == SYM_T_BASE || at->kind == SYM_T_ENUM) && at->size < 4)
			s = pt = &expr_t_int;
		else
			return 0;
	}
	if (s->kind == SYM_T_REF || s->kind == SYM_T_RVREF) {
		if (!a->in_mem)
			return ex_fail(x, "argument %d of '%s' is a reference: its value must be in "
				       "memory", i + 1, fname);
		uint64_t addr = a->addr;

		value_release(a);
		ex_set_u(a, pt, addr);
		return 0;
	}
	if (s->kind == SYM_T_POINTER && at->kind == SYM_T_ARRAY && a->in_mem) {
		uint64_t addr = a->addr;

		value_release(a);
		ex_set_u(a, pt, addr);
		return 0;
	}
	if (ex_is_scalar(s) && ex_is_scalar(at)) {
		ex_convert(a, pt);
		return 0;
	}
	if ((s->kind == SYM_T_STRUCT || s->kind == SYM_T_UNION || s->kind == SYM_T_CLASS) &&
	    at->kind == s->kind && at->size == s->size &&
	    (!at->name || !s->name || !strcmp(at->name, s->name))) {
		a->type = pt;
		return 0;
	}
	return ex_fail(x, "no matching function for call to '%s': no known conversion from '%s' "
		       "to '%s' for %d%s argument", fname, sym_type_name(a->type, an, sizeof(an)),
		       sym_type_name(pt, tn, sizeof(tn)), i + 1, ordinal(i + 1));
}

/* The return type the class of a member function call (x->self_type)
 * declares for f, name "A::B<C::D>::f" (its typedef: "size_type"), else
 * unsigned long (rax). */
static const struct sym_type *method_ret(struct ex *x, const char *name)
{
	const char *sep = NULL;
	struct sym_type *ret;
	int depth = 0;

	for (const char *c = name; *c; c++)	/* the last "::" outside <...> */
		if (*c == '<')
			depth++;
		else if (*c == '>')
			depth--;
		else if (!depth && c[0] == ':' && c[1] == ':')
			sep = c;
	if (!sep || !x->self_type ||
	    sym_type_method_ret(x->self_type, sep + 2, sym_type_is_const(x->self_type), &ret) < 0)
		return &expr_t_ulong;
	return ret ? ret : &expr_t_void;
}

/* The call with its arguments evaluated: fn's types, the ABI's places,
 * the call, the result. */
static int call_with(struct ex *x, const char *name, struct dbg_module *m, uint64_t fn,
		     const uint64_t *self, const struct sym_type *cast, struct value *args,
		     int nargs, struct value *v)
{
	const struct sym_type *pt[CALL_MAX_ARGS + 1], *ret = NULL, *rs;
	int np, k = self ? 1 : 0;
	struct ex_abi a;
	struct ptdb_err err = { 0 };

	if (m)
		np = callee_types(m, fn, &ret, pt, CALL_MAX_ARGS + 1, NULL);
	else {	/* through a function pointer: typed by the pointer's type */
		const struct sym_type *ft = sym_type_strip(sym_type_strip(cast)->target);

		ret = ft->target ? ft->target : &expr_t_void;
		np = ft->nmem < CALL_MAX_ARGS ? ft->nmem : CALL_MAX_ARGS;
		for (int i = 0; i < np; i++)
			pt[i] = ft->mem[i].type;
		cast = NULL;
		if (sym_type_strip(ret)->kind == SYM_T_VOID)
			ret = NULL;
	}
	memset(&a, 0, sizeof(a));
	rs = sym_type_strip(ret);
	if (m && (np < 0 || (rs && rs->kind == SYM_T_VOID))) {	/* no DWARF, or assembly's */
		if (!cast && !self)
			return ex_fail(x, "'%s' has unknown return type; cast the call to its "
				       "declared return type", name);
		/* a member function of a library without DWARF ("s.size()" in
		 * libstdc++): typed by the class's declaration, as LLDB */
		ret = cast ? cast : self ? method_ret(x, name) : &expr_t_ulong;
	}
	if (np >= 0 && nargs < np - k)	/* more: maybe variadic (DWARF may not say) */
		return ex_fail(x, "no matching function for call to '%s': requires %d argument%s, "
			       "but %d %s provided", name, np - k, np - k == 1 ? "" : "s", nargs,
			       nargs == 1 ? "was" : "were");
	rs = sym_type_strip(ret);
	if (rs && rs->kind == SYM_T_VOID)	/* "(void)f()" */
		ret = NULL;
	if (ret && ex_abi_ret(x, &a, ret, name) < 0)
		return -1;
	if (self)
		a.c.gpr[a.c.ngpr++] = *self;
	for (int i = 0; i < nargs; i++)
		if (convert_arg(x, &args[i], np > k + i ? pt[k + i] : NULL, i, name) < 0 ||
		    ex_abi_arg(x, &a, &args[i], name) < 0) {
			ex_abi_free(&a);
			return -1;
		}
	if (x->fc->env->call(x->fc->d, x->fc->tid, fn, &a.c, &err) < 0) {
		ex_abi_free(&a);
		return ex_fail(x, "%s", err.msg);
	}
	if (ret)
		ex_abi_result(&a, ret, v);
	else
		ex_val(v, &expr_t_void);
	ex_abi_free(&a);
	rs = sym_type_strip(ret);
	if (rs && (rs->kind == SYM_T_REF || rs->kind == SYM_T_RVREF) && rs->target) {
		uint64_t at = ex_u(v);	/* a reference's result: the object, as LLDB */

		value_release(v);
		return ex_load(x, v, rs->target, at);
	}
	return 0;
}

/* An unqualified "f(...)" in a member function of class C (the frame has
 * a this): C::f or a base's f when that is a member function (its first
 * parameter is an artificial this), called on this (adjusted to the
 * base), as C++ looks names up and LLDB calls them ("p name()" in
 * TestSuite::Run).  *full the qualified name; 0, or -1 when f is no
 * member function of this's class. */
static int implicit_this(struct ex *x, const struct sym_type *cls, uint64_t self, const char *name,
			 int depth, char *full, size_t n, uint64_t *fn, struct dbg_module **m,
			 uint64_t *this_out, const struct sym_type **self_type)
{
	const struct sym_type *pt[1], *ret = NULL;
	int has_this = 0;

	cls = sym_type_strip(cls);
	if (!cls || depth > 8 || (cls->kind != SYM_T_CLASS && cls->kind != SYM_T_STRUCT) ||
	    !cls->name)
		return -1;
	snprintf(full, n, "%s::%s", cls->name, name);
	for (char *q; (q = strstr(full, "> >"));)	/* the demangler's spelling */
		memmove(q + 1, q + 2, strlen(q + 2) + 1);
	if ((*m = x->fc->env->function_named(x->fc->d, x->fc->mod, full, fn)) &&
	    callee_types(*m, *fn, &ret, pt, 1, &has_this) > 0 && has_this) {
		*this_out = self;
		*self_type = cls;
		return 0;
	}
	for (int i = 0; i < cls->nmem; i++)
		if (cls->mem[i].is_base &&
		    implicit_this(x, cls->mem[i].type, self + cls->mem[i].off, name, depth + 1, full, n,
				  fn, m, this_out, self_type) == 0)
			return 0;
	return -1;
}

/* The arguments "(a, b)" at x->p: their count, -1 on error (those read
 * released). */
static int call_args(struct ex *x, const char *name, struct value *args)
{
	int nargs = 0;

	ex_eat(x, "(");
	while (!ex_eat(x, ")")) {
		if (nargs && !ex_eat(x, ",")) {
			ex_fail(x, "expected ')'%s", "");
			goto fail;
		}
		if (nargs == CALL_MAX_ARGS) {
			ex_fail(x, "ptdb calls functions with up to %d arguments ('%s')",
				CALL_MAX_ARGS, name);
			goto fail;
		}
		if (ex_assign(x, &args[nargs]) < 0)
			goto fail;
		nargs++;
	}
	return nargs;
fail:
	for (int i = 0; i < nargs; i++)
		value_release(&args[i]);
	return -1;
}

int ex_call_pointer(struct ex *x, struct value *v)
{
	struct value args[CALL_MAX_ARGS], fp = *v;
	const struct sym_type *ft = sym_type_strip(sym_type_strip(fp.type)->target);
	int nargs = call_args(x, "(function pointer)", args), rc = -1;

	memset(v, 0, sizeof(*v));
	if (nargs < 0)
		goto out;
	if (x->skip) {
		ex_set_u(v, ft->target ? ft->target : &expr_t_void, 0);
		rc = 0;
	} else if (x->fc->no_data)
		ex_fail(x, "%s", x->fc->no_data);
	else if (!ex_u(&fp))
		ex_fail(x, "the function pointer is null%s", "");
	else
		rc = call_with(x, "(function pointer)", NULL, ex_u(&fp), NULL, fp.type, args, nargs,
			       v);
out:
	for (int i = 0; i < nargs; i++)
		value_release(&args[i]);
	value_release(&fp);
	return rc;
}

/* "f(1, 2)": the program's function called in the stopped thread
 * (dbg_call).  A member function ("v.size()", name "Class::size") gets
 * this = self first. */
int ex_call(struct ex *x, const char *name, const uint64_t *self, const struct sym_type *cast,
	    struct value *v)
{
	struct value args[CALL_MAX_ARGS];
	int nargs = 0, rc = -1;
	uint64_t fn = 0, this_val = 0;
	struct dbg_module *m = NULL;
	struct ptdb_err err = { 0 };
	const struct sym_type *self_type = x->self_type;	/* an argument's call resets it */
	char full[768];

	if ((nargs = call_args(x, name, args)) < 0)
		return -1;
	if (x->skip) {
		ex_set_u(v, cast ? cast : &expr_t_int, 0);
		rc = 0;
		goto out;
	}
	if (x->fc->no_data) {
		ex_fail(x, "%s", x->fc->no_data);
		goto out;
	}
	if (!self && !strstr(name, "::")) {	/* a member function of this's class? */
		struct value tv;
		const struct sym_type *tt;

		memset(&tv, 0, sizeof(tv));
		if (x->fc->env->var_named(x->fc, "this", &tv) == 0) {
			tt = sym_type_strip(tv.type);
			if (tt && tt->kind == SYM_T_POINTER &&
			    implicit_this(x, tt->target, ex_u(&tv), name, 0, full, sizeof(full), &fn,
					  &m, &this_val, &self_type) == 0) {
				self = &this_val;
				name = full;
			}
			value_release(&tv);
		}
	}
	if (self == &this_val) {
		/* found above */
	} else if (!(m = x->fc->env->function_named(x->fc->d, x->fc->mod, name, &fn))) {
		if (self)
			ex_fail(x, "the program has no out-of-line copy of '%.300s' to call "
				"(inlined away, or never used)", name);
		else
			ex_fail(x, "use of undeclared identifier '%s'", name);
		goto out;
	}
	if (sym_addr_is_ifunc(m->sym, fn)) {	/* ask the resolver for the function */
		struct dbg_call_args c;

		memset(&c, 0, sizeof(c));
		if (x->fc->env->call(x->fc->d, x->fc->tid, fn, &c, &err) < 0) {
			ex_fail(x, "%s", err.msg);
			goto out;
		}
		fn = c.rax;
	}
	x->self_type = self_type;
	rc = call_with(x, name, m, fn, self, cast, args, nargs, v);
out:
	for (int i = 0; i < nargs; i++)
		value_release(&args[i]);
	return rc;
}
