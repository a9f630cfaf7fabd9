/* core/data/expr_arith.c: the binary operators of "expression" on two
 * evaluated operands: C's usual arithmetic conversions, pointer
 * arithmetic, comparisons and logical operators giving bool (LLDB's
 * evaluator is C++), and division by zero refused. */
#include <stdlib.h>
#include <string.h>

#include "core/data/expr.h"
#include "core/data/expr_int.h"

static int compare(const char *op, struct value *a, struct value *b, const struct sym_type *t)
{
	if (ex_is_float(t)) {
		double p = ex_d(a), q = ex_d(b);

		return !strcmp(op, "==") ? p == q : !strcmp(op, "!=") ? p != q :
		       !strcmp(op, "<") ? p < q : !strcmp(op, ">") ? p > q :
		       !strcmp(op, "<=") ? p <= q : p >= q;
	}
	if (ex_is_signed(t)) {
		int64_t p = (int64_t)ex_u(a), q = (int64_t)ex_u(b);

		return !strcmp(op, "==") ? p == q : !strcmp(op, "!=") ? p != q :
		       !strcmp(op, "<") ? p < q : !strcmp(op, ">") ? p > q :
		       !strcmp(op, "<=") ? p <= q : p >= q;
	}
	{
		uint64_t p = ex_u(a), q = ex_u(b);

		return !strcmp(op, "==") ? p == q : !strcmp(op, "!=") ? p != q :
		       !strcmp(op, "<") ? p < q : !strcmp(op, ">") ? p > q :
		       !strcmp(op, "<=") ? p <= q : p >= q;
	}
}

/* Pointer + integer, pointer - integer, pointer - pointer. */
static int ptr_arith(struct ex *x, const char *op, struct value *a, struct value *b)
{
	const struct sym_type *ta = sym_type_strip(a->type), *tb = sym_type_strip(b->type);
	const struct sym_type *elem;
	uint64_t pa, r;
	char na[256], nb[256];

	if (ex_is_fn_ptr(ta) && ex_is_fn_ptr(tb))	/* "add - main": lldb-16's words */
		return ex_fail(x, "arithmetic on pointers to function types '%s' and '%s'",
			       sym_type_name(ta->target, na, sizeof(na)),
			       sym_type_name(tb->target, nb, sizeof(nb)));
	if (ex_is_fn_ptr(ta) || ex_is_fn_ptr(tb))	/* "main + 1" */
		return ex_fail(x, "arithmetic on a pointer to the function type '%s'",
			       sym_type_name(sym_type_strip(ex_is_fn_ptr(ta) ? ta : tb)->target,
					     na, sizeof(na)));
	if (ex_is_ptr(ta) && ex_is_ptr(tb)) {
		elem = ta->target;
		if (op[0] != '-' || !elem || !elem->size)
			return ex_fail(x, "invalid operands to binary expression '%s'", op);
		r = (ex_u(a) - ex_u(b)) / elem->size;
		value_release(a);
		value_release(b);
		ex_set_u(a, &expr_t_long, r);
		return 0;
	}
	if (!ex_is_ptr(ta)) {	/* integer + pointer */
		struct value t = *a;

		*a = *b;
		*b = t;
		ta = tb;
		if (op[0] == '-')
			return ex_fail(x, "invalid operands to binary expression '%s'", op);
	}
	elem = ta->target;
	if (!elem || !elem->size || ex_is_float(b->type))
		return ex_fail(x, "invalid operands to binary expression '%s'", op);
	pa = ta->kind == SYM_T_ARRAY ? a->addr : ex_u(a);
	r = op[0] == '+' ? pa + ex_u(b) * elem->size : pa - ex_u(b) * elem->size;
	{
		const struct sym_type *pt = ta->kind == SYM_T_ARRAY ?
			expr_new_type(x->st, SYM_T_POINTER, elem) : a->type;

		value_release(a);
		value_release(b);
		ex_set_u(a, pt, r);
	}
	return 0;
}

int ex_arith(struct ex *x, const char *op, struct value *a, struct value *b)
{
	const struct sym_type *t, *ma = sym_type_strip(a->type), *mb = sym_type_strip(b->type);
	int rc = 0;

	if (ma && mb && ma->kind == SYM_T_MEMBER_PTR && mb->kind == SYM_T_MEMBER_PTR &&
	    (!strcmp(op, "==") || !strcmp(op, "!=")) && a->size == b->size && a->bytes && b->bytes) {
		/* pointers to members: equal when their bytes are */
		int eq = !memcmp(a->bytes, b->bytes, a->size);

		value_release(a);
		value_release(b);
		ex_set_u(a, &expr_t_bool, (uint64_t)(op[0] == '=' ? eq : !eq));
		return 0;
	}
	if (!ex_is_scalar(a->type) && !ex_is_ptr(a->type))
		rc = -1;
	if (!ex_is_scalar(b->type) && !ex_is_ptr(b->type))
		rc = -1;
	if (rc == 0 && (op[0] == '+' || (op[0] == '-' && !op[1])) &&
	    (ex_is_ptr(a->type) || ex_is_ptr(b->type))) {
		rc = ptr_arith(x, op, a, b);
		value_release(b);
		if (rc < 0)
			value_release(a);
		return rc;
	}
	if (rc < 0) {
		value_release(a);
		value_release(b);
		return ex_fail(x, "invalid operands to binary expression '%s'", op);
	}
	if (!strcmp(op, "&&") || !strcmp(op, "||")) {
		int p = ex_is_float(a->type) ? ex_d(a) != 0 : ex_u(a) != 0;
		int q = ex_is_float(b->type) ? ex_d(b) != 0 : ex_u(b) != 0;

		value_release(a);
		value_release(b);
		ex_set_u(a, &expr_t_bool, (uint64_t)(op[0] == '&' ? p && q : p || q));
		return 0;
	}
	t = ex_is_ptr(a->type) ? &expr_t_ulong : ex_common(a->type, b->type);
	if (strchr("=!<>", op[0]) && strcmp(op, "<<") && strcmp(op, ">>")) {
		int r = compare(op, a, b, t);

		value_release(a);
		value_release(b);
		ex_set_u(a, &expr_t_bool, (uint64_t)r);
		return 0;
	}
	if (!strcmp(op, "<<") || !strcmp(op, ">>"))
		t = ex_common(a->type, &expr_t_int);
	if (ex_is_float(t)) {
		double p = ex_d(a), q = ex_d(b), r;

		value_release(a);
		value_release(b);
		switch (op[0]) {
		case '+': r = p + q; break;
		case '-': r = p - q; break;
		case '*': r = p * q; break;
		case '/': r = p / q; break;
		default:
			return ex_fail(x, "invalid operands to binary expression '%s'", op);
		}
		ex_set_d(a, t, r);
		return 0;
	}
	{
		uint64_t p = ex_u(a), q = ex_u(b), r = 0;
		int sgn = ex_is_signed(t);
		unsigned bits = (unsigned)t->size * 8;

		value_release(a);
		value_release(b);
		if ((op[0] == '/' || op[0] == '%') && !x->skip) {
			uint64_t mask = bits < 64 ? (1ull << bits) - 1 : ~0ull;

			if (!(q & mask))
				return ex_fail(x, "division by zero%s", "");
		}
		switch (op[0]) {
		case '+': r = p + q; break;
		case '-': r = p - q; break;
		case '*': r = p * q; break;
		case '/':
		case '%': {
			/* operands as their type's width says; INT_MIN / -1 and
			 * INT_MIN % -1 wrap instead of trapping ptdb */
			uint64_t mask = bits < 64 ? (1ull << bits) - 1 : ~0ull;

			if (!(q & mask))
				break;
			if (sgn) {
				int64_t sp = bits < 64 ? (int64_t)(p << (64 - bits)) >> (64 - bits) : (int64_t)p;
				int64_t sq = bits < 64 ? (int64_t)(q << (64 - bits)) >> (64 - bits) : (int64_t)q;

				if (sq == -1)
					r = op[0] == '/' ? (uint64_t)0 - (uint64_t)sp : 0;
				else
					r = op[0] == '/' ? (uint64_t)(sp / sq) : (uint64_t)(sp % sq);
			} else
				r = op[0] == '/' ? (p & mask) / (q & mask) : (p & mask) % (q & mask);
			break;
		}
		case '&': r = p & q; break;
		case '|': r = p | q; break;
		case '^': r = p ^ q; break;
		case '<': r = q < 64 ? p << q : 0; break;
		case '>': r = q < 64 ? (sgn ? (uint64_t)((int64_t)p >> q) : p >> q) : 0; break;
		}
		ex_set_u(a, t, r);
	}
	return 0;
}

