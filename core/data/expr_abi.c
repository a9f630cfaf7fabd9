/* core/data/expr_abi.c: the SysV x86-64 classification of a called
 * function's arguments and result (the psABI's 3.2.3): scalars and
 * structs of up to 16 bytes go, eightbyte by eightbyte, in the INTEGER
 * registers (rdi, rsi, rdx, rcx, r8, r9; results rax, rdx) or the SSE
 * ones (xmm0-7; results xmm0, xmm1) as their fields say; bigger or
 * unaligned structs, and those that do not fit in the registers left, are
 * copied on the stack; a result in memory is made where the caller says
 * (rdi).  C++ classes with a destructor or copy constructor go by
 * invisible reference (Itanium C++ ABI): returned so, never passed here.
 * What it builds is a struct dbg_call_args for the session's call. */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/expr.h"
#include "core/data/expr_int.h"
#include "core/data/value.h"
#include "base/err.h"

enum { CL_NONE, CL_INT, CL_SSE, CL_MEM };

static int merge(int a, int b)
{
	if (a == b || b == CL_NONE)
		return a;
	if (a == CL_NONE)
		return b;
	if (a == CL_MEM || b == CL_MEM)
		return CL_MEM;
	return CL_INT;	/* INTEGER and SSE */
}

/* n bytes of class c at off */
static void put(int cls[2], uint64_t off, uint64_t n, int c)
{
	if (n && off % (n < 8 ? n : 8)) {	/* unaligned (packed) */
		cls[0] = cls[1] = CL_MEM;
		return;
	}
	for (uint64_t o = off / 8; o * 8 < off + n; o++) {
		if (o > 1) {
			cls[0] = cls[1] = CL_MEM;
			return;
		}
		cls[o] = merge(cls[o], c);
	}
}

/* The eightbytes of t at off: 0, -1 for an x87 value (long double),
 * -2 for a C++ class passed by invisible reference. */
static int walk(const struct sym_type *t, uint64_t off, int cls[2], int depth)
{
	t = sym_type_strip(t);
	if (!t || depth > 32)
		return -1;
	switch (t->kind) {
	case SYM_T_BASE:
		if (t->enc == DW_ATE_float || t->enc == DW_ATE_complex_float) {
			uint64_t part = t->enc == DW_ATE_complex_float ? t->size / 2 : t->size;

			if (!part || part > 8)
				return -1;
			for (uint64_t o = 0; o < t->size; o += part)
				put(cls, off + o, part, CL_SSE);
		} else if (t->size > 8)		/* __int128 */
			for (uint64_t o = 0; o < t->size; o += 8)
				put(cls, off + o, 8, CL_INT);
		else
			put(cls, off, t->size, CL_INT);
		return 0;
	case SYM_T_POINTER: case SYM_T_REF: case SYM_T_RVREF: case SYM_T_ENUM:
		put(cls, off, t->size ? t->size : 8, CL_INT);
		return 0;
	case SYM_T_STRUCT: case SYM_T_UNION: case SYM_T_CLASS:
		if (t->by_ref)
			return -2;
		for (int i = 0; i < t->nmem; i++) {
			const struct sym_member *m = &t->mem[i];
			int r;

			if (m->bit_size) {
				put(cls, off + m->off - m->off % 8, 8, CL_INT);
				continue;
			}
			if ((r = walk(m->type, off + m->off, cls, depth + 1)) < 0)
				return r;
		}
		return 0;
	case SYM_T_ARRAY: {
		uint64_t es = t->target ? sym_type_strip(t->target)->size : 0;

		for (uint64_t o = 0; es && o < t->size; o += es) {
			int r = walk(t->target, off + o, cls, depth + 1);

			if (r < 0)
				return r;
		}
		return 0;
	}
	default:
		return -1;
	}
}

/* The classes of t's eightbytes: their count (1 or 2), 0 when t goes in
 * memory, -1 for an x87 value, -2 for a class passed by reference. */
static int classify(const struct sym_type *t, int cls[2])
{
	const struct sym_type *s = sym_type_strip(t);
	int r;

	cls[0] = cls[1] = CL_NONE;
	if (!s || !s->size)
		return -1;
	r = walk(s, 0, cls, 0);
	if (r < 0)
		return r;
	if (s->size > 16 || cls[0] == CL_MEM || cls[1] == CL_MEM)
		return 0;
	for (int i = 0; i < 2; i++)
		if (cls[i] == CL_NONE)
			cls[i] = CL_SSE;	/* padding only */
	return s->size > 8 ? 2 : 1;
}

static void push_stack(struct ex_abi *a, const uint8_t *p, size_t n)
{
	size_t r = (n + 7) & ~(size_t)7;

	if (a->nstack + r > a->cap) {
		a->cap = (a->nstack + r) * 2;
		a->stack = xrealloc(a->stack, a->cap);
	}
	memset(a->stack + a->nstack, 0, r);
	memcpy(a->stack + a->nstack, p, n);
	a->nstack += r;
	a->c.stack = a->stack;
	a->c.nstack = a->nstack;
}

int ex_abi_arg(struct ex *x, struct ex_abi *a, const struct value *v, const char *fname)
{
	int cls[2], n = classify(v->type, cls), ni = 0, ns = 0;
	char tn[256];

	if (n == -1)
		return ex_fail(x, "ptdb cannot pass a '%s' argument to '%s' (x87 class)",
			       sym_type_name(v->type, tn, sizeof(tn)), fname);
	if (n == -2)
		return ex_fail(x, "ptdb cannot pass a '%s' by value to '%s' (a class with a "
			       "destructor or copy constructor)",
			       sym_type_name(v->type, tn, sizeof(tn)), fname);
	for (int i = 0; i < n; i++)
		cls[i] == CL_INT ? ni++ : ns++;
	if (n > 0 && a->c.ngpr + ni <= 6 && a->c.nsse + ns <= 8) {
		for (int i = 0; i < n; i++) {
			uint64_t w = 0;
			size_t k = v->size - (size_t)i * 8;

			memcpy(&w, v->bytes + i * 8, k < 8 ? k : 8);
			if (cls[i] == CL_INT)
				a->c.gpr[a->c.ngpr++] = w;
			else
				a->c.sse[a->c.nsse++] = w;
		}
		return 0;
	}
	push_stack(a, v->bytes, v->size);
	return 0;
}

int ex_abi_ret(struct ex *x, struct ex_abi *a, const struct sym_type *t, const char *fname)
{
	char tn[256];

	a->nret = classify(t, a->ret_cls);
	if (a->nret == -1)
		return ex_fail(x, "ptdb cannot take a '%s' result from '%s' (x87 class)",
			       sym_type_name(t, tn, sizeof(tn)), fname);
	if (a->nret <= 0) {	/* in memory, or by invisible reference */
		a->c.ret_mem = sym_type_strip(t)->size;
		a->c.ret_buf = xcalloc(a->c.ret_mem, 1);
		a->c.ngpr = 1;	/* rdi: where */
	}
	return 0;
}

void ex_abi_result(struct ex_abi *a, const struct sym_type *t, struct value *v)
{
	uint64_t ir[2] = { a->c.rax, a->c.rdx }, sr[2] = { a->c.xmm0, a->c.xmm1 };
	int ni = 0, ns = 0;

	ex_val(v, t);
	if (a->c.ret_mem) {
		memcpy(v->bytes, a->c.ret_buf, v->size < a->c.ret_mem ? v->size : a->c.ret_mem);
		return;
	}
	for (int i = 0; i < a->nret; i++) {
		size_t k = v->size - (size_t)i * 8;
		uint64_t w = a->ret_cls[i] == CL_INT ? ir[ni++] : sr[ns++];

		memcpy(v->bytes + i * 8, &w, k < 8 ? k : 8);
	}
}

void ex_abi_free(struct ex_abi *a)
{
	free(a->stack);
	free(a->c.ret_buf);
	memset(a, 0, sizeof(*a));
}
