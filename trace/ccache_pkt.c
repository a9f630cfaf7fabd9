/* trace/ccache_pkt.c: block records into packets through each block's
 * packet plan (ccache_pkt.h).  The loop mirrors, record by record, what
 * trace_swc_transfer and trace_swc_straight do for the block's
 * instructions (trace/swc.h, trace/ptw.h): the instructions and transfers
 * counted, each push onto the shadow stack, each TNT bit (a TNT-64 out at
 * the 47th), each TIP after the pending bits, and the PSB+ once the bytes
 * since the last one reach the period, with the same FUP. */
#include "trace/ccache_pkt.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

_Static_assert(sizeof(struct ccache_pkt) == 64, "a plan is one cache line");

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
	p->n = (uint32_t)b->n;
	p->kind = CCACHE_PKT_NONE;
	for (int i = 0; i < b->n; i++) {
		const struct ccache_insn *ci = &b->ins[i];
		uint64_t nlip = ci->addr + ci->len;
		int zero = ci->has_target && ci->target == nlip;

		if (ci->kind == DISASM_KIND_OTHER || ci->kind == DISASM_KIND_JMP)
			continue;
		if (i + 1 < b->n) {
			/* a direct call followed inside the block */
			if (ci->kind != DISASM_KIND_CALL || (!zero && p->npush == CCACHE_PKT_PUSHES)) {
				p->kind = CCACHE_PKT_SLOW;
				return;
			}
			if (!zero)
				p->push[p->npush++] = nlip;
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
}

/* The writer's state the loop keeps in registers (the thread's and its
 * writer's fields, copied in and out around what else writes them). */
struct fast {
	uint64_t bits, insns, transfers, last_ip;
	unsigned nbits, top, depth;
	uint8_t *buf;
	size_t pos, size;
	uint64_t total, psb_at;
};

#define INLINE static inline __attribute__((always_inline))

INLINE void get(struct fast *f, const struct trace_swc_thread *t)
{
	const struct trace_ptw *w = &t->w;

	f->bits = w->tnt_bits;
	f->nbits = w->tnt_n;
	f->insns = t->insns;
	f->transfers = t->transfers;
	f->last_ip = w->last_ip;
	f->top = w->stack_top;
	f->depth = w->stack_n;
	f->buf = w->ring->buf;
	f->pos = w->ring->pos;
	f->size = w->ring->size;
	f->total = w->ring->total;
	f->psb_at = w->last_psb + w->psb_period;
}

INLINE void put_back(const struct fast *f, struct trace_swc_thread *t)
{
	struct trace_ptw *w = &t->w;

	w->tnt_bits = f->bits;
	w->tnt_n = f->nbits;
	t->insns = f->insns;
	t->transfers = f->transfers;
	w->last_ip = f->last_ip;
	w->stack_top = f->top;
	w->stack_n = f->depth;
	w->ring->pos = f->pos;
	w->ring->total = f->total;
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
	r->total = f->total;
	put_wrap(r, b, n);
	f->pos = r->pos;
	f->total = r->total;
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
		if (__builtin_expect(f->size - f->pos > 1, 1)) {
			f->buf[f->pos++] = b[0];
			f->total++;
		} else {
			put_cold(f, t, b, 1);
		}
	} else {
		bits = bits << 16 | 0xa302;
		if (__builtin_expect(f->size - f->pos > 8, 1)) {
			memcpy(f->buf + f->pos, &bits, 8);
			f->pos += 8;
			f->total += 8;
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
		f->total += n;
	} else {
		put_cold(f, t, b, n);
	}
	f->last_ip = ip;
}

size_t ccache_pkt_run(const struct ccache_pkt *pk, uint32_t npk, struct trace_swc_thread *t,
		      const uint32_t *ids, size_t n, int64_t *cur)
{
	uint64_t *stack = t->w.stack;
	const struct ccache_pkt *q;
	struct fast f;
	uint64_t next = 0;
	size_t i;

	/* (tracing on: the last IP is valid) */
	if (t->cpu || !t->w.packet_en || !t->w.last_ip_valid || trace_ptw_psb_due(&t->w) || *cur >= (int64_t)npk)
		return 0;
	get(&f, t);
	i = 0;
	if (*cur < 0) {
		/* (the first record: its block's exit comes with the next) */
		while (i < n && ids[i] >= npk)
			i++;
		if (i == n)
			return n;
		*cur = ids[i++];
	}
	q = &pk[*cur];
	for (; i < n; i++) {
		uint32_t id = ids[i];
		const struct ccache_pkt *p;
		uint64_t total = f.total;
		unsigned top;

		if (id >= npk)
			continue;	/* (cannot happen: the ids are ours) */
		if (i + 8 < n)
			__builtin_prefetch(&pk[ids[i + 8]]);	/* (never faults) */
		p = &pk[id];
		if (q->kind == CCACHE_PKT_SLOW)
			break;
		next = p->start;
		f.insns += q->n;
		if (q->npush)
			for (unsigned k = 0; k < q->npush; k++)
				push(&f, stack, q->push[k]);
		if (q->kind == CCACHE_PKT_COND) {
			f.transfers++;
			bit(&f, t, next != q->nlip);
			goto go_on;
		}
		switch (q->kind) {
		case CCACHE_PKT_CALL:
			push(&f, stack, q->nlip);
			break;
		case CCACHE_PKT_RET:
			f.transfers++;
			top = (f.top + TRACE_PTW_STACK - 1) % TRACE_PTW_STACK;
			if (f.depth && stack[top] == next) {
				bit(&f, t, 1);
				f.top = top;
				f.depth--;
			} else {
				tip(&f, t, next);	/* (§6: no pop) */
			}
			break;
		case CCACHE_PKT_JMP_IND:
			f.transfers++;
			tip(&f, t, next);
			break;
		case CCACHE_PKT_CALL_IND:
			f.transfers++;
			tip(&f, t, next);
			push(&f, stack, q->nlip);
			break;
		default:
			break;
		}
	go_on:
		if (__builtin_expect(f.total != total && f.total >= f.psb_at, 0)) {
			put_back(&f, t);
			psb(t, next);
			get(&f, t);
		}
		q = p;
		*cur = id;
	}
	put_back(&f, t);
	if (next)
		t->next_ip = next;
	return i;
}
