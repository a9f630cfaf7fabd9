/* tests/unit/test-ccache-pkt.c: the cache engine's records into packets
 * through the blocks' packet plans (trace/ccache_pkt.c) against the
 * per-instruction path (dbg_cache_emit_ids with no plans): the same
 * records, fed in the same pieces, must give the same bytes (the trace
 * ring wrapping, PSB+ at every period, with a PIP), the same writer state
 * (pending TNT bits, shadow stack, last IP) and the same counts, over
 * random blocks: conditional exits taken or not (TNT-8 and the TNT-64 of
 * 47 bits), direct calls followed inside a block or ending it (pushes,
 * calls to the next instruction), returns compressed or not (the stack
 * wrapping at 64), indirect calls and jumps (TIP with every IP
 * compression), and what plans leave to the per-instruction path (system
 * calls, INT, far transfers, transfers inside a block, many calls), blocks
 * with side exits (taken: a record of their own; or not), with
 * stops between pieces (a block's end written at a stop, tracing disabled
 * and enabled, the code generation moved), records naming no block.
 * Also the two paths' cost per record, printed. */
#include "core/collectors/dbg_cache_int.h"
#include "tests/unit/test.h"
#include "trace/ccache_pkt.h"
#include "trace/swc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t Rnd;
static unsigned Stray;	/* ids not of a block put among the records */
static unsigned Sides;	/* blocks with side exits, taken one time in Sides */

static uint32_t rnd(uint32_t n)
{
	Rnd = Rnd * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((Rnd >> 33) % n);
}

/* Where blocks live: low code, a library high up (update-32 within,
 * sext-48 between them), a non-canonical one (update-48 or full). */
static const uint64_t Areas[] = { 0x400000, 0x7ffff7a00000ull, 0x0001000000400000ull };

struct world {
	struct ccache_block *blk;
	uint32_t n, cap;
	uint64_t *push_at;	/* addresses something returns to */
	uint32_t npush, cpush;
	uint64_t *hk;		/* find's hash: starts, ids */
	uint32_t *hv, hcap, nh;
};

static uint64_t addr_in(uint32_t area)
{
	return Areas[area] + ((uint64_t)rnd(1u << 22) << 4);
}

/* A direct transfer's target: in the area of its source (a rel32's
 * reach, as struct ccache_insn holds it). */
static uint64_t addr_near(uint64_t at)
{
	return addr_in(at >= Areas[2] ? 2 : at >= Areas[1] ? 1 : 0);
}

/* An instruction of a block made by hand (target 0: none). */
static struct ccache_insn insn(uint64_t addr, int len, int kind, uint64_t target)
{
	struct ccache_insn ci = { .addr = addr, .len = len & 0x7f, .kind = (uint8_t)kind };

	if (target)
		ccache_insn_set_target(&ci, target);
	return ci;
}

static struct ccache_insn *add_insn(struct ccache_block *b, uint64_t at, int kind)
{
	struct ccache_insn *ci;

	b->ins = realloc(b->ins, (size_t)(b->n + 1) * sizeof(*b->ins));
	ci = &b->ins[b->n++];
	memset(ci, 0, sizeof(*ci));
	ci->addr = at;
	ci->len = (uint8_t)(1 + rnd(7));
	ci->kind = (uint8_t)kind;
	return ci;
}

static void note_push(struct world *wd, uint64_t at)
{
	if (wd->npush == wd->cpush) {
		wd->cpush = wd->cpush ? 2 * wd->cpush : 64;
		wd->push_at = realloc(wd->push_at, wd->cpush * sizeof(*wd->push_at));
	}
	wd->push_at[wd->npush++] = at;
}

/* A random block at start; profile 0: mixed, 1: loops (conditional
 * exits), 2: calls and returns; 3 and 4: the same as 1 and 2 with only
 * what plans cover (for the cost). */
static void new_block(struct world *wd, uint64_t start, int profile)
{
	static const int ends[] = { DISASM_KIND_JCC, DISASM_KIND_JCC, DISASM_KIND_JCC, DISASM_KIND_RET,
				    DISASM_KIND_RET, DISASM_KIND_CALL, DISASM_KIND_CALL_IND, DISASM_KIND_JMP_IND,
				    DISASM_KIND_JRCXZ, DISASM_KIND_LOOP, DISASM_KIND_OTHER, DISASM_KIND_JMP,
				    DISASM_KIND_SYSCALL, DISASM_KIND_INT, DISASM_KIND_FAR, DISASM_KIND_HLT };
	struct ccache_block *b;
	uint64_t at = start;
	int mid = (int)rnd(6), end;

	if (wd->n == wd->cap) {
		wd->cap = wd->cap ? 2 * wd->cap : 256;
		wd->blk = realloc(wd->blk, wd->cap * sizeof(*wd->blk));
	}
	b = &wd->blk[wd->n];
	memset(b, 0, sizeof(*b));
	b->start = start;
	b->id = wd->n++;
	static const int fast[] = { DISASM_KIND_JCC, DISASM_KIND_CALL, DISASM_KIND_RET, DISASM_KIND_CALL_IND,
				    DISASM_KIND_JMP_IND, DISASM_KIND_JCC, DISASM_KIND_RET, DISASM_KIND_OTHER };
	int only_fast = profile >= 3;

	if (only_fast)
		profile -= 2;
	else if (rnd(20) == 0)
		mid += 6;	/* (more calls than a plan holds) */
	int inner = 0;	/* a transfer inside the block (not a side exit's) */

	if (Sides && rnd(2))
		mid += 4;
	for (int i = 0; i < mid; i++) {
		int k = rnd(3) == 0 ? DISASM_KIND_CALL : rnd(4) == 0 ? DISASM_KIND_JMP : DISASM_KIND_OTHER;
		struct ccache_insn *ci;

		if (rnd(60) == 0 && !only_fast) {
			k = DISASM_KIND_JCC;	/* (a transfer inside a block: not planned) */
			inner = 1;
		} else if (Sides && !inner && b->nside < CCACHE_SIDE_MAX && rnd(3) == 0) {
			/* a side exit: the block runs on along its fall-through */
			ci = add_insn(b, at, DISASM_KIND_JCC);
			at += ci->len;
			ccache_insn_set_target(ci, addr_near(at));
			b->exit[b->nexit++].target = ccache_insn_target(ci);
			b->side_push[b->nside] = (uint8_t)ccache_side_pushes(b->ins, b->n);
			b->side_n[b->nside++] = (uint8_t)b->n;
			continue;
		}
		ci = add_insn(b, at, k);
		at += ci->len;
		if (k == DISASM_KIND_CALL || k == DISASM_KIND_JMP) {
			/* a call to the next instruction pushes nothing */
			ccache_insn_set_target(ci, k == DISASM_KIND_CALL && rnd(8) == 0 ? at : addr_near(at));
			if (k == DISASM_KIND_CALL && ccache_insn_target(ci) != at)
				note_push(wd, at);
			at = ccache_insn_target(ci);
		}
	}
	end = only_fast ? fast[rnd(8)] : ends[rnd(16)];
	if (Sides && !inner && b->nside < CCACHE_SIDE_MAX && rnd(8) == 0) {
		/* a side exit last: the block goes on to its fall-through */
		struct ccache_insn *ci = add_insn(b, at, DISASM_KIND_JCC);

		ccache_insn_set_target(ci, addr_near(at));
		b->exit[b->nexit++].target = ccache_insn_target(ci);
		b->side_push[b->nside] = (uint8_t)ccache_side_pushes(b->ins, b->n);
		b->side_n[b->nside++] = (uint8_t)b->n;
		return;
	}
	if (profile == 1 && rnd(8))
		end = DISASM_KIND_JCC;
	else if (profile == 2 && rnd(3) == 0)
		end = DISASM_KIND_CALL;
	else if (profile == 2 && rnd(2))
		end = DISASM_KIND_RET;
	{
		struct ccache_insn *ci = add_insn(b, at, end);
		uint64_t nlip = at + ci->len;

		if (end == DISASM_KIND_CALL || end == DISASM_KIND_JCC || end == DISASM_KIND_JMP ||
		    end == DISASM_KIND_JRCXZ || end == DISASM_KIND_LOOP) {
			ccache_insn_set_target(ci, end == DISASM_KIND_CALL && rnd(10) == 0 ? nlip : addr_near(at));
		}
		if ((end == DISASM_KIND_CALL && ccache_insn_target(ci) != nlip) || end == DISASM_KIND_CALL_IND)
			note_push(wd, nlip);
	}
}

/* The block starting at start, or -1 (a hash of the starts, made as
 * they come). */
static int64_t find(struct world *wd, uint64_t start)
{
	uint32_t h;

	if (wd->nh < wd->n) {
		free(wd->hk);
		free(wd->hv);
		wd->hcap = 4096;
		while (wd->hcap < 4 * wd->n)
			wd->hcap *= 2;
		wd->hk = calloc(wd->hcap, sizeof(*wd->hk));
		wd->hv = calloc(wd->hcap, sizeof(*wd->hv));
		for (uint32_t i = 0; i < wd->n; i++) {
			for (h = (uint32_t)(wd->blk[i].start * 0x9e3779b97f4a7c15ull >> 40) & (wd->hcap - 1);
			     wd->hk[h] && wd->hk[h] != wd->blk[i].start; h = (h + 1) & (wd->hcap - 1))
				;
			if (!wd->hk[h]) {
				wd->hk[h] = wd->blk[i].start;
				wd->hv[h] = i;
			}
		}
		wd->nh = wd->n;
	}
	for (h = (uint32_t)(start * 0x9e3779b97f4a7c15ull >> 40) & (wd->hcap - 1); wd->hk[h];
	     h = (h + 1) & (wd->hcap - 1))
		if (wd->hk[h] == start)
			return wd->hv[h];
	return -1;
}

/* Blocks in every area, and one at each return address and at each
 * conditional exit's fall-through. */
static void make_world(struct world *wd, uint32_t nb, int profile)
{
	memset(wd, 0, sizeof(*wd));
	for (uint32_t i = 0; i < nb; i++)
		new_block(wd, addr_in(i % 7 == 6 ? 2 : i % 3 == 2 ? 1 : 0), profile);
	for (uint32_t i = 0; i < wd->npush && wd->n < 4 * nb; i++)
		if (find(wd, wd->push_at[i]) < 0)
			new_block(wd, wd->push_at[i], profile);
	for (uint32_t i = 0, n = wd->n; i < n; i++) {
		const struct ccache_block *b = &wd->blk[i];
		const struct ccache_insn *ci = &b->ins[b->n - 1];

		if (ci->kind == DISASM_KIND_JCC && find(wd, ci->addr + ci->len) < 0) {
			new_block(wd, ci->addr + ci->len, profile);
			b = &wd->blk[i];	/* (moved) */
		}
		for (int k = 0; k < b->nside && wd->n < 6 * nb; k++)
			if (find(wd, b->exit[k].target) < 0) {
				new_block(wd, b->exit[k].target, profile);
				b = &wd->blk[i];	/* (moved) */
			}
	}
}

static void free_world(struct world *wd)
{
	for (uint32_t i = 0; i < wd->n; i++)
		free(wd->blk[i].ins);
	free(wd->blk);
	free(wd->push_at);
	free(wd->hk);
	free(wd->hv);
}

/* Whether b's last instruction is a side exit's jcc. */
static int side_last(const struct ccache_block *b)
{
	int j = 0;

	for (int i = 0; i < b->n; i++)
		j += b->ins[i].kind == DISASM_KIND_JCC;
	return b->ins[b->n - 1].kind == DISASM_KIND_JCC && j <= b->nside;
}

/* n records: after a return, mostly the block the last call returns to
 * (a model stack, as the program's), after a conditional exit often its
 * fall-through. */
static uint32_t *walk(struct world *wd, size_t n)
{
	uint32_t *ids = malloc(n * sizeof(*ids));
	uint64_t stack[256];
	unsigned sp = 0;
	uint32_t cur = rnd(wd->n);

	for (size_t i = 0; i < n; i++) {
		const struct ccache_block *b = &wd->blk[cur];
		const struct ccache_insn *last = &b->ins[b->n - 1];
		int64_t nx = -1;

		int side = b->nside && i + 1 < n && rnd(Sides) == 0 ? (int)rnd(b->nside) : -1;
		/* (a side exit's jcc last: the block goes on to its
		 * fall-through, or leaves through a side exit) */
		int64_t fall = last->kind == DISASM_KIND_JCC ? find(wd, last->addr + last->len) : -1;

		if (b->nside && b->n && last->kind == DISASM_KIND_JCC && side < 0 && fall < 0 &&
		    b->ins[b->n - 1].kind == DISASM_KIND_JCC && i + 1 < n && side_last(b))
			side = (int)rnd(b->nside);

		ids[i] = cur;
		for (int k = 0, j = 0; k < b->n; k++) {
			const struct ccache_insn *ci = &b->ins[k];

			if (ci->kind == DISASM_KIND_JCC && j < b->nside && j++ == side)
				break;
			if ((ci->kind == DISASM_KIND_CALL && ccache_insn_target(ci) != ci->addr + ci->len) ||
			    (ci->kind == DISASM_KIND_CALL_IND && k == b->n - 1))
				stack[sp++ % 256] = ci->addr + ci->len;
		}
		if (side >= 0) {
			/* the side exit's record, then mostly its target */
			ids[++i] = CCACHE_REC_SIDE + (uint32_t)side;
			nx = rnd(4) ? find(wd, b->exit[side].target) : -1;
		} else if (last->kind == DISASM_KIND_RET && sp && rnd(8)) {
			nx = find(wd, stack[--sp % 256]);
		} else if (last->kind == DISASM_KIND_JCC && (rnd(2) || side_last(b))) {
			nx = fall;
		}
		cur = nx >= 0 ? (uint32_t)nx : rnd(wd->n);
	}
	return ids;
}

struct side {
	struct dbg_cache c;
	struct trace_swc_thread t;
	uint64_t gen;
};

static void side_init(struct side *s, const struct world *wd, struct plan **plans, size_t ring, size_t period,
		      int fast)
{
	memset(s, 0, sizeof(*s));
	s->c.blk = wd->blk;
	s->c.plan = plans;
	s->c.nblk = wd->n;
	s->c.rr0.cur = -1;
	s->c.rr = &s->c.rr0;
	if (fast) {
		s->c.pk = ccache_pkt_grow(NULL, 0, wd->n);
		for (uint32_t i = 0; i < wd->n; i++)
			ccache_pkt_plan(&wd->blk[i], &s->c.pk[i]);
	}
	trace_swc_init(&s->t, 1, 0, ring, period, 0, NULL);
	s->gen = 1;
	s->t.w.code_gen = &s->gen;
}

static void side_free(struct side *s)
{
	free(s->c.pk);
	trace_swc_release(&s->t);
}

/* The same bytes, state and counts. */
static int same(const struct side *a, const struct side *b)
{
	const struct trace_ptw *x = &a->t.w, *y = &b->t.w;

	if (a->t.ring.total != b->t.ring.total || a->t.ring.pos != b->t.ring.pos ||
	    memcmp(a->t.ring.buf, b->t.ring.buf, a->t.ring.size) != 0)
		return 0;
	if (x->tnt_bits != y->tnt_bits || x->tnt_n != y->tnt_n || x->last_ip != y->last_ip ||
	    x->last_ip_valid != y->last_ip_valid || x->stack_n != y->stack_n || x->stack_top != y->stack_top ||
	    x->packet_en != y->packet_en || x->last_psb != y->last_psb || x->cr3_said != y->cr3_said)
		return 0;
	for (unsigned i = 0; i < x->stack_n; i++) {
		unsigned k = (x->stack_top + TRACE_PTW_STACK - 1 - i) % TRACE_PTW_STACK;

		if (x->stack[k] != y->stack[k])
			return 0;
	}
	return a->t.insns == b->t.insns && a->t.transfers == b->t.transfers && a->t.next_ip == b->t.next_ip &&
	       a->c.rr0.cur == b->c.rr0.cur;
}

/* One run: nrec records in random pieces through both paths, with stops
 * between some; the first piece where they differ, or -1. */
static long compare(uint64_t seed, uint32_t nb, int profile, size_t nrec, size_t ring, size_t period,
		    unsigned stops)
{
	struct world wd;
	struct plan **plans;
	struct side *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	uint32_t *ids;
	long bad = -1, piece = 0;

	Rnd = seed;
	make_world(&wd, nb, profile);
	plans = malloc(wd.n * sizeof(*plans));
	for (uint32_t i = 0; i < wd.n; i++)
		plans[i] = dbg_cache_plan_new(&wd.blk[i]);
	ids = walk(&wd, nrec);
	for (unsigned k = 0; k < Stray; k++) {
		size_t at = 1 + rnd((uint32_t)nrec - 1);

		/* (both paths skip them; not beside a side exit's record,
		 * which always follows its block's in a ring: there the two
		 * paths differ on what a stray id means) */
		if (ccache_rec_side(ids[at]) < 0 && (at + 1 == nrec || ccache_rec_side(ids[at + 1]) < 0))
			ids[at] = wd.n + rnd(5);
	}
	side_init(a, &wd, plans, ring, period, 0);
	side_init(b, &wd, plans, ring, period, 1);
	trace_swc_resume(&a->t, wd.blk[ids[0]].start);
	trace_swc_resume(&b->t, wd.blk[ids[0]].start);
	for (size_t i = 0; i < nrec; piece++) {
		size_t k = 1 + rnd(rnd(4) ? 5000 : 8);

		if (k > nrec - i)
			k = nrec - i;
		dbg_cache_emit_ids(&a->c, &a->t, ids + i, k);
		dbg_cache_emit_ids(&b->c, &b->t, ids + i, k);
		i += k;
		if (!same(a, b)) {
			bad = piece;
			break;
		}
		if (i < nrec && stops && ccache_rec_side(ids[i]) < 0 && rnd(stops) == 0) {
			uint64_t pc = wd.blk[ids[i]].start;

			switch (rnd(4)) {
			case 0:	/* a stop: the last block's end written */
				dbg_cache_sync_done(&a->c, &a->t, pc);
				dbg_cache_sync_done(&b->c, &b->t, pc);
				trace_swc_pause(&a->t, pc);
				trace_swc_pause(&b->t, pc);
				trace_swc_resume(&a->t, pc);
				trace_swc_resume(&b->t, pc);
				break;
			case 1:	/* tracing off when the records come */
				trace_swc_pause(&a->t, pc);
				trace_swc_pause(&b->t, pc);
				break;
			case 2:	/* the code changed */
				a->gen++;
				b->gen++;
				dbg_cache_sync_done(&a->c, &a->t, pc);
				dbg_cache_sync_done(&b->c, &b->t, pc);
				trace_swc_code_moved(&a->t, pc);
				trace_swc_code_moved(&b->t, pc);
				break;
			default:	/* the records of a block written at a stop */
				dbg_cache_sync_done(&a->c, &a->t, pc);
				dbg_cache_sync_done(&b->c, &b->t, pc);
				break;
			}
			if (!same(a, b)) {
				bad = piece;
				break;
			}
		}
	}
	if (bad >= 0)
		printf("#   seed %llu profile %d: differ after piece %ld (old %llu bytes %llu insns, new %llu bytes"
		       " %llu insns)\n", (unsigned long long)seed, profile, bad, (unsigned long long)a->t.ring.total,
		       (unsigned long long)a->t.insns, (unsigned long long)b->t.ring.total,
		       (unsigned long long)b->t.insns);
	side_free(a);
	side_free(b);
	free(a);
	free(b);
	for (uint32_t i = 0; i < wd.n; i++)
		free(plans[i]);
	free(plans);
	free(ids);
	free_world(&wd);
	return bad;
}

TEST(plan_kinds)
{
	struct ccache_block b;
	struct ccache_insn ins[8];
	struct ccache_pkt p;

	memset(&b, 0, sizeof(b));
	memset(ins, 0, sizeof(ins));
	b.start = 0x1000;
	b.ins = ins;
	/* other; call 0x2000 (followed); other; jcc */
	ins[0] = insn(0x1000, 3, DISASM_KIND_OTHER, 0);
	ins[1] = insn(0x1003, 5, DISASM_KIND_CALL, 0x2000);
	ins[2] = insn(0x2000, 2, DISASM_KIND_OTHER, 0);
	ins[3] = insn(0x2002, 2, DISASM_KIND_JCC, 0x1000);
	b.n = 4;
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_COND);
	CHECK_INT(p.n, 4);
	CHECK_INT(p.npush, 1);
	CHECK_INT(p.start + (uint64_t)(int64_t)p.push[0], 0x1008);
	CHECK_INT(p.nlip, 0x2004);
	/* a call to the next instruction pushes nothing */
	ccache_insn_set_target(&ins[1], 0x1008);
	ins[2].addr = 0x1008;
	ins[3] = insn(0x100a, 2, DISASM_KIND_JCC, 0x1000);
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.npush, 0);
	/* ending in a call, a return, straight code */
	ins[3].kind = DISASM_KIND_CALL;
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_CALL);
	ins[3].kind = DISASM_KIND_RET;
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_RET);
	ins[3].kind = DISASM_KIND_OTHER;
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_NONE);
	/* a system call, a transfer before the last instruction: not planned */
	ins[3].kind = DISASM_KIND_SYSCALL;
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_SLOW);
	ins[3].kind = DISASM_KIND_JCC;
	ins[0].kind = DISASM_KIND_JRCXZ;
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_SLOW);
	/* a jcc inside the block: planned where it is a side exit's */
	ins[0].kind = DISASM_KIND_JCC;
	ccache_insn_set_target(&ins[0], 0x3000);
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_SLOW);
	b.nside = 1;
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_COND | 1 << CCACHE_PKT_SIDE_SHIFT);
	CHECK_INT(p.n, 4);
	b.nside = 2;	/* (the last one a side exit's too: on to its fall-through) */
	ccache_pkt_plan(&b, &p);
	CHECK_INT(p.kind, CCACHE_PKT_NONE | 2 << CCACHE_PKT_SIDE_SHIFT);
}

TEST(same_bytes_mixed)
{
	for (uint64_t seed = 1; seed <= 12; seed++)
		CHECK_INT(compare(seed, 200, 0, 60000, 8192, seed % 3 ? 64 : 4096, 40), -1);
}

TEST(same_bytes_loops)
{
	/* long runs of TNT bits: TNT-64 of 47, PSB+ right after one */
	for (uint64_t seed = 100; seed < 106; seed++)
		CHECK_INT(compare(seed, 40, 1, 80000, 4096, seed % 2 ? 64 : 256, 0), -1);
}

TEST(same_bytes_calls)
{
	/* deep and wrapping shadow stacks, returns compressed or not */
	for (uint64_t seed = 200; seed < 208; seed++)
		CHECK_INT(compare(seed, 300, 2, 80000, 16384, seed % 2 ? 4096 : 128, seed % 2 ? 0 : 25), -1);
}

TEST(same_bytes_stray_ids)
{
	/* a record that names no block (a stray store into the ring) is
	 * skipped the same way by both paths */
	Stray = 50;
	for (uint64_t seed = 400; seed < 404; seed++)
		CHECK_INT(compare(seed, 120, (int)(seed % 3), 20000, 4096, 64, 20), -1);
	Stray = 0;
}

TEST(same_bytes_side_exits)
{
	/* blocks that run on past conditional branches: side exits taken
	 * (their records) or not, TNT packets and PSB+ among their bits,
	 * pushes on both sides of a PSB+, a side exit last */
	for (uint64_t seed = 500; seed < 512; seed++) {
		Sides = 1 + (unsigned)(seed % 4);
		CHECK_INT(compare(seed, 150, (int)(seed % 3), 60000, 4096, seed % 2 ? 64 : 512, seed % 3 ? 30 : 0), -1);
	}
	Stray = 30;
	for (uint64_t seed = 520; seed < 524; seed++) {
		Sides = 2;
		CHECK_INT(compare(seed, 100, (int)(seed % 3), 20000, 4096, 64, 3), -1);
	}
	Stray = 0;
	Sides = 0;
}

TEST(same_bytes_one_at_a_time)
{
	/* every piece one record, stops often */
	for (uint64_t seed = 300; seed < 304; seed++)
		CHECK_INT(compare(seed, 100, (int)(seed % 3), 4000, 4096, 64, 3), -1);
}

static double ns_per_record(const struct world *wd, struct plan **plans, const uint32_t *ids, size_t n, int fast)
{
	struct side *s = malloc(sizeof(*s));
	struct timespec t0, t1;

	side_init(s, wd, plans, 1u << 20, 4096, fast);
	trace_swc_resume(&s->t, wd->blk[ids[0]].start);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (size_t i = 0; i < n; i += 65536)
		dbg_cache_emit_ids(&s->c, &s->t, ids + i, n - i < 65536 ? n - i : 65536);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	side_free(s);
	free(s);
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n;
}

TEST(cost)
{
	static const char *names[] = { "loops", "calls" };

	for (int profile = 3; profile < 5; profile++) {
		struct world wd;
		struct plan **plans;
		uint32_t *ids;
		size_t n = 2000000;
		double old, new;

		Rnd = 42 + (uint64_t)profile;
		make_world(&wd, 150, profile);
		plans = malloc(wd.n * sizeof(*plans));
		for (uint32_t i = 0; i < wd.n; i++)
			plans[i] = dbg_cache_plan_new(&wd.blk[i]);
		ids = walk(&wd, n);
		old = ns_per_record(&wd, plans, ids, n, 0);
		new = ns_per_record(&wd, plans, ids, n, 1);
		printf("#   %s: %.2f ns per record instruction by instruction, %.2f through the plans (CPU time)\n",
		       names[profile - 3], old, new);
		for (uint32_t i = 0; i < wd.n; i++)
			free(plans[i]);
		free(plans);
		free(ids);
		free_world(&wd);
	}
}

TEST_MAIN(plan_kinds, same_bytes_mixed, same_bytes_loops, same_bytes_calls, same_bytes_stray_ids,
	  same_bytes_side_exits, same_bytes_one_at_a_time, cost)
