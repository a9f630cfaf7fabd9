/* core/symbols/sym_unwind.c: one-frame unwinding by the CFI (core/symbols/sym_cfi.c parses
 * the tables): the CFA program of the FDE covering pc run up to pc, the
 * DWARF expressions its rules use evaluated, the caller's registers
 * recovered; the rbp chain when no FDE covers pc. */
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_cfi.h"

/* ---- CFA program ---- */

enum { UW_SAME, UW_UNDEF, UW_OFF, UW_VALOFF, UW_REG, UW_EXPR, UW_VALEXPR };
#define UW_NREG 17	/* rax..r15 + return address */
#define UW_RBP 6
#define UW_RSP 7
#define UW_RIP 16
#define UW_STATES 16

struct uw_rule {
	uint8_t kind;
	int64_t off;
	uint64_t reg;
	const uint8_t *expr;
	size_t elen;
};

struct uw_row {
	struct uw_rule r[UW_NREG];
	int cfa_expr;		/* CFA is an expression (else reg + off) */
	uint64_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *expr;
	size_t elen;
};

struct uw_regs {		/* what is known in the frame being unwound */
	uint64_t pc, rsp, rbp;
	sym_read_fn rd;
	void *ctx;
	const struct sym_regs *all;	/* the other registers, or NULL */
};

static int uw_reg_val(const struct uw_regs *g, uint64_t reg, uint64_t *v)
{
	switch (reg) {
	case UW_RBP: *v = g->rbp; return 0;
	case UW_RSP: *v = g->rsp; return 0;
	case UW_RIP: *v = g->pc; return 0;
	default:
		if (g->all && reg < 16 && (g->all->valid >> reg & 1)) {
			*v = g->all->r[reg];
			return 0;
		}
		return -1;
	}
}

/* The callee-saved registers of the caller (rbx, r12-r15) by the row's
 * rules; a register without a rule kept its value. */
static void uw_saved(const struct uw_regs *g, const struct uw_row *row, uint64_t cfa,
		     struct sym_regs *out);

/* A CFA-defining instruction op (its operands read from r): row's CFA
 * rule set, 1; 0 when op is not one (r->bad when malformed). */
static int uw_cfa_op(struct uw_rd *r, const struct sym_cie *cie, uint8_t op,
		     struct uw_row *row)
{
	switch (op) {
	case 0x0c:	/* def_cfa */
	case 0x12:	/* def_cfa_sf */
		row->cfa_expr = 0;
		row->cfa_reg = uw_uleb(r);
		row->cfa_off = op == 0x0c ? (int64_t)uw_uleb(r) : uw_sleb(r) * cie->data_align;
		return 1;
	case 0x0d:	/* def_cfa_register */
		row->cfa_expr = 0;
		row->cfa_reg = uw_uleb(r);
		return 1;
	case 0x0e:	/* def_cfa_offset */
		row->cfa_off = (int64_t)uw_uleb(r);
		return 1;
	case 0x13:	/* def_cfa_offset_sf */
		row->cfa_off = uw_sleb(r) * cie->data_align;
		return 1;
	case 0x0f:	/* def_cfa_expression */
		row->elen = (size_t)uw_uleb(r);
		if (r->bad || row->elen > (size_t)(r->end - r->p)) {
			r->bad = 1;
			return 1;
		}
		row->cfa_expr = 1;
		row->expr = r->p;
		r->p += row->elen;
		return 1;
	}
	return 0;
}

/* A register-rule instruction op (other than DW_CFA_offset): *reg and
 * *rule set from its operands, 1; 0 when op is not one (r->bad when
 * malformed). */
static int uw_rule_op(struct uw_rd *r, const struct sym_cie *cie, uint8_t op,
		      uint64_t *reg, struct uw_rule *rule)
{
	switch (op) {
	case 0x05:	/* offset_extended */
	case 0x11:	/* offset_extended_sf */
	case 0x2f:	/* GNU_negative_offset_extended */
	case 0x14:	/* val_offset */
	case 0x15:	/* val_offset_sf */
		*reg = uw_uleb(r);
		rule->kind = op == 0x14 || op == 0x15 ? UW_VALOFF : UW_OFF;
		if (op == 0x11 || op == 0x15)
			rule->off = uw_sleb(r) * cie->data_align;
		else if (op == 0x2f)
			rule->off = -(int64_t)uw_uleb(r) * cie->data_align;
		else
			rule->off = (int64_t)uw_uleb(r) * cie->data_align;
		return 1;
	case 0x07:	/* undefined */
	case 0x08:	/* same_value */
		*reg = uw_uleb(r);
		rule->kind = op == 0x07 ? UW_UNDEF : UW_SAME;
		return 1;
	case 0x09:	/* register */
		*reg = uw_uleb(r);
		rule->kind = UW_REG;
		rule->reg = uw_uleb(r);
		return 1;
	case 0x10:	/* expression */
	case 0x16:	/* val_expression */
		*reg = uw_uleb(r);
		rule->kind = op == 0x10 ? UW_EXPR : UW_VALEXPR;
		rule->elen = (size_t)uw_uleb(r);
		if (r->bad || rule->elen > (size_t)(r->end - r->p)) {
			r->bad = 1;
			return 1;
		}
		rule->expr = r->p;
		r->p += rule->elen;
		return 1;
	}
	return 0;
}

/* Runs instructions [p, end) from location *loc up to pc.  init is the row
 * after the CIE's instructions (NULL while running them).  0 ok, -1
 * unsupported or malformed. */
static int uw_run(const struct sym_cfi *c, const struct sym_cie *cie,
		  const uint8_t *p, const uint8_t *end, uint64_t loc, uint64_t pc,
		  struct uw_row *row, const struct uw_row *init)
{
	struct uw_rd r = { p, end, 0 };
	struct uw_row *stack = NULL;
	int depth = 0, rc = 0;

	while (r.p < r.end && !r.bad) {
		uint8_t op = (uint8_t)uw_fixed(&r, 1), lowop = op & 0x3f;
		uint64_t reg = 0, delta;
		struct uw_rule rule;

		memset(&rule, 0, sizeof(rule));
		switch (op & 0xc0) {
		case 0x40:	/* DW_CFA_advance_loc */
			delta = lowop;
			goto advance;
		case 0x80:	/* DW_CFA_offset */
			reg = lowop;
			rule.kind = UW_OFF;
			rule.off = (int64_t)uw_uleb(&r) * cie->data_align;
			goto set;
		case 0xc0:	/* DW_CFA_restore */
			reg = lowop;
			goto restore;
		}
		if (uw_cfa_op(&r, cie, op, row))
			continue;
		if (uw_rule_op(&r, cie, op, &reg, &rule))
			goto set;
		switch (op) {
		case 0x00:	/* nop */
			continue;
		case 0x01:	/* set_loc */
			delta = c->is_eh ? uw_enc(&r, c, cie->fde_enc)
					 : uw_fixed(&r, cie->addr_size);
			if (r.bad)
				goto bad;
			if (delta > pc)
				goto done;
			loc = delta;
			continue;
		case 0x02: delta = uw_fixed(&r, 1); goto advance;
		case 0x03: delta = uw_fixed(&r, 2); goto advance;
		case 0x04: delta = uw_fixed(&r, 4); goto advance;
		case 0x06:	/* restore_extended */
			reg = uw_uleb(&r);
			goto restore;
		case 0x0a:	/* remember_state */
			if (depth == UW_STATES)
				goto bad;
			if (!stack && !(stack = malloc(UW_STATES * sizeof(*stack))))
				abort();
			stack[depth++] = *row;
			continue;
		case 0x0b:	/* restore_state (the CFA rule too, as libgcc) */
			if (depth == 0)
				goto bad;
			*row = stack[--depth];
			continue;
		case 0x2e:	/* GNU_args_size */
			(void)uw_uleb(&r);
			continue;
		default:
			goto bad;
		}
advance:
		if (r.bad)
			goto bad;
		delta *= cie->code_align;
		if (loc + delta > pc)
			goto done;
		loc += delta;
		continue;
set:
		if (r.bad)
			goto bad;
		if (reg < UW_NREG)
			row->r[reg] = rule;
		continue;
restore:
		if (r.bad || !init)
			goto bad;
		if (reg < UW_NREG)
			row->r[reg] = init->r[reg];
		continue;
	}
	if (r.bad)
		goto bad;
done:
	free(stack);
	return rc;
bad:
	rc = -1;
	goto done;
}

/* dup, drop, over, pick and swap on the stack st[0..*sp): 1 done, 0 op
 * is not one of them, -1 malformed. */
static int uw_stack_op(struct uw_rd *r, uint8_t op, uint64_t *st, int *sp)
{
	uint64_t a;

	switch (op) {
	case 0x12:	/* dup */
	case 0x14:	/* over */
		if (*sp < (op == 0x12 ? 1 : 2))
			return -1;
		st[*sp] = st[*sp - (op == 0x12 ? 1 : 2)];
		(*sp)++;
		return 1;
	case 0x13:	/* drop */
		if (*sp < 1)
			return -1;
		(*sp)--;
		return 1;
	case 0x15:	/* pick */
		a = uw_fixed(r, 1);
		if (a >= (uint64_t)*sp)
			return -1;
		st[*sp] = st[*sp - 1 - (int)a];
		(*sp)++;
		return 1;
	case 0x16:	/* swap */
		if (*sp < 2)
			return -1;
		a = st[*sp - 1];
		st[*sp - 1] = st[*sp - 2];
		st[*sp - 2] = a;
		return 1;
	}
	return 0;
}

/* A binary operator of a DWARF expression: *v = a op b, 0; -1 op is not
 * one ptdb evaluates. */
static int uw_binop(uint8_t op, uint64_t a, uint64_t b, uint64_t *v)
{
	switch (op) {
	case 0x1a: *v = a & b; break;
	case 0x1c: *v = a - b; break;
	case 0x1e: *v = a * b; break;
	case 0x21: *v = a | b; break;
	case 0x22: *v = a + b; break;
	case 0x24: *v = b < 64 ? a << b : 0; break;
	case 0x25: *v = b < 64 ? a >> b : 0; break;
	case 0x26: *v = b < 64 ? (uint64_t)((int64_t)a >> b) : ((int64_t)a < 0 ? ~(uint64_t)0 : 0); break;
	case 0x27: *v = a ^ b; break;
	case 0x29: *v = a == b; break;
	case 0x2a: *v = (int64_t)a >= (int64_t)b; break;
	case 0x2b: *v = (int64_t)a > (int64_t)b; break;
	case 0x2c: *v = (int64_t)a <= (int64_t)b; break;
	case 0x2d: *v = (int64_t)a < (int64_t)b; break;
	case 0x2e: *v = a != b; break;
	default: return -1;	/* unsupported */
	}
	return 0;
}

/* A DWARF expression (the common stack-machine subset).  push is pushed
 * first (the CFA for DW_CFA_expression rules) when has_push.  0 ok. */
static int uw_eval(const struct uw_regs *g, const uint8_t *p, size_t len,
		   int has_push, uint64_t push, uint64_t *out)
{
	uint64_t st[64];
	int sp = 0;
	struct uw_rd r = { p, p + len, 0 };

	if (has_push)
		st[sp++] = push;
	while (r.p < r.end) {
		uint8_t op = (uint8_t)uw_fixed(&r, 1);
		uint64_t a, b, v;
		int64_t s;

		if (sp >= 62)
			return -1;
		if (op >= 0x30 && op <= 0x4f) {	/* lit0..31 */
			st[sp++] = op - 0x30;
			continue;
		}
		if (op >= 0x70 && op <= 0x8f) {	/* breg0..31 */
			s = uw_sleb(&r);
			if (uw_reg_val(g, op - 0x70, &v) < 0)
				return -1;
			st[sp++] = v + (uint64_t)s;
			continue;
		}
		if (op >= 0x50 && op <= 0x6f) {	/* reg0..31 */
			if (uw_reg_val(g, op - 0x50, &v) < 0)
				return -1;
			st[sp++] = v;
			continue;
		}
		switch (uw_stack_op(&r, op, st, &sp)) {
		case 1: continue;
		case -1: return -1;
		}
		switch (op) {
		case 0x03: st[sp++] = uw_fixed(&r, 8); continue;	/* addr */
		case 0x08: st[sp++] = uw_fixed(&r, 1); continue;
		case 0x09: st[sp++] = (uint64_t)(int64_t)(int8_t)uw_fixed(&r, 1); continue;
		case 0x0a: st[sp++] = uw_fixed(&r, 2); continue;
		case 0x0b: st[sp++] = (uint64_t)(int64_t)(int16_t)uw_fixed(&r, 2); continue;
		case 0x0c: st[sp++] = uw_fixed(&r, 4); continue;
		case 0x0d: st[sp++] = (uint64_t)(int64_t)(int32_t)uw_fixed(&r, 4); continue;
		case 0x0e: case 0x0f: st[sp++] = uw_fixed(&r, 8); continue;
		case 0x10: st[sp++] = uw_uleb(&r); continue;
		case 0x11: st[sp++] = (uint64_t)uw_sleb(&r); continue;
		case 0x06:	/* deref */
			if (sp < 1 || g->rd(g->ctx, st[sp - 1], &v, 8) < 0)
				return -1;
			st[sp - 1] = v;
			continue;
		case 0x1f:	/* neg */
		case 0x20:	/* not */
			if (sp < 1)
				return -1;
			st[sp - 1] = op == 0x1f ? (uint64_t)0 - st[sp - 1] : ~st[sp - 1];
			continue;
		case 0x23:	/* plus_uconst */
			if (sp < 1)
				return -1;
			st[sp - 1] += uw_uleb(&r);
			continue;
		case 0x2f:	/* skip */
		case 0x28:	/* bra */
			s = (int16_t)uw_fixed(&r, 2);
			if (op == 0x28) {
				if (sp < 1)
					return -1;
				if (!st[--sp])
					continue;
			}
			if ((s < 0 && (size_t)-s > (size_t)(r.p - p)) ||
			    (s > 0 && (size_t)s > (size_t)(r.end - r.p)))
				return -1;
			r.p += s;
			continue;
		case 0x96:	/* nop */
			continue;
		}
		/* binary operators */
		if (sp < 2)
			return -1;
		b = st[--sp];
		a = st[sp - 1];
		if (uw_binop(op, a, b, &v) < 0)
			return -1;
		st[sp - 1] = v;
	}
	if (r.bad || sp < 1)
		return -1;
	*out = st[sp - 1];
	return 0;
}

/* The value of register reg in the caller.  1 if it has no rule (same
 * value), 0 ok, -1 memory unreadable, -2 unsupported, -3 undefined. */
static int uw_apply(const struct uw_regs *g, const struct uw_row *row,
		    uint64_t cfa, uint64_t reg, uint64_t *out)
{
	const struct uw_rule *ru = &row->r[reg];
	uint64_t a;

	switch (ru->kind) {
	case UW_SAME:
		return 1;
	case UW_UNDEF:
		return -3;
	case UW_OFF:
		return g->rd(g->ctx, cfa + (uint64_t)ru->off, out, 8) < 0 ? -1 : 0;
	case UW_VALOFF:
		*out = cfa + (uint64_t)ru->off;
		return 0;
	case UW_REG:
		return uw_reg_val(g, ru->reg, out) < 0 ? -2 : 0;
	case UW_EXPR:
		if (uw_eval(g, ru->expr, ru->elen, 1, cfa, &a) < 0)
			return -2;
		return g->rd(g->ctx, a, out, 8) < 0 ? -1 : 0;
	case UW_VALEXPR:
		return uw_eval(g, ru->expr, ru->elen, 1, cfa, out) < 0 ? -2 : 0;
	}
	return -2;
}

/* 0 ok, -1 failure (no fallback), 1 no usable CFI (try the rbp chain). */
static int uw_cfi_step(struct sym_module *m, struct sym_cfi *c,
		       const struct uw_regs *g, uint64_t *cpc, uint64_t *crsp,
		       uint64_t *crbp, struct sym_regs *saved)
{
	uint64_t link = g->pc - m->bias, cfa, ra, bp;
	const struct sym_fde *f;
	const struct sym_cie *cie;
	struct uw_row *row, init;
	int rc;

	if (c->state == 0)
		uw_load(m, c, c == &m->eh);
	if (c->state != 1 || !(f = uw_find_fde(c, link)))
		return 1;
	cie = &c->cie[f->cie];
	if (cie->ra >= UW_NREG)
		return 1;
	row = malloc(sizeof(*row));
	if (!row)
		abort();
	memset(row, 0, sizeof(*row));
	rc = 1;
	if (uw_run(c, cie, c->data + cie->ins, c->data + cie->ins_end, f->lo,
		   UINT64_MAX, row, NULL) < 0)
		goto out;
	init = *row;
	if (uw_run(c, cie, c->data + f->ins, c->data + f->ins_end, f->lo, link,
		   row, &init) < 0)
		goto out;
	if (row->cfa_expr) {
		if (uw_eval(g, row->expr, row->elen, 0, 0, &cfa) < 0)
			goto out;
	} else {
		if (uw_reg_val(g, row->cfa_reg, &cfa) < 0)
			goto out;
		cfa += (uint64_t)row->cfa_off;
	}
	switch (uw_apply(g, row, cfa, cie->ra, &ra)) {
	case 0: break;
	case -1: case -3: rc = -1; goto out;	/* unreadable / outermost frame */
	default: goto out;
	}
	switch (uw_apply(g, row, cfa, UW_RBP, &bp)) {
	case 0: break;
	case 1: bp = g->rbp; break;
	case -1: rc = -1; goto out;
	case -3: bp = 0; break;
	default: goto out;
	}
	if (ra == 0) {
		rc = -1;
		goto out;
	}
	*cpc = ra;
	*crsp = cfa;
	*crbp = bp;
	if (saved)
		uw_saved(g, row, cfa, saved);
	rc = 0;
out:
	free(row);
	return rc;
}

int sym_unwind_step(struct sym_module *m, uint64_t pc, uint64_t rsp,
		    uint64_t rbp, sym_read_fn rd, void *ctx, uint64_t *cpc,
		    uint64_t *crsp, uint64_t *crbp)
{
	struct uw_regs g = { pc, rsp, rbp, rd, ctx, NULL };
	uint64_t v[2];
	int rc = 1;

	if (m) {
		rc = uw_cfi_step(m, &m->eh, &g, cpc, crsp, crbp, NULL);
		if (rc == 1)
			rc = uw_cfi_step(m, &m->dframe, &g, cpc, crsp, crbp, NULL);
	}
	if (rc != 1)
		return rc;
	/* no CFI: the frame pointer chain */
	if (!rbp || rd(ctx, rbp, v, sizeof(v)) < 0 || v[1] == 0)
		return -1;
	*crbp = v[0];
	*cpc = v[1];
	*crsp = rbp + 16;
	return 0;
}

static void uw_saved(const struct uw_regs *g, const struct uw_row *row, uint64_t cfa,
		     struct sym_regs *out)
{
	static const int callee[] = { 3, 12, 13, 14, 15 };	/* rbx, r12-r15 */

	for (size_t i = 0; i < sizeof(callee) / sizeof(callee[0]); i++) {
		int r = callee[i];
		uint64_t v;

		switch (uw_apply(g, row, cfa, (uint64_t)r, &v)) {
		case 0:
			out->r[r] = v;
			out->valid |= 1u << r;
			break;
		case 1:
			if (g->all && (g->all->valid >> r & 1)) {
				out->r[r] = g->all->r[r];
				out->valid |= 1u << r;
			}
			break;
		default:
			break;
		}
	}
}

int sym_unwind_step_regs(struct sym_module *m, const struct sym_regs *in, sym_read_fn rd,
			 void *ctx, struct sym_regs *out)
{
	struct uw_regs g = { in->r[16], in->r[7], in->r[6], rd, ctx, in };
	uint64_t pc, sp, bp;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = uw_cfi_step(m, &m->eh, &g, &pc, &sp, &bp, out);
	if (rc == 1)
		rc = uw_cfi_step(m, &m->dframe, &g, &pc, &sp, &bp, out);
	if (rc != 0)
		return rc;
	out->r[16] = pc;
	out->r[7] = sp;
	out->r[6] = bp;
	out->valid |= 1u << 16 | 1u << 7 | 1u << 6;
	return 0;
}

int sym_unwind_cfi(struct sym_module *m, uint64_t pc, uint64_t rsp, uint64_t rbp,
		   sym_read_fn rd, void *ctx, uint64_t *cpc, uint64_t *crsp, uint64_t *crbp)
{
	struct uw_regs g = { pc, rsp, rbp, rd, ctx, NULL };
	int rc = uw_cfi_step(m, &m->eh, &g, cpc, crsp, crbp, NULL);

	return rc == 1 ? uw_cfi_step(m, &m->dframe, &g, cpc, crsp, crbp, NULL) : rc;
}
