/* trace/ccache_pkt.c: block records into packets through each block's
 * packet plan (ccache_pkt.h).  The loop mirrors, record by record, what
 * trace_swc_transfer and trace_swc_straight do for the block's
 * instructions (trace/swc.h, trace/ptw.h): the instructions and transfers
 * counted, each push onto the shadow stack, each TNT bit (a TNT-64 out at
 * the 47th), each TIP after the pending bits, and the PSB+ once the bytes
 * since the last one reach the period, with the same FUP.  Most records
 * write nothing (a TNT bit pending, a push, a compressed return): those
 * go through a loop of their own (quiet), whose state fits in
 * registers. */
#include "trace/ccache_pkt.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

_Static_assert(sizeof(struct ccache_pkt) == 32, "a plan is half a cache line");
_Static_assert(CCACHE_BLOCK_MAX_INSNS <= UINT16_MAX, "a plan counts a block's instructions in 16 bits");
_Static_assert(CCACHE_SIDE_MAX < 1 << (8 - CCACHE_PKT_SIDE_SHIFT), "a plan's kind holds its side exits");

struct ccache_pkt *ccache_pkt_grow(struct ccache_pkt *pk, size_t n, size_t cap)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, cap * sizeof(*pk)) != 0)
		return xrealloc(pk, cap * sizeof(*pk));	/* (aligned or not, it works) */
	if (n)
		memcpy(p, pk, n * sizeof(*pk));
	free(pk);
	return p;
}

void ccache_pkt_plan(const struct ccache_block *b, struct ccache_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->start = b->start;
	p->n = (uint16_t)b->n;
	p->kind = CCACHE_PKT_NONE;
	for (int i = 0, side = 0; i < b->n; i++) {
		const struct ccache_insn *ci = &b->ins[i];
		uint64_t nlip = ci->addr + ci->len;
		int zero = ci->has_target && ccache_insn_target(ci) == nlip;

		if (ci->kind == DISASM_KIND_OTHER || ci->kind == DISASM_KIND_JMP)
			continue;
		if (ci->kind == DISASM_KIND_JCC && side < b->nside) {
			/* a side exit's: not taken (the last: the block goes
			 * on to its fall-through, no exit that writes) */
			side++;
			p->nlip = nlip;
			continue;
		}
		if (i + 1 < b->n) {
			/* a direct call followed inside the block */
			if (ci->kind != DISASM_KIND_CALL ||
			    (!zero && (p->npush == CCACHE_PKT_PUSHES ||
				       (uint64_t)(int64_t)(int32_t)(nlip - b->start) != nlip - b->start))) {
				p->kind = CCACHE_PKT_SLOW;
				return;
			}
			if (!zero)
				p->push[p->npush++] = (int32_t)(nlip - b->start);
			continue;
		}
		p->nlip = nlip;
		switch (ci->kind) {
		case DISASM_KIND_JCC:
		case DISASM_KIND_JRCXZ:
		case DISASM_KIND_LOOP:
			p->kind = CCACHE_PKT_COND;
			break;
		case DISASM_KIND_CALL:
			p->kind = zero ? CCACHE_PKT_NONE : CCACHE_PKT_CALL;
			break;
		case DISASM_KIND_CALL_IND:
			p->kind = CCACHE_PKT_CALL_IND;
			break;
		case DISASM_KIND_JMP_IND:
			p->kind = CCACHE_PKT_JMP_IND;
			break;
		case DISASM_KIND_RET:
			p->kind = CCACHE_PKT_RET;
			break;
		default:
			p->kind = CCACHE_PKT_SLOW;
			break;
		}
	}
	if (p->kind != CCACHE_PKT_SLOW)
		p->kind |= (uint8_t)(b->nside << CCACHE_PKT_SIDE_SHIFT);
}

/* The writer's state the loop keeps in registers (the thread's and its
 * writer's fields, copied in and out around what else writes them).
 * Only the ring's position moves while the loop writes: its total is
 * base + pos (base changes where the ring wraps), and the PSB+ is due
 * once pos reaches psb_pos (last PSB + period, in positions). */
struct fast {
	uint64_t bits, last_ip;
	unsigned nbits, top, depth;
	uint8_t *buf;
	size_t pos, size;
	uint64_t base, psb_pos;
	uint64_t psb_at;
};

#define INLINE static inline __attribute__((always_inline))

INLINE void get(struct fast *f, const struct trace_swc_thread *t)
{
	const struct trace_ptw *w = &t->w;

	f->bits = w->tnt_bits;
	f->nbits = w->tnt_n;
	f->last_ip = w->last_ip;
	f->top = w->stack_top;
	f->depth = w->stack_n;
	f->buf = w->ring->buf;
	f->pos = w->ring->pos;
	f->size = w->ring->size;
	f->base = w->ring->total - w->ring->pos;
	f->psb_at = w->last_psb + w->psb_period;
	/* (not due on entry: psb_at > total, so this is above pos) */
	f->psb_pos = f->psb_at - f->base;
}

/* psb_pos after the ring wrapped (the period may have been reached in
 * the padding before the packet: due at once). */
INLINE void rebase(struct fast *f)
{
	f->psb_pos = f->psb_at > f->base ? f->psb_at - f->base : 0;
}

INLINE void put_back(const struct fast *f, struct trace_swc_thread *t)
{
	struct trace_ptw *w = &t->w;

	w->tnt_bits = f->bits;
	w->tnt_n = f->nbits;
	w->last_ip = f->last_ip;
	w->stack_top = f->top;
	w->stack_n = f->depth;
	w->ring->pos = f->pos;
	w->ring->total = f->base + f->pos;
}

/* n bytes at the ring's end: padded, wrapped (trace_ring_write). */
static void __attribute__((noinline)) put_wrap(struct trace_ring *r, const uint8_t *b, unsigned n)
{
	trace_ring_write(r, b, n);
}

INLINE void put_cold(struct fast *f, struct trace_swc_thread *t, const uint8_t *b, unsigned n)
{
	struct trace_ring *r = t->w.ring;

	r->pos = f->pos;
	r->total = f->base + f->pos;
	put_wrap(r, b, n);
	f->pos = r->pos;
	f->base = r->total - r->pos;
	rebase(f);
}

/* The PSB+ due after the packets before the instruction at next. */
static void __attribute__((noinline)) psb(struct trace_swc_thread *t, uint64_t next)
{
	trace_swc_psb_after(t, next);
}

INLINE void tnt(struct fast *f, struct trace_swc_thread *t)
{
	uint64_t bits = (f->bits & ((1ull << f->nbits) - 1)) | 1ull << f->nbits;
	uint8_t b[8];

	if (f->nbits <= 6) {
		b[0] = (uint8_t)(bits << 1);
		if (__builtin_expect(f->size - f->pos > 1, 1))
			f->buf[f->pos++] = b[0];
		else
			put_cold(f, t, b, 1);
	} else {
		bits = bits << 16 | 0xa302;
		if (__builtin_expect(f->size - f->pos > 8, 1)) {
			memcpy(f->buf + f->pos, &bits, 8);
			f->pos += 8;
		} else {
			memcpy(b, &bits, 8);
			put_cold(f, t, b, 8);
		}
	}
	f->bits = 0;
	f->nbits = 0;
}

INLINE void bit(struct fast *f, struct trace_swc_thread *t, int taken)
{
	f->bits = f->bits << 1 | (uint64_t)taken;
	if (__builtin_expect(++f->nbits == 47, 0))
		tnt(f, t);
}

INLINE void push(struct fast *f, uint64_t *stack, uint64_t v)
{
	stack[f->top] = v;
	f->top = (f->top + 1) % TRACE_PTW_STACK;
	f->depth += f->depth < TRACE_PTW_STACK;
}

/* TIP(ip) after the pending bits (trace_ptw_ip_'s bytes). */
INLINE void tip(struct fast *f, struct trace_swc_thread *t, uint64_t ip)
{
	uint64_t x = ip ^ f->last_ip;
	unsigned ipc, n;
	uint8_t b[16];

	if (f->nbits)
		tnt(f, t);
	if (!(x >> 16))
		ipc = 1, n = 3;
	else if (!(x >> 32))
		ipc = 2, n = 5;
	else if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip)
		ipc = 3, n = 7;
	else if (!(x >> 48))
		ipc = 4, n = 7;
	else
		ipc = 6, n = 9;
	b[0] = (uint8_t)(0x0d | ipc << 5);
	memcpy(b + 1, &ip, 8);
	if (__builtin_expect(f->size - f->pos > 9, 1)) {
		uint8_t *d = f->buf + f->pos;

		/* (exactly n bytes: the ring after them is the oldest data) */
		d[0] = b[0];
		if (n == 3) {
			memcpy(d + 1, b + 1, 2);
		} else if (n == 5) {
			memcpy(d + 1, b + 1, 4);
		} else if (n == 7) {
			memcpy(d + 1, b + 1, 4);
			memcpy(d + 5, b + 5, 2);
		} else {
			memcpy(d + 1, b + 1, 8);
		}
		f->pos += n;
	} else {
		put_cold(f, t, b, n);
	}
	f->last_ip = ip;
}

/* Block b's instructions up to its side exit k, taken (k < 0: all but
 * the last, every side exit not taken), as the per-instruction path
 * writes them: each push, each side exit's bit, the PSB+ right after
 * the TNT packet that reached the period (it clears the shadow stack:
 * the pushes after it stay).  Its instructions up to there. */
static unsigned __attribute__((noinline)) side_walk(struct fast *f, struct trace_swc_thread *t,
						    const struct ccache_block *b, int k)
{
	uint64_t *stack = t->w.stack;
	int j = 0;

	for (int i = 0; i < b->n; i++) {
		const struct ccache_insn *ci = &b->ins[i];
		uint64_t nlip = ci->addr + ci->len;
		int taken;

		if (ci->kind == DISASM_KIND_CALL && i + 1 < b->n) {
			if (!(ci->has_target && ccache_insn_target(ci) == nlip))
				push(f, stack, nlip);
			continue;
		}
		if (ci->kind != DISASM_KIND_JCC || j >= b->nside)
			continue;
		taken = j++ == k;
		bit(f, t, taken);
		if (!f->nbits && f->pos >= f->psb_pos) {
			put_back(f, t);
			psb(t, taken ? b->exit[k].target : nlip);
			get(f, t);
		}
		if (taken)
			return (unsigned)i + 1;
	}
	return (unsigned)b->n;
}

/* side_walk through a copy of f (f itself stays in the caller's
 * registers). */
INLINE unsigned side_walk_from(struct fast *f, struct trace_swc_thread *t, const struct ccache_block *b, int k)
{
	struct fast g = *f;
	unsigned n = side_walk(&g, t, b, k);

	*f = g;
	return n;
}

/* The quiet loop's state, in registers. */
struct quiet {
	const struct ccache_pkt *q;	/* the block whose record came last */
	uint64_t bits, ins, plain;
	unsigned nbits, top, depth;
};

/* The record of the block at p (after q's) taken if it writes no bytes:
 * 1, else 0 (nothing done: the loop that writes takes it). */
INLINE int quiet_one(struct quiet *s, const struct ccache_pkt *p, uint64_t *stack)
{
	const struct ccache_pkt *q = s->q;
	/* (kind and pushes at once: a plan with pushes is the writer's) */
	unsigned kn = (unsigned)q->kind | (unsigned)q->npush << 8;

	if (kn >> CCACHE_PKT_SIDE_SHIFT) {
		/* side exits not taken, then a conditional exit or none,
		 * short of the 47th bit */
		unsigned ns = kn >> CCACHE_PKT_SIDE_SHIFT, e = kn & ((1u << CCACHE_PKT_SIDE_SHIFT) - 1);

		if (ns > 15 || s->nbits + ns + (e == CCACHE_PKT_COND) > 46 ||
		    (e != CCACHE_PKT_COND && e != CCACHE_PKT_NONE))
			return 0;
		s->bits <<= ns;
		s->nbits += ns;
		s->plain -= ns;
		kn = e;
	}
	if (__builtin_expect(kn == CCACHE_PKT_COND, 1)) {
		if (__builtin_expect(s->nbits == 46, 0))
			return 0;
		s->bits = s->bits << 1 | (uint64_t)(p->start != q->nlip);
		s->nbits++;
	} else if (kn == CCACHE_PKT_NONE) {
		s->plain++;
	} else if (kn == CCACHE_PKT_RET) {
		unsigned t1 = (s->top + TRACE_PTW_STACK - 1) % TRACE_PTW_STACK;

		if (!s->depth || stack[t1] != p->start || s->nbits == 46)
			return 0;
		s->top = t1;
		s->depth--;
		s->bits = s->bits << 1 | 1;
		s->nbits++;
	} else if (kn == CCACHE_PKT_CALL) {
		stack[s->top] = q->nlip;
		s->top = (s->top + 1) % TRACE_PTW_STACK;
		s->depth += s->depth < TRACE_PTW_STACK;
		s->plain++;
	} else {
		return 0;
	}
	s->ins += q->n;
	s->q = p;
	return 1;
}

/* The side exit's record at *r after s->q's, if it writes no bytes
 * (short of the 47th bit, the next record its target's): it and the next taken (*r that one), 1; else 0
 * (nothing done). */
static int __attribute__((noinline)) quiet_side(struct quiet *s, const struct ccache_pkt *pk, uint32_t npk,
						const struct ccache_block *blk, const uint32_t **r, const uint32_t *end,
						uint64_t *stack)
{
	const struct ccache_pkt *q = s->q;
	unsigned ns = (unsigned)q->kind >> CCACHE_PKT_SIDE_SHIFT;
	int k = ccache_rec_side(**r);
	const struct ccache_block *b = &blk[q - pk];

	if (k < 0 || (unsigned)k >= ns || q->kind == CCACHE_PKT_SLOW || s->nbits + (unsigned)k + 1 > 46 ||
	    *r + 1 == end || (*r)[1] >= npk || pk[(*r)[1]].start != b->exit[k].target)
		return 0;
	for (unsigned j = 0; j < b->side_push[k]; j++) {
		stack[s->top] = q->start + (uint64_t)(int64_t)q->push[j];
		s->top = (s->top + 1) % TRACE_PTW_STACK;
		s->depth += s->depth < TRACE_PTW_STACK;
	}
	s->bits = (s->bits << k << 1) | 1;
	s->nbits += (unsigned)k + 1;
	s->ins += b->side_n[k];
	s->plain += 1 - (uint64_t)k;	/* (k + 1 transfers in two records) */
	s->q = &pk[*++*r];
	return 1;
}

/* The records that write no bytes, from r on, in registers: conditional
 * exits short of the 47th pending bit, returns to the shadow stack's
 * top, blocks with no exit that writes and direct calls (no pushes
 * before the exit).  Stops at the first record that may write (or end,
 * or an id not ours), unread; *qp the plan of the last block read.
 * Kept apart from the loop that writes: there, the writer's state
 * (pending bits, counts) lived on the stack, a store and a load per
 * record in each chain.  The plans 8 records ahead fetched up to pf
 * (the last 8 records: none, in a loop of their own). */
static const uint32_t *__attribute__((noinline))
quiet(const struct ccache_pkt *pk, uint32_t npk, const struct ccache_block *blk, struct quiet *st, const uint32_t *r,
      const uint32_t *end, const uint32_t *pf, uint64_t *stack)
{
	struct quiet s = *st;

	for (; r < pf; r++) {
		if (__builtin_expect(*r >= npk, 0)) {
			if (!quiet_side(&s, pk, npk, blk, &r, end, stack))
				goto out;
			continue;
		}
		__builtin_prefetch(&pk[r[8]]);	/* (never faults) */
		if (!quiet_one(&s, &pk[*r], stack))
			goto out;
	}
	for (; r < end; r++)
		if (__builtin_expect(*r >= npk, 0) ? !quiet_side(&s, pk, npk, blk, &r, end, stack)
						    : !quiet_one(&s, &pk[*r], stack))
			break;
out:
	*st = s;
	return r;
}

/* quiet() from r, through a copy of f's fields (f itself stays in the
 * caller's registers): where it stopped. */
INLINE const uint32_t *quiet_from(const struct ccache_pkt *pk, uint32_t npk, const struct ccache_block *blk,
				  const struct ccache_pkt **q,
				  const uint32_t *r, const uint32_t *end, const uint32_t *pf, uint64_t *stack,
				  struct fast *f, uint64_t *insns, uint64_t *plain)
{
	struct quiet qs = { *q, f->bits, 0, 0, f->nbits, f->top, f->depth };

	r = quiet(pk, npk, blk, &qs, r, end, pf, stack);
	*q = qs.q;
	f->bits = qs.bits;
	f->nbits = qs.nbits;
	f->top = qs.top;
	f->depth = qs.depth;
	*insns += qs.ins;
	*plain += qs.plain;
	return r;
}

/* The record id after block b's (plan q): b's side exit k's, k an exit
 * of b: b's pushes and bits up to there, k + 1 transfers for this
 * record, 1; else 0 (nothing done). */
INLINE int side_taken(struct fast *f, struct trace_swc_thread *t, const struct ccache_block *b,
		      const struct ccache_pkt *q, uint32_t id, uint64_t *insns, uint64_t *plain, uint64_t *to)
{
	int k = ccache_rec_side(id);
	unsigned kind = q->kind;

	if (k < 0 || k >= (int)(kind >> CCACHE_PKT_SIDE_SHIFT) || kind == CCACHE_PKT_SLOW)
		return 0;
	if (f->nbits + (unsigned)k + 1 < 47) {
		/* (no TNT packet: no walk; its pushes the plan's first) */
		for (unsigned j = 0; j < b->side_push[k]; j++)
			push(f, t->w.stack, q->start + (uint64_t)(int64_t)q->push[j]);
		f->bits = (f->bits << k << 1) | 1;
		f->nbits += (unsigned)k + 1;
		*insns += b->side_n[k];
	} else {
		*insns += side_walk_from(f, t, b, k);
	}
	*plain -= (uint64_t)k;
	*to = b->exit[k].target;
	return 1;
}

/* Block b (plan *kind, with side exits) ran to its end: a bit for each
 * side exit, not taken, *kind its end's.  1 where a TNT packet comes out
 * among them: a walk wrote them with the pushes (then done); else 0. */
INLINE int sides_not_taken(struct fast *f, struct trace_swc_thread *t, const struct ccache_block *b,
			   unsigned *kind, uint64_t *plain)
{
	unsigned ns = *kind >> CCACHE_PKT_SIDE_SHIFT;

	*kind &= (1u << CCACHE_PKT_SIDE_SHIFT) - 1;
	*plain -= ns;
	if (f->nbits + ns >= 47) {
		side_walk_from(f, t, b, -1);
		return 1;
	}
	f->bits <<= ns;
	f->nbits += ns;
	return 0;
}

/* f back into t, with the counts of recs records: insns instructions,
 * the transfers of all but plain of them (both zeroed). */
INLINE void counts_out(const struct fast *f, struct trace_swc_thread *t, uint64_t *insns, uint64_t *plain,
		       uint64_t recs)
{
	put_back(f, t);
	t->insns += *insns;
	t->transfers += recs - *plain;
	*insns = *plain = 0;
}

/* Where the records from ids[0..n) start, *cur < 0: the first of a
 * block (*cur, its exit written with the next), after it (n: none);
 * else 0. */
INLINE size_t first(const uint32_t *ids, size_t n, uint32_t npk, int64_t *cur)
{
	size_t i = 0;

	if (*cur >= 0)
		return 0;
	while (i < n && ids[i] >= npk)
		i++;
	if (i < n)
		*cur = ids[i++];
	return i;
}

/* The record loop.  Kept lean, as it runs once per block the program
 * runs: the records that write nothing taken by quiet(), the others
 * here, the ring position and the counts in registers;
 * the PSB+ check only after a record wrote bytes (the record's other work
 * done first: pushes, a pop); transfers counted as the records of blocks
 * with a state-dependent exit, from the number of records less those
 * that have none. */
size_t ccache_pkt_run(const struct ccache_pkt *pk, uint32_t npk, const struct ccache_block *blk,
		      struct trace_swc_thread *t, const uint32_t *ids, size_t n, int64_t *cur)
{
	uint64_t *stack = t->w.stack;
	const struct ccache_pkt *q;
	struct fast f;
	uint64_t insns = 0, plain = 0;
	const uint32_t *r, *r0, *rs, *end, *pf;
	size_t i;
	unsigned kind, top, skip = 0;
	/* (after a side exit's record, gone to side_to: no block current,
	 * or the one whose record came next, fresh) */
	const uint32_t *fresh = NULL;
	uint64_t side_to = 0;
	int none = 0;

	/* (tracing on: the last IP is valid) */
	if (t->cpu || !t->w.packet_en || !t->w.last_ip_valid || trace_ptw_psb_due(&t->w) || *cur >= (int64_t)npk)
		return 0;
	if ((i = first(ids, n, npk, cur)) == n)
		return n;
	get(&f, t);
	q = &pk[*cur];
	r = r0 = rs = ids + i;
	end = ids + n;
	/* (the plans ahead fetched where they do not all stay in L1) */
	pf = npk > 256 && n - i > 8 ? end - 8 : r;
	for (; r < end; r++) {
		uint32_t id;
		const struct ccache_pkt *p;

		if (skip) {
			skip--;
		} else {
			const uint32_t *from = r;

			if ((r = quiet_from(pk, npk, blk, &q, r, end, pf, stack, &f, &insns, &plain)) == end)
				break;
			/* (short runs between records that write, as with
			 * indirect calls: the writing loop takes the next
			 * records alone, the call not worth its cost) */
			skip = r - from < 8 ? 64 : 0;
		}
		id = *r;
		kind = q->kind;
		if (__builtin_expect(id >= npk, 0)) {
			/* (an id not ours cannot happen; the caller skips it) */
			if (!side_taken(&f, t, &blk[q - pk], q, id, &insns, &plain, &side_to))
				break;
			/* (the next record's block current, writing nothing) */
			if ((none = ++r == end || *r >= npk))
				break;
			q = &pk[*r];
			plain++;
			fresh = r;
			continue;
		}
		if (r < pf)
			__builtin_prefetch(&pk[r[8]]);	/* (never faults) */
		p = &pk[id];
		if (__builtin_expect(kind == CCACHE_PKT_SLOW, 0))
			break;
		insns += q->n;
		if (__builtin_expect(kind >> CCACHE_PKT_SIDE_SHIFT, 0) &&
		    sides_not_taken(&f, t, &blk[q - pk], &kind, &plain))
			goto last;
		if (q->npush)
			for (unsigned k = 0; k < q->npush; k++)
				push(&f, stack, q->start + (uint64_t)(int64_t)q->push[k]);
	last:
		if (kind == CCACHE_PKT_COND) {
			f.bits = f.bits << 1 | (uint64_t)(p->start != q->nlip);
			if (__builtin_expect(++f.nbits == 47, 0)) {
				tnt(&f, t);
				goto written;
			}
		} else if (kind == CCACHE_PKT_RET) {
			top = (f.top + TRACE_PTW_STACK - 1) % TRACE_PTW_STACK;
			if (f.depth && stack[top] == p->start) {
				f.top = top;
				f.depth--;
				f.bits = f.bits << 1 | 1;
				if (__builtin_expect(++f.nbits == 47, 0)) {
					tnt(&f, t);
					goto written;
				}
			} else {
				tip(&f, t, p->start);	/* (§6: no pop) */
				goto written;
			}
		} else if (kind == CCACHE_PKT_JMP_IND || kind == CCACHE_PKT_CALL_IND) {
			if (kind == CCACHE_PKT_CALL_IND)
				push(&f, stack, q->nlip);
			tip(&f, t, p->start);
			goto written;
		} else {
			if (kind == CCACHE_PKT_CALL)
				push(&f, stack, q->nlip);
			plain++;
		}
		q = p;
		continue;
	written:
		q = p;
		if (__builtin_expect(f.pos < f.psb_pos, 1))
			continue;
		/* (a PSB+ once the record's bytes reached the period) */
		counts_out(&f, t, &insns, &plain, (uint64_t)(r + 1 - r0));
		r0 = r + 1;
		psb(t, p->start);
		get(&f, t);
	}
	counts_out(&f, t, &insns, &plain, (uint64_t)(r - r0));
	/* (where the last record's block went on, unless none was written) */
	if (r != rs)
		t->next_ip = none || r == fresh + 1 ? side_to : q->start;
	*cur = none ? -1 : q - pk;
	return (size_t)(r - ids);
}
