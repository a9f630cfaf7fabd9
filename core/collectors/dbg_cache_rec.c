/* core/collectors/dbg_cache_rec.c: the cache engine's records turned into the trace.
 * A thread in the cache writes one 4-byte block id per block it runs into
 * its record buffer (and a side exit's record where a block left through
 * one, trace/ccache.h); at each drain the ids become the same trace_swc_*
 * calls the ptrace engine makes (through each block's packet plan,
 * trace/ccache_pkt.c, or its compact plan of instructions), so
 * the packet stream is byte for byte the ptrace engine's.  And the
 * engine's time figures (dump info -v). */
#include "core/collectors/dbg_cache.h"
#include "trace/ccache.h"
#include "trace/swc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/collectors/dbg_cache_int.h"

uint64_t dbg_cache_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t dbg_cache_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The CPU time thread t has run, from its schedstat (kept open); 0 if
 * unknown. */
uint64_t dbg_cache_thread_cpu_ns(struct dbg_cache *c, pid_t pid, pid_t t)
{
	char buf[96];
	unsigned long long v = 0;
	ssize_t n;

	if (c->sched_fd > 0 && c->sched_tid != t) {
		close(c->sched_fd);
		c->sched_fd = 0;
	}
	if (c->sched_fd <= 0) {
		snprintf(buf, sizeof(buf), "/proc/%d/task/%d/schedstat", (int)pid, (int)t);
		c->sched_fd = open(buf, O_RDONLY | O_CLOEXEC);
		c->sched_tid = t;
		if (c->sched_fd <= 0) {
			c->sched_fd = 0;
			return 0;
		}
	}
	n = pread(c->sched_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (sscanf(buf, "%llu", &v) != 1)
		v = 0;
	return v;
}

/* ---- records -> instructions ---- */

/* The first k instructions of b; the k-th goes on to next (a side
 * exit's jcc: its target).  Runs of instructions that write no packets
 * are counted at once. */
void dbg_cache_emit(struct trace_swc_thread *th, const struct ccache_block *b, int k, uint64_t next)
{
	int run = 0;

	for (int i = 0; i < k && i < b->n; i++) {
		const struct ccache_insn *ci = &b->ins[i];
		uint64_t to = i + 1 < k && i + 1 < b->n ? b->ins[i + 1].addr : next;
		struct disasm_insn in;

		if ((ci->kind == DISASM_KIND_OTHER && to == ci->addr + ci->len) ||
		    (ci->kind == DISASM_KIND_JMP && ci->has_target && to == ccache_insn_target(ci))) {
			if (i + 1 < k && i + 1 < b->n) {
				run++;
				continue;
			}
			if (trace_swc_straight(th, (uint64_t)run + 1, to) == 0)
				return;
		} else if (run && trace_swc_straight(th, (uint64_t)run, ci->addr) == 0) {
			run = 0;
		}
		/* the run (if it could not be counted at once), then this one */
		for (int j = i - run; j <= i; j++) {
			ci = &b->ins[j];
			memset(&in, 0, sizeof(in));
			in.addr = ci->addr;
			in.len = ci->len;
			in.kind = (enum disasm_kind)ci->kind;
			in.has_target = ci->has_target;
			in.target = ccache_insn_target(ci);
			trace_swc_executed(th, &in, j + 1 < k && j + 1 < b->n ? b->ins[j + 1].addr : next);
		}
		run = 0;
	}
}

/* b's compact plan (xmalloc'd): the instructions that write packets,
 * each after the run of those that do not. */
struct plan *dbg_cache_plan_new(const struct ccache_block *b)
{
	int np = 0, prev = 0, k = 0, side = 0;
	struct plan *pl;

	for (int i = 0; i < b->n; i++)
		np += b->ins[i].kind != DISASM_KIND_OTHER && b->ins[i].kind != DISASM_KIND_JMP;
	pl = xmalloc(sizeof(*pl) + (size_t)np * sizeof(pl->seg[0]));
	pl->start = b->start;
	pl->nseg = (uint32_t)np;
	for (int i = 0; i < b->n; i++) {
		const struct ccache_insn *ci = &b->ins[i];

		uint64_t next = i + 1 < b->n ? b->ins[i + 1].addr : 0;

		if (ci->kind == DISASM_KIND_OTHER || ci->kind == DISASM_KIND_JMP)
			continue;
		/* (a side exit's jcc last: not taken, or its record would
		 * have said so) */
		if (ci->kind == DISASM_KIND_JCC && side++ < b->nside && !next)
			next = ci->addr + ci->len;
		pl->seg[k] = (struct seg){ ci->addr, ccache_insn_target(ci), next,
					   (uint32_t)(i - prev), (uint32_t)i, ci->len, ci->kind, ci->has_target };
		k++;
		prev = i + 1;
	}
	pl->tail = (uint32_t)(b->n - prev);
	return pl;
}

static void emit_one(struct trace_swc_thread *th, const struct ccache_insn *ci, uint64_t next)
{
	struct disasm_insn in;

	in.addr = ci->addr;
	in.len = ci->len;
	in.kind = (enum disasm_kind)ci->kind;
	in.has_target = ci->has_target;
	in.target = ccache_insn_target(ci);
	trace_swc_executed(th, &in, next);
}

/* Instructions [from, to) of block id one by one (a run that could not
 * be counted at once: a PSB+ is due in it). */
static void emit_each(struct dbg_cache *c, struct trace_swc_thread *th, int64_t id, int from, int to,
		      uint64_t next)
{
	const struct ccache_block *b = &c->blk[id];

	for (int j = from; j < to; j++)
		emit_one(th, &b->ins[j], j + 1 < b->n ? b->ins[j + 1].addr : next);
}

/* Block id's compact plan, made at its first use where its packet plan
 * serves it (the compact one is then for the rare record that the packet
 * plan does not take: a PSB+ due, tracing off).  (Drainers may read
 * records at once, under the engine's read lock: one plan kept.) */
static const struct plan *plan_of(struct dbg_cache *c, int64_t id)
{
	struct plan *pl = __atomic_load_n(&c->plan[id], __ATOMIC_ACQUIRE), *none = NULL;

	if (pl)
		return pl;
	pl = dbg_cache_plan_new(&c->blk[id]);
	if (__atomic_compare_exchange_n(&c->plan[id], &none, pl, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return pl;
	free(pl);
	return none;
}

/* All of block id, going on to next: the runs between the instructions
 * that write packets are counted at once. */
static void emit_all(struct dbg_cache *c, struct trace_swc_thread *th, int64_t id, uint64_t next)
{
	const struct plan *pl = plan_of(c, id);
	struct disasm_insn in;

	for (uint32_t k = 0; k < pl->nseg; k++) {
		const struct seg *sg = &pl->seg[k];

		if (trace_swc_transfer(th, sg->run, sg->kind, sg->addr, sg->len, sg->has_target ? sg->target : 0,
				       sg->next ? sg->next : next) != -1)
			continue;
		if (sg->run && trace_swc_straight(th, sg->run, sg->addr) < 0)
			emit_each(c, th, id, (int)(sg->idx - sg->run), (int)sg->idx, next);
		in.addr = sg->addr;
		in.len = sg->len;
		in.kind = (enum disasm_kind)sg->kind;
		in.has_target = sg->has_target;
		in.target = sg->target;
		trace_swc_executed(th, &in, sg->next ? sg->next : next);
	}
	if (pl->tail && trace_swc_straight(th, pl->tail, next) < 0) {
		int n = c->blk[id].n;

		emit_each(c, th, id, n - (int)pl->tail, n, next);
	}
}

/* Block b's side exit k taken: its instructions up to that jcc, the
 * jcc going to its target. */
void dbg_cache_emit_side(struct trace_swc_thread *th, const struct ccache_block *b, int k)
{
	for (int i = 0, j = 0; i < b->n; i++)
		if (b->ins[i].kind == DISASM_KIND_JCC && j++ == k) {
			dbg_cache_emit(th, b, i + 1, b->exit[k].target);
			return;
		}
}

/* Records ids[0..n) into the trace: every block but the last is complete
 * (it went on to the next one's start), or a side exit's record after it
 * says where it left.  Through the blocks' packet plans
 * (trace/ccache_pkt.c) where they serve, else a record at a time through
 * the per-instruction path (c->pk NULL: always). */
void dbg_cache_rr_emit(struct dbg_cache *c, struct rring *rr, struct trace_swc_thread *th, const uint32_t *ids,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (c->pk && (i += ccache_pkt_run(c->pk, c->nblk, c->blk, th, ids + i, n - i, &rr->cur)) == n)
			break;
		if (ids[i] >= c->nblk) {
			int k = ccache_rec_side(ids[i]);

			/* (a side exit's record right after its block's; any
			 * other id cannot happen: the ids are ours) */
			if (k >= 0 && rr->cur >= 0 && k < c->blk[rr->cur].nside) {
				dbg_cache_emit_side(th, &c->blk[rr->cur], k);
				rr->cur = -1;
			}
			continue;
		}
		if (i + 4 < n && ids[i + 4] < c->nblk)
			__builtin_prefetch(c->plan[ids[i + 4]]);
		if (rr->cur >= 0)
			emit_all(c, th, rr->cur, c->blk[ids[i]].start);
		rr->cur = ids[i];
	}
}

/* The same for the running thread's ring (c->rr). */
void dbg_cache_emit_ids(struct dbg_cache *c, struct trace_swc_thread *th, const uint32_t *ids, size_t n)
{
	dbg_cache_rr_emit(c, c->rr, th, ids, n);
}

uint64_t dbg_cache_rr_head(struct dbg_cache *c, const struct rring *rr)
{
	uint64_t h = 0;

	if (rr->map)
		h = __atomic_load_n((uint64_t *)(rr->map + CCACHE_RING_HEAD), __ATOMIC_ACQUIRE);
	else if (target_read_mem(c->d->proc, rr->hdr + CCACHE_RING_HEAD, &h, 8, NULL) < 0)
		return 0;
	return ccache_ring_head_ok(&rr->ring, h) ? h : 0;
}

uint64_t dbg_cache_ring_head(struct dbg_cache *c)
{
	return dbg_cache_rr_head(c, c->rr);
}

uint32_t *dbg_cache_rr_word(const struct rring *rr)
{
	return rr->map ? (uint32_t *)(rr->map + CCACHE_RING_WORD) : NULL;
}

uint32_t *dbg_cache_ring_word(struct dbg_cache *c)
{
	return dbg_cache_rr_word(c->rr);
}

int dbg_cache_rr_set(struct dbg_cache *c, struct rring *rr, uint64_t head, uint64_t lim)
{
	uint64_t neg = (uint64_t)0 - lim;

	if (rr->map) {
		uint64_t h = head ? head : __atomic_load_n((uint64_t *)(rr->map + CCACHE_RING_HEAD), __ATOMIC_ACQUIRE);

		if (head)
			__atomic_store_n((uint64_t *)(rr->map + CCACHE_RING_HEAD), head, __ATOMIC_RELAXED);
		/* (the thread waits or is stopped: the head stays) */
		__atomic_store_n((uint64_t *)(rr->map + CCACHE_RING_WRAPNEG), (uint64_t)0 - ccache_ring_wrap(&rr->ring, h),
				 __ATOMIC_RELAXED);
		__atomic_store_n((uint64_t *)(rr->map + CCACHE_RING_LIMNEG), neg, __ATOMIC_RELAXED);
		__atomic_store_n((uint64_t *)(rr->map + CCACHE_RING_TAIL), rr->ring.tail, __ATOMIC_RELEASE);
		return 0;
	}
	if (head && target_write_mem(c->d->proc, rr->hdr + CCACHE_RING_HEAD, &head, 8, NULL) < 0)
		return -1;
	return target_write_mem(c->d->proc, rr->hdr + CCACHE_RING_LIMNEG, &neg, 8, NULL);
}

int dbg_cache_ring_set(struct dbg_cache *c, uint64_t head, uint64_t lim)
{
	return dbg_cache_rr_set(c, c->rr, head, lim);
}

/* ptdb's own mapping of [a, a + n) in the program: where it lies in the
 * slot pool shared with ptdb (dbg_cache_gs.c: each thread's ring is
 * there), else NULL (the ring is the program's alone). */
static const uint8_t *ring_local(const struct dbg_cache *c, uint64_t a, uint64_t n)
{
	if (!c->gs_map || !c->gs_shared || a < c->gs_shared || n > GS_SHARED_BYTES ||
	    a - c->gs_shared > GS_SHARED_BYTES - n)
		return NULL;
	return c->gs_map + (a - c->gs_shared);
}

/* The records in span[0..k) (n in all) into ids: copied from ptdb's
 * own mapping of the ring where it is shared, else read out of the
 * process.  The head was loaded with acquire semantics
 * (dbg_cache_ring_head) and the stub stores a record before the head
 * that publishes it (x86 keeps stores in order), so every record below
 * the head is whole before it is read here; none past it is read.  A
 * copy, not the mapping itself: the program could write over a record
 * while it is turned into packets (a stray store), and the packet
 * writer reads an id more than once.  1 (copied from the mapping), 0
 * (read out of the process), or -1. */
static int ring_copy(struct dbg_cache *c, uint32_t *ids, uint64_t span[2][2], int k, size_t n)
{
	struct iovec lo[2], ro[2];
	const uint8_t *m[2];
	size_t at = 0;
	int local = 1;

	for (int i = 0; i < k; i++) {
		uint64_t len = span[i][1] - span[i][0];

		lo[i] = (struct iovec){ (uint8_t *)ids + at, len };
		ro[i] = (struct iovec){ (void *)(uintptr_t)span[i][0], len };
		m[i] = ring_local(c, span[i][0], len);
		local = local && m[i];
		at += len;
	}
	if (local) {
		for (int i = 0; i < k; i++)
			memcpy(lo[i].iov_base, m[i], lo[i].iov_len);
		return 1;
	}
	/* (process_vm_readv copies at memory speed, /proc/PID/mem goes a
	 * page at a time) */
	if (process_vm_readv(c->d->pid, lo, (unsigned long)k, ro, (unsigned long)k, 0) == (ssize_t)(n * 4))
		return 0;
	for (int i = 0; i < k; i++)
		if (target_read_mem(c->d->proc, span[i][0], lo[i].iov_base, lo[i].iov_len, NULL) < 0)
			return -1;
	return 0;
}

/* After records were copied (the stub may write over them now: they are
 * turned into packets from the copy, while it runs on): the limit for a
 * wrap and the tail published, then the limit raised as far as they
 * allow (release stores, after the reads of the records).  The limit is
 * read before the head (the ring stub moves the head before the limit
 * at a wrap), both now: a limit below the end cannot change under the
 * reader (the stub wraps only at the end), and a head read before a
 * wrap would raise a wrapped head's limit to the end, over records not
 * read.  The stub meets the limit only when the ring is full, or at its
 * end with too little read at the start. */
static void raise_limit(struct rring *rr)
{
	uint64_t *neg = (uint64_t *)(rr->map + CCACHE_RING_LIMNEG);
	uint64_t cur = (uint64_t)0 - __atomic_load_n(neg, __ATOMIC_ACQUIRE);
	uint64_t h = __atomic_load_n((uint64_t *)(rr->map + CCACHE_RING_HEAD), __ATOMIC_ACQUIRE), w, lim;

	if (!ccache_ring_head_ok(&rr->ring, h))
		return;
	w = ccache_ring_wrap(&rr->ring, h);
	__atomic_store_n((uint64_t *)(rr->map + CCACHE_RING_WRAPNEG), (uint64_t)0 - w, __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)(rr->map + CCACHE_RING_TAIL), rr->ring.tail, __ATOMIC_RELEASE);
	lim = ccache_ring_limit(&rr->ring, h);
	if (h != rr->ring.end && cur < lim)
		__atomic_store_n(neg, (uint64_t)0 - lim, __ATOMIC_RELEASE);
}

/* Up to max of the records the stub wrote into ring rd->rr, through
 * rd's buffer (REC_BYTES), into trace th: the number, or -1.  Each ring
 * has one reader at a time (dbg_cache_live.c); several rings may be read
 * at once, each into its own trace, while no block is translated. */
long dbg_cache_rd_read(struct dbg_cache *c, const struct reader *rd, struct trace_swc_thread *th, size_t max)
{
	struct rring *rr = rd->rr;
	uint64_t h = dbg_cache_rr_head(c, rr), span[2][2], t0 = dbg_cache_now_ns();
	size_t n = 0;
	int k, mapped;

	if (!h)
		return -1;
	k = ccache_ring_spans(&rr->ring, h, max, span);
	if (!k)
		return 0;
	for (int i = 0; i < k; i++)
		n += (span[i][1] - span[i][0]) / 4;
	if ((mapped = ring_copy(c, rd->ids, span, k, n)) < 0)
		return -1;
	ccache_ring_consumed(&rr->ring, h, n);
	if (rr->map)
		raise_limit(rr);
	dbg_cache_rr_emit(c, rr, th, rd->ids, n);
	rd->st->records += n;
	rd->st->records_mapped += mapped ? n : 0;
	rd->st->packet_ns += dbg_cache_now_ns() - t0;
	return (long)n;
}

/* The same for the running thread's ring (c->rr), through the engine's
 * buffer (one for every read: a fresh one would be fresh pages, each
 * faulted in). */
long dbg_cache_ring_read(struct dbg_cache *c, struct trace_swc_thread *th, size_t max)
{
	struct reader rd = { c->rr, c->ids, &c->st };

	if (!c->ids)
		rd.ids = c->ids = xmalloc(REC_BYTES);
	return dbg_cache_rd_read(c, &rd, th, max);
}

/* Reads every record the stub wrote (the thread stopped): 0, or -1 on
 * a broken ring. */
int dbg_cache_drain(struct dbg_cache *c, struct trace_swc_thread *th)
{
	long n;

	while ((n = dbg_cache_ring_read(c, th, REC_BYTES / 4)) > 0)
		;
	return n < 0 ? -1 : 0;
}

/* The last block ran to its end and went on to pc. */
void dbg_cache_sync_done(struct dbg_cache *c, struct trace_swc_thread *th, uint64_t pc)
{
	if (c->rr->cur >= 0)
		emit_all(c, th, c->rr->cur, pc);
	c->rr->cur = -1;
}
