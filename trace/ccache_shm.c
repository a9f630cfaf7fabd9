/* trace/ccache_shm.c: misses served without a stop (see ccache.h).  A
 * lookup miss in the dispatcher, and a direct exit whose target is not
 * translated yet (its stub puts the target in slot T and goes through
 * the dispatcher), post a request in the control page (a page of a memfd
 * the tracer maps too: target, region, then the request word set to 1
 * with xchg) and wait on the word with FUTEX_WAIT; the tracer's thread
 * translates, enters the block in the region's lookup table, sets the
 * word to 0 (served: the dispatcher probes again) or 2 (leave the cache:
 * the miss trap, as without the service) and wakes it.  While the tracer
 * does not serve, the word stays 2 and the stub goes straight to the
 * trap.  Nothing here touches the flags (mov, lea, xchg, jrcxz, jmp; the
 * kernel gives them back across SYSCALL), the stack or the red zone;
 * rdi, rsi, r10 and r11 (the futex calls' registers) are kept in slots
 * (the region's, or the thread's: CCACHE_GS), rax, rcx and rdx in the
 * dispatcher's.  The ring stub (ccache_ring_code) is the same wait for
 * the record ring: a record stub whose head met the ring's limit
 * (trace/ccache_ring.h) posts in the ring's word, wakes the tracer's
 * thread and waits until it has moved head and limit, or takes its trap;
 * rdx too in a slot, rax and rcx in the record stub's.  At the ring's
 * end it goes back to the start by itself when the tracer allows it. */
#include "trace/ccache.h"
#include "trace/ccache_emit.h"
#include "trace/ccache_ring.h"

#include <string.h>

/* mov %reg,slot (store 1) or mov slot,%reg: rex, then modrm's reg field;
 * the slot off of region, RIP-relative or at %gs:off (CCACHE_GS) */
static void slot(struct ccache_emit *o, uint8_t rex, int store, int reg, uint64_t region, uint32_t off)
{
	ccache_put_slot(o, (const uint8_t[]){ rex, store ? 0x89 : 0x8b, (uint8_t)((reg & 7) << 3 | 5) }, 3,
			region, off);
}

/* r11, rdi, rsi, r10 into their slots, or back */
static void keep(struct ccache_emit *o, uint64_t region, int store)
{
	slot(o, 0x4c, store, 11, region, CCACHE_SLOT_R11);
	slot(o, 0x48, store, 7, region, CCACHE_SLOT_RDI);
	slot(o, 0x48, store, 6, region, CCACHE_SLOT_RSI);
	slot(o, 0x4c, store, 10, region, CCACHE_SLOT_R10);
}

/* futex(%rdi, op, 1, NULL): mov $202,%eax; mov $op,%esi; mov $1,%edx
 * (and mov $0,%r10d for a wait); syscall */
static void futex(struct ccache_emit *o, int op)
{
	ccache_put(o, (const uint8_t[]){ 0xb8, 202, 0, 0, 0, 0xbe }, 6);
	ccache_put32(o, (uint32_t)op);
	ccache_put(o, (const uint8_t[]){ 0xba, 1, 0, 0, 0 }, 5);
	if (op == 0)
		ccache_put(o, (const uint8_t[]){ 0x41, 0xba, 0, 0, 0, 0 }, 6);
	ccache_put(o, (const uint8_t[]){ 0x0f, 0x05 }, 2);
}

/* %rdi at a request word: the thread's own (off in its slot page, with
 * CCACHE_GS_CTL: mov %gs:SELF,%rdi; lea off(%rdi),%rdi), or abs. */
static void rdi_at(struct ccache_emit *o, uint64_t region, uint64_t abs, uint32_t off)
{
	if (region & CCACHE_GS_CTL) {
		ccache_put(o, (const uint8_t[]){ 0x65, 0x48, 0x8b, 0x3c, 0x25 }, 5);
		ccache_put32(o, CCACHE_SLOT_SELF);
		ccache_put(o, (const uint8_t[]){ 0x48, 0x8d, 0xbf }, 3);
		ccache_put32(o, off);
		return;
	}
	ccache_put(o, (const uint8_t[]){ 0x48, 0xbf }, 2);			/* movabs $abs,%rdi */
	ccache_put64(o, abs);
}

/* The post and wait both stubs share, %rdi at the word: 1 posted, the
 * word's old value back in ecx (2: nobody serves, the word put back);
 * the tracer woken at wake; a wait while the word stays 1; the kept
 * registers back from their slots (rdx too if asked); then a jrcxz to
 * the trap for nobody served.  post_end puts the trap and fixes the
 * jumps: the code's length, or 0. */
struct post {
	size_t j_off, j_wait, wait, j_tail, off, tail, j_trap;
};

static void post_wait(struct ccache_emit *o, uint64_t region, uint64_t word, uint32_t off, uint64_t wake,
		      int rdx, struct post *p)
{
	int own = (region & CCACHE_GS_CTL) != 0;

	ccache_put(o, (const uint8_t[]){ 0xb9, 1, 0, 0, 0, 0x87, 0x0f }, 7);	/* mov $1,%ecx; xchg %ecx,(%rdi) */
	ccache_put(o, (const uint8_t[]){ 0x48, 0x8d, 0x49, 0xfe }, 4);	/* lea -2(%rcx),%rcx */
	p->j_off = o->n;
	ccache_put(o, (const uint8_t[]){ 0xe3, 0 }, 2);			/* jrcxz off */
	if (own || wake != word) {
		ccache_put(o, (const uint8_t[]){ 0x48, 0xbf }, 2);		/* movabs $wake,%rdi */
		ccache_put64(o, wake);
	}
	if (own)	/* the doorbell rung: mov $1,%ecx; xchg %ecx,(%rdi) */
		ccache_put(o, (const uint8_t[]){ 0xb9, 1, 0, 0, 0, 0x87, 0x0f }, 7);
	futex(o, 1);							/* FUTEX_WAKE the tracer */
	if (own || wake != word)
		rdi_at(o, region, word, off);
	p->wait = o->n;
	futex(o, 0);							/* FUTEX_WAIT while 1 */
	ccache_put(o, (const uint8_t[]){ 0x8b, 0x0f, 0x48, 0x8d, 0x49, 0xff }, 6);	/* mov (%rdi),%ecx; lea -1 */
	p->j_wait = o->n;
	ccache_put(o, (const uint8_t[]){ 0xe3, 0 }, 2);			/* jrcxz wait: still 1 */
	p->j_tail = o->n;
	ccache_put(o, (const uint8_t[]){ 0xeb, 0 }, 2);			/* jmp tail */
	p->off = o->n;
	ccache_put(o, (const uint8_t[]){ 0xc7, 0x07, 2, 0, 0, 0 }, 6);	/* movl $2,(%rdi): as it was */
	ccache_put(o, (const uint8_t[]){ 0xb9, 1, 0, 0, 0 }, 5);		/* mov $1,%ecx: 2 - 1 */
	p->tail = o->n;
	ccache_put(o, (const uint8_t[]){ 0x48, 0x8d, 0x49, 0xff }, 4);	/* lea -1(%rcx),%rcx: 0 if 2 */
	keep(o, region, 0);
	if (rdx)
		slot(o, 0x48, 0, 2, region, CCACHE_SLOT_RDX);
	p->j_trap = o->n;
	ccache_put(o, (const uint8_t[]){ 0xe3, 0 }, 2);			/* jrcxz trap */
}

static size_t post_end(struct ccache_emit *o, const struct post *p, uint32_t *trap_off)
{
	uint8_t *buf = o->p;

	*trap_off = (uint32_t)o->n;
	ccache_put(o, (const uint8_t[]){ 0xcc }, 1);
	if (o->bad || p->off - (p->j_off + 2) > 127 || p->tail - (p->j_tail + 2) > 127 ||
	    *trap_off - (p->j_trap + 2) > 127)
		return 0;
	buf[p->j_off + 1] = (uint8_t)(p->off - (p->j_off + 2));
	buf[p->j_wait + 1] = (uint8_t)(int8_t)((int64_t)p->wait - (int64_t)(p->j_wait + 2));
	buf[p->j_tail + 1] = (uint8_t)(p->tail - (p->j_tail + 2));
	buf[p->j_trap + 1] = (uint8_t)(*trap_off - (p->j_trap + 2));
	return o->n;
}

size_t ccache_serve_code(uint64_t at, uint64_t region, uint64_t ctl, uint64_t probe, uint8_t *buf, size_t cap,
			 uint32_t *trap_off)
{
	struct ccache_emit o = { buf, 0, cap, at, 0 };
	struct post p;

	keep(&o, region, 1);
	rdi_at(&o, region, ctl + CCACHE_CTL_REQ, CCACHE_SLOT_CTL + CCACHE_CTL_REQ);
	slot(&o, 0x48, 0, 0, region, CCACHE_SLOT_T);			/* mov T,%rax */
	ccache_put(&o, (const uint8_t[]){ 0x48, 0x89, 0x47, CCACHE_CTL_TARGET - CCACHE_CTL_REQ }, 4);
	ccache_put(&o, (const uint8_t[]){ 0x48, 0xb8 }, 2);			/* movabs $region,%rax */
	ccache_put64(&o, ccache_region_addr(region));
	ccache_put(&o, (const uint8_t[]){ 0x48, 0x89, 0x47, CCACHE_CTL_REGION - CCACHE_CTL_REQ }, 4);
	post_wait(&o, region, ctl + CCACHE_CTL_REQ, CCACHE_SLOT_CTL + CCACHE_CTL_REQ,
		  region & CCACHE_GS_CTL ? ctl + CCACHE_CTL_BELL : ctl + CCACHE_CTL_REQ, 0, &p);
	ccache_put_rel(&o, (const uint8_t[]){ 0xe9 }, 1, probe);			/* served: probe again */
	return post_end(&o, &p, trap_off);
}

size_t ccache_exit_stub(uint64_t at, uint64_t region, uint64_t target, uint64_t dispatch, uint8_t *buf,
			size_t cap)
{
	struct ccache_emit o = { buf, 0, cap, at, 0 };

	slot(&o, 0x48, 1, 0, region, CCACHE_SLOT_A);
	ccache_put(&o, (const uint8_t[]){ 0x48, 0xb8 }, 2);			/* movabs $target,%rax */
	ccache_put64(&o, target);
	ccache_put_rel(&o, (const uint8_t[]){ 0xe9 }, 1, dispatch + ccache_dispatch_rax(region));
	return o.bad ? 0 : o.n;
}

/* jmp *slot */
static void jmp_slot(struct ccache_emit *o, uint64_t region, uint32_t off)
{
	if (region & CCACHE_GS) {
		ccache_put(o, (const uint8_t[]){ 0x65, 0xff, 0x24, 0x25 }, 4);
		ccache_put32(o, off);
	} else {
		ccache_put_rel(o, (const uint8_t[]){ 0xff, 0x25 }, 2, region + off);
	}
}

/* mov field,%reg (reg 0: rax, 1: rcx) of the ring's header: the
 * thread's at %gs:, or movabs from ring (through rax) */
static void hdr_load(struct ccache_emit *o, uint64_t region, uint64_t ring, uint32_t f, int reg)
{
	if (region & CCACHE_GS_CTL) {
		slot(o, 0x48, 0, reg, region, CCACHE_SLOT_CTL + CCACHE_CTL_RING + f);
		return;
	}
	ccache_put(o, (const uint8_t[]){ 0x48, 0xa1 }, 2);			/* movabs field,%rax */
	ccache_put64(o, ring + f);
	if (reg)
		ccache_put(o, (const uint8_t[]){ 0x48, 0x89, 0xc1 }, 3);	/* mov %rax,%rcx */
}

/* mov %rax,field of the ring's header */
static void hdr_store(struct ccache_emit *o, uint64_t region, uint64_t ring, uint32_t f)
{
	if (region & CCACHE_GS_CTL) {
		slot(o, 0x48, 1, 0, region, CCACHE_SLOT_CTL + CCACHE_CTL_RING + f);
		return;
	}
	ccache_put(o, (const uint8_t[]){ 0x48, 0xa3 }, 2);			/* movabs %rax,field */
	ccache_put64(o, ring + f);
}

/* o->p[j + 1], a jrcxz's or short jmp's rel8 at j, pointed here */
static void rel8_here(struct ccache_emit *o, size_t j)
{
	if (o->n - (j + 2) > 127)
		o->bad = 1;
	else if (!o->bad)
		o->p[j + 1] = (uint8_t)(o->n - (j + 2));
}

/* The head met its limit: at the ring's end, with a limit for the
 * wrap from the tracer (CCACHE_RING_WRAPNEG, not 0), the head goes to
 * the start and the limit to that one (the head first: a reader that
 * sees the new limit sees the new head), rax back and on at RRET: no
 * request, no wait.  Else on after this (the post).  About half the
 * requests were wraps, each a wake-up of the tracer and a wait. */
static void ring_wrap(struct ccache_emit *o, uint64_t region, uint64_t ring)
{
	size_t p1, p2;

	hdr_load(o, region, ring, CCACHE_RING_HEAD, 1);
	hdr_load(o, region, ring, CCACHE_RING_ENDNEG, 0);
	ccache_put(o, (const uint8_t[]){ 0x48, 0x8d, 0x0c, 0x08 }, 4);	/* lea (%rax,%rcx),%rcx */
	ccache_put(o, (const uint8_t[]){ 0xe3, 0x02 }, 2);			/* jrcxz end */
	p1 = o->n;
	ccache_put(o, (const uint8_t[]){ 0xeb, 0 }, 2);			/* jmp post */
	hdr_load(o, region, ring, CCACHE_RING_WRAPNEG, 1);		/* end: */
	p2 = o->n;
	ccache_put(o, (const uint8_t[]){ 0xe3, 0 }, 2);			/* jrcxz post */
	hdr_load(o, region, ring, CCACHE_RING_START, 0);
	hdr_store(o, region, ring, CCACHE_RING_HEAD);
	ccache_put(o, (const uint8_t[]){ 0x48, 0x89, 0xc8 }, 3);		/* mov %rcx,%rax */
	hdr_store(o, region, ring, CCACHE_RING_LIMNEG);
	slot(o, 0x48, 0, 0, region, CCACHE_SLOT_R);
	jmp_slot(o, region, CCACHE_SLOT_RRET);
	rel8_here(o, p1);
	rel8_here(o, p2);
}

/* The ring stub's check: rax into R, rcx = head - limit (the header's
 * head and negated limit: the thread's at %gs:, or movabs from ring);
 * short of the limit rax back and on at RRET; at it, the wrap by
 * itself at the ring's end (ring_wrap), else RRET into RB and
 * RRET pointed at the way back (*resume: the lea's offset, its disp32
 * fixed by the caller), then what follows (the post and wait). */
static void ring_check(struct ccache_emit *o, uint64_t region, uint64_t ring, size_t *resume)
{
	uint32_t hdr = CCACHE_SLOT_CTL + CCACHE_CTL_RING;
	size_t j;

	slot(o, 0x48, 1, 0, region, CCACHE_SLOT_R);
	if (region & CCACHE_GS_CTL) {
		slot(o, 0x48, 0, 1, region, hdr + CCACHE_RING_HEAD);
		slot(o, 0x48, 0, 0, region, hdr + CCACHE_RING_LIMNEG);
	} else {
		ccache_put(o, (const uint8_t[]){ 0x48, 0xa1 }, 2);		/* movabs head,%rax */
		ccache_put64(o, ring + CCACHE_RING_HEAD);
		ccache_put(o, (const uint8_t[]){ 0x48, 0x89, 0xc1, 0x48, 0xa1 }, 5);	/* mov %rax,%rcx; movabs */
		ccache_put64(o, ring + CCACHE_RING_LIMNEG);
	}
	ccache_put(o, (const uint8_t[]){ 0x48, 0x8d, 0x0c, 0x08 }, 4);	/* lea (%rax,%rcx),%rcx */
	j = o->n;
	ccache_put(o, (const uint8_t[]){ 0xe3, 0 }, 2);			/* jrcxz full */
	slot(o, 0x48, 0, 0, region, CCACHE_SLOT_R);
	jmp_slot(o, region, CCACHE_SLOT_RRET);
	if (o->n - (j + 2) > 127)
		o->bad = 1;
	else if (!o->bad)
		o->p[j + 1] = (uint8_t)(o->n - (j + 2));
	ring_wrap(o, region, ring);					/* full: */
	slot(o, 0x48, 0, 1, region, CCACHE_SLOT_RRET);			/* post: */
	slot(o, 0x48, 1, 1, region, CCACHE_SLOT_RB);
	*resume = o->n;
	ccache_put(o, (const uint8_t[]){ 0x48, 0x8d, 0x0d, 0, 0, 0, 0 }, 7);	/* lea resume(%rip),%rcx */
	slot(o, 0x48, 1, 1, region, CCACHE_SLOT_RRET);
}

size_t ccache_ring_code(uint64_t at, uint64_t region, uint64_t ring, uint64_t wake, uint8_t *buf, size_t cap,
			uint32_t *trap_off)
{
	struct ccache_emit o = { buf, 0, cap, at, 0 };
	struct post p;
	size_t resume, n;
	int32_t d;

	ring_check(&o, region, ring, &resume);
	keep(&o, region, 1);
	slot(&o, 0x48, 1, 2, region, CCACHE_SLOT_RDX);
	rdi_at(&o, region, ring + CCACHE_RING_WORD, CCACHE_SLOT_CTL + CCACHE_CTL_RING + CCACHE_RING_WORD);
	post_wait(&o, region, ring + CCACHE_RING_WORD, CCACHE_SLOT_CTL + CCACHE_CTL_RING + CCACHE_RING_WORD, wake,
		  1, &p);
	jmp_slot(&o, region, CCACHE_SLOT_RRET);				/* served: the way back */
	if (!(n = post_end(&o, &p, trap_off)))
		return 0;
	/* the way back: rax back, on in the record stub */
	d = (int32_t)(o.n - (resume + 7));
	memcpy(buf + resume + 3, &d, 4);
	slot(&o, 0x48, 0, 0, region, CCACHE_SLOT_R);
	jmp_slot(&o, region, CCACHE_SLOT_RB);
	return o.bad ? 0 : o.n;
}
