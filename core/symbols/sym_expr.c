/* core/symbols/sym_expr.c: the DWARF expression stack machine that finds a
 * variable's value: memory locations (DW_OP_fbreg over the frame base,
 * DW_OP_breg*, DW_OP_addr plus the load bias), registers (DW_OP_reg*),
 * computed values (DW_OP_stack_value, DW_OP_implicit_value) and pieces.
 * Operations arrive decoded (struct sym_op), so it needs no libdwarf. */
#include <string.h>

#include <dwarf.h>

#include "core/symbols/sym_var.h"

#define STACK_MAX 64

static const char *const dwreg_names[] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

const char *sym_dwreg_name(unsigned r)
{
	static const char *const xmm[] = {
		"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
	};

	if (r < sizeof(dwreg_names) / sizeof(dwreg_names[0]))
		return dwreg_names[r];
	if (r >= 17 && r < 33)
		return xmm[r - 17];
	return NULL;
}

struct machine {
	const struct sym_expr_env *env;
	uint64_t st[STACK_MAX];
	int sp;
	struct sym_expr_res *res;
	/* the current piece's location when it is not memory */
	int is_reg, is_value, is_implicit;
	unsigned reg;
	const uint8_t *implicit;
	uint64_t implicit_len;
};

static int push(struct machine *m, uint64_t v)
{
	if (m->sp == STACK_MAX)
		return SYM_EXPR_BAD;
	m->st[m->sp++] = v;
	return 0;
}

static int getreg(struct machine *m, unsigned r, uint64_t *v)
{
	if (m->env->reg(m->env->ctx, r, v) < 0) {
		m->res->bad_reg = r;
		return SYM_EXPR_NO_REG;
	}
	return 0;
}

static int binop(struct machine *m, uint8_t op)
{
	uint64_t b, a;

	if (m->sp < 2)
		return SYM_EXPR_BAD;
	b = m->st[--m->sp];
	a = m->st[m->sp - 1];
	switch (op) {
	case DW_OP_and: a &= b; break;
	case DW_OP_or: a |= b; break;
	case DW_OP_xor: a ^= b; break;
	case DW_OP_plus: a += b; break;
	case DW_OP_minus: a -= b; break;
	case DW_OP_mul: a *= b; break;
	case DW_OP_shl: a = b < 64 ? a << b : 0; break;
	case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
	case DW_OP_shra: a = (uint64_t)((int64_t)a >> (b < 63 ? b : 63)); break;
	case DW_OP_div:
		if (!b)
			return SYM_EXPR_BAD;
		/* INT64_MIN / -1 wraps instead of trapping ptdb */
		a = (int64_t)b == -1 ? (uint64_t)0 - a : (uint64_t)((int64_t)a / (int64_t)b);
		break;
	case DW_OP_mod:
		if (!b)
			return SYM_EXPR_BAD;
		a %= b;
		break;
	case DW_OP_eq: a = a == b; break;
	case DW_OP_ne: a = a != b; break;
	case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
	case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
	case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
	case DW_OP_ge: a = (int64_t)a >= (int64_t)b; break;
	default: return SYM_EXPR_BAD;
	}
	m->st[m->sp - 1] = a;
	return 0;
}

static int run(struct machine *m, const struct sym_op *ops, int nops);

/* The frame base: its own small expression (DW_OP_call_frame_cfa or a
 * register), evaluated to an address. */
static int frame_base(struct machine *m, uint64_t *fb)
{
	const struct sym_expr_env *e = m->env;
	struct machine sub;
	int rc;

	if (!e->nframe_base)
		return SYM_EXPR_BAD;
	memset(&sub, 0, sizeof(sub));
	sub.env = e;
	sub.res = m->res;
	rc = run(&sub, e->frame_base, e->nframe_base);
	if (rc < 0)
		return rc;
	if (sub.is_reg)
		return getreg(m, sub.reg, fb);
	if (!sub.sp)
		return SYM_EXPR_BAD;
	*fb = sub.st[sub.sp - 1];
	return 0;
}

/* The operations on the stack's top entries (the rest: binop). */
static int stack_op(struct machine *m, const struct sym_op *o)
{
	uint64_t v;
	uint8_t a = o->atom;

	switch (a) {
	case DW_OP_dup:
		if (!m->sp)
			return SYM_EXPR_BAD;
		return push(m, m->st[m->sp - 1]);
	case DW_OP_drop:
		if (!m->sp)
			return SYM_EXPR_BAD;
		m->sp--;
		return 0;
	case DW_OP_over:
		if (m->sp < 2)
			return SYM_EXPR_BAD;
		return push(m, m->st[m->sp - 2]);
	case DW_OP_swap:
		if (m->sp < 2)
			return SYM_EXPR_BAD;
		v = m->st[m->sp - 1];
		m->st[m->sp - 1] = m->st[m->sp - 2];
		m->st[m->sp - 2] = v;
		return 0;
	case DW_OP_deref:
	case DW_OP_deref_size: {
		size_t n = a == DW_OP_deref ? 8 : (size_t)o->op1;

		if (!m->sp || n > 8)
			return SYM_EXPR_BAD;
		v = 0;
		if (m->env->mem(m->env->ctx, m->st[m->sp - 1], &v, n) < 0)
			return SYM_EXPR_MEM;
		m->st[m->sp - 1] = v;
		return 0;
	}
	case DW_OP_plus_uconst:
		if (!m->sp)
			return SYM_EXPR_BAD;
		m->st[m->sp - 1] += o->op1;
		return 0;
	case DW_OP_neg:
		if (!m->sp)
			return SYM_EXPR_BAD;
		m->st[m->sp - 1] = -m->st[m->sp - 1];
		return 0;
	case DW_OP_not:
		if (!m->sp)
			return SYM_EXPR_BAD;
		m->st[m->sp - 1] = ~m->st[m->sp - 1];
		return 0;
	case DW_OP_abs:
		if (!m->sp)
			return SYM_EXPR_BAD;
		if ((int64_t)m->st[m->sp - 1] < 0)
			m->st[m->sp - 1] = -m->st[m->sp - 1];
		return 0;
	default:
		return binop(m, a);
	}
}

static int one(struct machine *m, const struct sym_op *o)
{
	uint64_t v;
	int rc;
	uint8_t a = o->atom;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return push(m, (uint64_t)(a - DW_OP_lit0));
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
		m->is_reg = 1;
		m->reg = a - DW_OP_reg0;
		return 0;
	}
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
		if ((rc = getreg(m, a - DW_OP_breg0, &v)) < 0)
			return rc;
		return push(m, v + o->op1);
	}
	switch (a) {
	case DW_OP_addr:
		return push(m, o->op1 + m->env->bias);
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
	case DW_OP_const8u: case DW_OP_constu:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
	case DW_OP_const8s: case DW_OP_consts:
		return push(m, o->op1);
	case DW_OP_regx:
		m->is_reg = 1;
		m->reg = (unsigned)o->op1;
		return 0;
	case DW_OP_bregx:
		if ((rc = getreg(m, (unsigned)o->op1, &v)) < 0)
			return rc;
		return push(m, v + o->op2);
	case DW_OP_fbreg:
		if ((rc = frame_base(m, &v)) < 0)
			return rc;
		return push(m, v + o->op1);
	case DW_OP_call_frame_cfa:
		if (!m->env->have_cfa)
			return SYM_EXPR_BAD;
		return push(m, m->env->cfa);
	case DW_OP_stack_value:
		m->is_value = 1;
		return 0;
	case DW_OP_implicit_value:
		m->is_implicit = 1;
		m->implicit = o->block;
		m->implicit_len = o->op1;
		return o->block ? 0 : SYM_EXPR_BAD;
	case DW_OP_form_tls_address:
	case DW_OP_GNU_push_tls_address:
		if (!m->sp || !m->env->have_tls)
			return SYM_EXPR_BAD;
		m->st[m->sp - 1] += m->env->tls_base;
		return 0;
	case DW_OP_nop:
		return 0;
	default:
		return stack_op(m, o);
	}
}

/* Runs ops up to the end or the next DW_OP_piece: returns the index after
 * the last one run, or a negative SYM_EXPR_*. */
static int run_until_piece(struct machine *m, const struct sym_op *ops, int nops,
			   int from)
{
	int i;

	for (i = from; i < nops && ops[i].atom != DW_OP_piece; i++) {
		int rc;

		/* a value computed from a register at the call's entry:
		 * only the caller's call site knows it */
		if (ops[i].atom == DW_OP_entry_value || ops[i].atom == DW_OP_GNU_entry_value) {
			const uint8_t *b = ops[i].block;
			uint64_t v;

			if (!b || ops[i].op1 != 1 || b[0] < DW_OP_reg0 || b[0] > DW_OP_reg31 ||
			    !m->env->entry_value ||
			    m->env->entry_value(m->env->ctx, (unsigned)(b[0] - DW_OP_reg0), &v) < 0)
				return SYM_EXPR_EMPTY;
			if ((rc = push(m, v)) < 0)
				return rc;
			continue;
		}
		if ((rc = one(m, &ops[i])) < 0)
			return rc;
	}
	return i;
}

static int run(struct machine *m, const struct sym_op *ops, int nops)
{
	int rc = run_until_piece(m, ops, nops, 0);

	return rc < 0 ? rc : 0;
}

/* Places the current piece's bytes (n of them) at out. */
static int piece_bytes(struct machine *m, uint8_t *out, size_t n, int whole)
{
	uint64_t v;
	int rc;

	if (m->is_implicit) {
		memcpy(out, m->implicit, m->implicit_len < n ? m->implicit_len : n);
		return 0;
	}
	if (m->is_reg) {
		if ((rc = getreg(m, m->reg, &v)) < 0)
			return rc;
		memcpy(out, &v, n < 8 ? n : 8);
		if (whole)
			m->res->in_reg = (int)m->reg;
		return 0;
	}
	if (!m->sp)
		return SYM_EXPR_EMPTY;
	v = m->st[m->sp - 1];
	if (m->is_value) {
		memcpy(out, &v, n < 8 ? n : 8);
		return 0;
	}
	if (whole) {
		m->res->in_mem = 1;
		m->res->addr = v;
	}
	return m->env->mem(m->env->ctx, v, out, n) < 0 ? SYM_EXPR_MEM : 0;
}

int sym_expr_eval(const struct sym_op *ops, int nops,
		  const struct sym_expr_env *env, void *buf, size_t size,
		  struct sym_expr_res *res)
{
	struct machine m;
	uint8_t *out = buf;
	size_t done = 0;
	int i = 0, rc;

	memset(res, 0, sizeof(*res));
	res->in_reg = -1;
	memset(buf, 0, size);
	if (!nops)
		return SYM_EXPR_EMPTY;
	for (;;) {
		memset(&m, 0, sizeof(m));
		m.env = env;
		m.res = res;
		rc = run_until_piece(&m, ops, nops, i);
		if (rc < 0)
			return rc;
		if (rc == nops && i == 0)	/* no pieces: the whole value */
			return piece_bytes(&m, out, size, 1);
		if (rc < nops) {	/* DW_OP_piece N */
			int at = rc;
			size_t n = (size_t)ops[at].op1;

			if (done + n > size)
				n = size > done ? size - done : 0;
			/* an empty piece is a part optimized out */
			if (at == i)
				return SYM_EXPR_EMPTY;
			if ((rc = piece_bytes(&m, out + done, n, 0)) < 0)
				return rc;
			done += n;
			i = at + 1;
			if (i >= nops)
				return 0;
			continue;
		}
		return 0;
	}
}
