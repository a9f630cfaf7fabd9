/* core/data/expr.c: C expressions over the program's DWARF, evaluated while
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

#include "core/data/expr.h"
#include "core/data/expr_int.h"
#include "target/target.h"

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
	if (x->p[0] == ':' && x->p[1] == ':' &&
	    (isalpha((unsigned char)x->p[2]) || x->p[2] == '_')) {	/* "::x": at the top */
		buf[k++] = ':';
		buf[k++] = ':';
		x->p += 2;
	}
	if (!isalpha((unsigned char)*x->p) && *x->p != '_')
		return 0;
	while (isalnum((unsigned char)*x->p) || *x->p == '_' ||
	       (x->p[0] == ':' && x->p[1] == ':' && isalpha((unsigned char)x->p[2]))) {
		if (*x->p == ':') {	/* a scope: "geo::Point" */
			if (k < n - 2) {
				buf[k++] = ':';
				buf[k++] = ':';
			}
			x->p += 2;
			continue;
		}
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

/* ---- memory and registers ---- */

int ex_load(struct ex *x, struct value *v, const struct sym_type *t, uint64_t addr)
{
	char a[32];

	ex_val(v, t);
	v->in_mem = 1;
	v->addr = addr;
	if (x->skip || !v->size)
		return 0;
	if (x->fc->no_data) {
		value_release(v);
		return ex_fail(x, "%s", x->fc->no_data);
	}
	if (x->fc->env->read(x->fc->d, addr, v->bytes, v->size, NULL) < 0) {
		snprintf(a, sizeof(a), "0x%" PRIx64, addr);
		value_release(v);
		return ex_fail(x, "memory read failed for %s", a);
	}
	return 0;
}

static const struct { const char *name; int dw; int size; } regs[] = {
	{ "rax", 0, 8 }, { "rdx", 1, 8 }, { "rcx", 2, 8 }, { "rbx", 3, 8 },
	{ "rsi", 4, 8 }, { "rdi", 5, 8 }, { "rbp", 6, 8 }, { "rsp", 7, 8 },
	{ "r8", 8, 8 }, { "r9", 9, 8 }, { "r10", 10, 8 }, { "r11", 11, 8 },
	{ "r12", 12, 8 }, { "r13", 13, 8 }, { "r14", 14, 8 }, { "r15", 15, 8 },
	{ "rip", 16, 8 }, { "pc", 16, 8 }, { "sp", 7, 8 }, { "fp", 6, 8 },
	{ "eax", 0, 4 }, { "edx", 1, 4 }, { "ecx", 2, 4 }, { "ebx", 3, 4 },
	{ "esi", 4, 4 }, { "edi", 5, 4 }, { "rflags", 49, 8 }, { "eflags", 49, 4 },
	{ "ax", 0, 2 }, { "dx", 1, 2 }, { "cx", 2, 2 }, { "bx", 3, 2 },
	{ "si", 4, 2 }, { "di", 5, 2 }, { "al", 0, 1 }, { "dl", 1, 1 },
	{ "cl", 2, 1 }, { "bl", 3, 1 },
	/* LLDB's aliases of the SysV argument registers */
	{ "arg1", 5, 8 }, { "arg2", 4, 8 }, { "arg3", 1, 8 }, { "arg4", 2, 8 },
	{ "arg5", 8, 8 }, { "arg6", 9, 8 },
};

static uint64_t *reg_slot(struct user_regs_struct *r, int dw)
{
	switch (dw) {
	case 0: return (uint64_t *)&r->rax;
	case 1: return (uint64_t *)&r->rdx;
	case 2: return (uint64_t *)&r->rcx;
	case 3: return (uint64_t *)&r->rbx;
	case 4: return (uint64_t *)&r->rsi;
	case 5: return (uint64_t *)&r->rdi;
	case 6: return (uint64_t *)&r->rbp;
	case 7: return (uint64_t *)&r->rsp;
	case 8: return (uint64_t *)&r->r8;
	case 9: return (uint64_t *)&r->r9;
	case 10: return (uint64_t *)&r->r10;
	case 11: return (uint64_t *)&r->r11;
	case 12: return (uint64_t *)&r->r12;
	case 13: return (uint64_t *)&r->r13;
	case 14: return (uint64_t *)&r->r14;
	case 15: return (uint64_t *)&r->r15;
	case 16: return (uint64_t *)&r->rip;
	case 49: return (uint64_t *)&r->eflags;
	default: return NULL;
	}
}

static int reg_value(struct ex *x, const char *name, struct value *v)
{
	struct frame_ctx *fc = x->fc;

	if (fc->no_data && strcmp(name, "pc") && strcmp(name, "rip"))
		return ex_fail(x, "%s", fc->no_data);
	if (fc->no_data && !fc->env->replaying(fc->d))
		return ex_fail(x, "%s", fc->no_data);
	if (fc->no_data)
		fc->regs.rip = fc->env->replay_pc(fc->d);
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		const struct sym_type *t;

		if (strcmp(regs[i].name, name))
			continue;
		if (!fc->no_data && !fc->all_regs &&
		    (regs[i].dw >= 17 || !(fc->known.valid >> regs[i].dw & 1)))
			return ex_fail(x, "register %s is not available in this frame", name);
		/* LLDB's expressions see every register as an integer */
		t = regs[i].size == 4 ? &expr_t_uint : regs[i].size == 2 ? &expr_t_ushort :
		    regs[i].size == 1 ? &expr_t_uchar : &expr_t_ulong;
		ex_set_u(v, t, *reg_slot(&fc->regs, regs[i].dw));
		v->in_reg = regs[i].dw;
		return 0;
	}
	return ex_fail(x, "use of undeclared identifier '$%s'", name);
}

int ex_dollar(struct ex *x, struct value *v)
{
	char name[64];

	if (isdigit((unsigned char)*x->p)) {
		unsigned long k = strtoul(x->p, (char **)&x->p, 10);
		struct expr_store *st = x->st;

		if (k < st->base || k >= st->base + (unsigned long)st->n) {
			snprintf(name, sizeof(name), "$%lu", k);
			return ex_fail(x, "use of undeclared identifier '%s'", name);
		}
		{
			const struct value *r = &st->v[k - st->base];

			ex_val(v, r->type);
			memcpy(v->bytes, r->bytes, r->size < v->size ? r->size : v->size);
			v->in_mem = r->in_mem;
			v->addr = r->addr;
		}
		return 0;
	}
	if (!ex_ident(x, name, sizeof(name)))
		return ex_fail(x, "expected a register or result name after '%s'", "$");
	return reg_value(x, name, v);
}

/* ---- writes ---- */

int ex_store_to(struct ex *x, struct value *lv, const struct value *rv)
{
	struct frame_ctx *fc = x->fc;
	struct ptdb_err err;

	if (x->skip)
		return 0;
	if (fc->no_data)
		return ex_fail(x, "%s", fc->no_data);
	if (lv->in_mem) {
		if (target_write_mem(fc->env->proc(fc->d), lv->addr, rv->bytes, lv->size, &err) < 0)
			return ex_fail(x, "%s", err.msg);
		fc->env->code_changed(fc->d);	/* the code may have changed */
		return 0;
	}
	if (lv->in_reg >= 0 && fc->all_regs) {
		struct user_regs_struct r;
		uint64_t *slot, u = 0;

		if (target_get_regs(fc->env->proc(fc->d), fc->tid, &r, &err) < 0)
			return ex_fail(x, "%s", err.msg);
		slot = reg_slot(&r, lv->in_reg);
		if (!slot)
			return ex_fail(x, "cannot assign to this register%s", "");
		memcpy(&u, rv->bytes, rv->size < 8 ? rv->size : 8);
		if (lv->size < 8)
			u = (*slot & (~0ull << (lv->size * 8))) | (u & ((1ull << (lv->size * 8)) - 1));
		*slot = u;
		if (target_set_regs(fc->env->proc(fc->d), fc->tid, &r, &err) < 0)
			return ex_fail(x, "%s", err.msg);
		fc->regs = r;
		return 0;
	}
	return ex_fail(x, "expression is not assignable%s", "");
}

/* ---- types in casts and sizeof ---- */

static const struct sym_type *c_type(const char *words)
{
	static const struct { const char *n; const struct sym_type *t; } map[] = {
		{ "int", &expr_t_int }, { "signed", &expr_t_int }, { "signed int", &expr_t_int },
		{ "unsigned", &expr_t_uint }, { "unsigned int", &expr_t_uint },
		{ "long", &expr_t_long }, { "long int", &expr_t_long }, { "signed long", &expr_t_long },
		{ "unsigned long", &expr_t_ulong }, { "unsigned long int", &expr_t_ulong },
		{ "long long", &expr_t_llong }, { "unsigned long long", &expr_t_ullong },
		{ "short", &expr_t_short }, { "unsigned short", &expr_t_ushort },
		{ "char", &expr_t_char }, { "signed char", &expr_t_schar },
		{ "unsigned char", &expr_t_uchar }, { "bool", &expr_t_bool }, { "_Bool", &expr_t_bool },
		{ "float", &expr_t_float }, { "double", &expr_t_double }, { "void", &expr_t_void },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(words, map[i].n))
			return map[i].t;
	return NULL;
}

static int is_type_word(const char *w)
{
	static const char *const kw[] = { "int", "signed", "unsigned", "long", "short", "char",
					  "bool", "_Bool", "float", "double", "void", "const",
					  "volatile", "struct", "union", "enum", "class" };

	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (!strcmp(w, kw[i]))
			return 1;
	return 0;
}

static const struct sym_type *dwarf_type(struct ex *x, const char *name)
{
	if (x->fc->mod && x->fc->mod->sym) {
		struct sym_type *t = sym_type_named(x->fc->mod->sym, name);

		if (t)
			return t;
	}
	return x->fc->env->type_named(x->fc->d, name);
}

/* Parses a type name at x->p if one is there: 1 with *t, 0 when the
 * text is not a type (x->p unmoved), -1 on error. */
int ex_type_name(struct ex *x, const struct sym_type **t)
{
	const char *save = x->p;
	char w[128], words[256] = "";
	int tagged = 0, any = 0;

	for (;;) {
		const char *before = x->p;

		if (!ex_ident(x, w, sizeof(w)))
			break;
		if (!strcmp(w, "const") || !strcmp(w, "volatile"))
			continue;
		if (!strcmp(w, "struct") || !strcmp(w, "union") || !strcmp(w, "enum") ||
		    !strcmp(w, "class")) {
			tagged = 1;
			continue;
		}
		if (any && (!is_type_word(w) || tagged)) {
			x->p = before;
			break;
		}
		if (!any && !tagged && !is_type_word(w)) {
			struct value probe;

			/* a name that is a variable is not a type */
			if (x->fc->env->var_named(x->fc, w, &probe) == 0) {
				value_release(&probe);
				x->p = save;
				return 0;
			}
			if (!dwarf_type(x, w)) {
				x->p = save;
				return 0;
			}
		}
		snprintf(words + strlen(words), sizeof(words) - strlen(words), "%s%s", any ? " " : "", w);
		any = 1;
		if (tagged || !is_type_word(w))
			break;
	}
	if (!any) {
		x->p = save;
		return 0;
	}
	*t = c_type(words);
	if (!*t)
		*t = dwarf_type(x, words);
	if (!*t)
		return ex_fail(x, "unknown type name '%s'", words);
	while (ex_eat(x, "*") || ex_eat(x, "const"))
		if (x->p[-1] == '*')
			*t = expr_new_type(x->st, SYM_T_POINTER, *t);
	if (ex_fn_declarator(x, t) < 0)	/* "int (*)(int)" */
		return -1;
	return 1;
}


int expr_register_known(const char *name)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(regs[i].name, name))
			return 1;
	return 0;
}

int expr_register_write(struct frame_ctx *fc, struct expr_store **st, const char *name,
			uint64_t v, struct ptdb_err *err)
{
	struct ex x;
	struct value lv, rv;
	int rc;

	memset(&x, 0, sizeof(x));
	x.fc = fc;
	x.err = err;
	x.st = store(st);
	if (!fc->all_regs)
		return ptdb_err_set(err, "registers of a caller frame cannot be written "
				    "(select frame 0)");
	if (reg_value(&x, name, &lv) < 0)
		return -1;
	if (lv.size < 8 && v >> (lv.size * 8)) {
		value_release(&lv);
		return ptdb_err_set(err, "value 0x%llx does not fit in the %zu-byte register %s",
				    (unsigned long long)v, lv.size, name);
	}
	ex_set_u(&rv, lv.type, v);
	rc = ex_store_to(&x, &lv, &rv);
	value_release(&lv);
	value_release(&rv);
	return rc;
}
