/* trace/ccache.c: the cache engine's translator (see ccache.h): original
 * basic blocks in, cache code out.  Every stub it writes keeps the flags,
 * the stack and the red zone: it saves a register into a slot of its
 * region (RIP-relative), uses lea rather than add, and leaves rsp alone
 * except where the original transfer moves it. */
#include "trace/ccache.h"
#include "trace/ccache_emit.h"
#include "trace/ccache_ring.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

/* mov %reg, slot / mov slot, %reg for rax (0), rcx (1), rdx (2) */
static void save(struct ccache_emit *e, int reg, uint64_t region, uint32_t off)
{
	ccache_put_slot(e, (const uint8_t[]){ 0x48, 0x89, (uint8_t)(0x05 | reg << 3) }, 3, region, off);
}

static void load(struct ccache_emit *e, int reg, uint64_t region, uint32_t off)
{
	ccache_put_slot(e, (const uint8_t[]){ 0x48, 0x8b, (uint8_t)(0x05 | reg << 3) }, 3, region, off);
}

/* Whether in uses the gs segment (a prefix, rdgsbase, wrgsbase): with
 * per-thread slots it would see the slot page. */
static int uses_gs(const struct disasm_insn *in)
{
	for (int i = 0; i < in->len; i++) {
		uint8_t b = in->bytes[i];

		if (b == 0x65)
			return 1;
		if (b != 0x66 && b != 0x67 && b != 0xf0 && b != 0xf2 && b != 0xf3 && b != 0x2e && b != 0x36 &&
		    b != 0x3e && b != 0x26 && b != 0x64 && (b & 0xf0) != 0x40)
			break;
	}
	return !strncmp(in->mnemonic, "rdgsbase", 8) || !strncmp(in->mnemonic, "wrgsbase", 8);
}

static void jmp_to(struct ccache_emit *e, uint64_t dest)
{
	ccache_put_rel(e, (const uint8_t[]){ 0xe9 }, 1, dest);
	/* (rip_insn computes rel32 = dest - end, as for a disp32) */
}

/* Whether in's RIP-relative operand is one the copier moves: a disp32
 * right after a ModRM of mod 00, r/m 101, no address-size prefix (that
 * would make it EIP-relative).  The bytes decide, not the decoder's
 * riprel_odd: capstone gives some 0x66-prefixed forms (cmpw $0, x(%rip),
 * paddq x(%rip), %xmm0, movdqa) a displacement size other than 4. */
static int riprel_movable(const struct disasm_insn *in)
{
	if (!in->riprel_off)
		return !in->riprel_odd;
	if (in->riprel_off < 2 || in->riprel_off + 4u > in->len || (in->bytes[in->riprel_off - 1] & 0xc7) != 0x05)
		return 0;
	for (int i = 0; i < in->riprel_off - 1; i++) {
		uint8_t b = in->bytes[i];

		if (b == 0x67)
			return 0;
		if (b != 0x66 && b != 0xf0 && b != 0xf2 && b != 0xf3 && b != 0x2e && b != 0x36 &&
		    b != 0x3e && b != 0x26 && b != 0x64 && b != 0x65)
			break;	/* the opcode (and REX/VEX/EVEX) */
	}
	return 1;
}

int ccache_translatable(const struct disasm_insn *in)
{
	switch (in->kind) {
	case DISASM_KIND_SYSCALL: case DISASM_KIND_INT: case DISASM_KIND_FAR:
	case DISASM_KIND_HLT: case DISASM_KIND_UD:
		return 0;
	case DISASM_KIND_JMP: case DISASM_KIND_CALL: case DISASM_KIND_JCC:
	case DISASM_KIND_JRCXZ: case DISASM_KIND_LOOP:
		/* (a target out of an int32 of the next pc: not a rel8/rel32
		 * x86-64 decodes, and more than struct ccache_insn holds) */
		return in->has_target && (int64_t)(in->target - (in->addr + in->len)) ==
						 (int32_t)(in->target - (in->addr + in->len));
	default:
		break;
	}
	/* xbegin's abort address is relative to it */
	if (!strncmp(in->mnemonic, "xbegin", 6) || !riprel_movable(in))
		return 0;
	return 1;
}

/* The operand of an indirect jmp or call as "mov X, %rax": the original prefixes that
 * matter (segment, address size), REX.W with the original X/B bits, 8b,
 * the ModRM with reg = rax, then SIB and displacement as they were.
 * -1 if the bytes are not the expected ff /2 or ff /4 form. */
static int ind_to_mov(struct ccache_emit *e, const struct disasm_insn *in)
{
	const uint8_t *b = in->bytes;
	size_t i = 0, rest;
	uint8_t pre[4], rex = 0x48;
	size_t np = 0;

	while (i < in->len && (b[i] == 0x26 || b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e ||
			       b[i] == 0x64 || b[i] == 0x65 || b[i] == 0x67 || b[i] == 0xf2 ||
			       b[i] == 0xf3 || b[i] == 0x66)) {
		if ((b[i] == 0x64 || b[i] == 0x65 || b[i] == 0x67) && np < sizeof(pre))
			pre[np++] = b[i];
		if (b[i] == 0x66)
			return -1;
		i++;
	}
	if (i < in->len && (b[i] & 0xf0) == 0x40)
		rex = (uint8_t)(0x48 | (b[i++] & 0x03));
	if (i + 2 > in->len || b[i] != 0xff || (((b[i + 1] >> 3) & 7) != 2 && ((b[i + 1] >> 3) & 7) != 4))
		return -1;
	i++;
	rest = in->len - i;	/* ModRM, SIB, displacement */
	{
		uint8_t op[24];
		size_t n = 0;

		memcpy(op, pre, np);
		n = np;
		op[n++] = rex;
		op[n++] = 0x8b;
		op[n++] = b[i] & 0xc7;
		memcpy(op + n, b + i + 1, rest - 1);
		n += rest - 1;
		if (in->riprel_off) {
			/* the disp32 is the last field (no immediate here) */
			int64_t t = (int64_t)(in->addr + in->len) + (int32_t)((uint32_t)b[in->len - 4] |
				(uint32_t)b[in->len - 3] << 8 | (uint32_t)b[in->len - 2] << 16 |
				(uint32_t)b[in->len - 1] << 24);

			ccache_put_rel(e, op, n - 4, (uint64_t)t);
		} else {
			ccache_put(e, op, n);
		}
	}
	return 0;
}

/* A copied instruction, its RIP-relative displacement moved. */
static void copy_insn(struct ccache_emit *e, const struct disasm_insn *in)
{
	uint8_t b[16];
	size_t at = e->n;

	memcpy(b, in->bytes, in->len);
	if (in->riprel_off) {
		int32_t disp;
		int64_t nd;

		memcpy(&disp, b + in->riprel_off, 4);
		nd = (int64_t)disp + (int64_t)(in->addr + in->len) - (int64_t)(e->at + at + in->len);
		if (!ccache_fits32(nd))
			e->bad = 1;
		disp = (int32_t)nd;
		memcpy(b + in->riprel_off, &disp, 4);
	}
	ccache_put(e, b, in->len);
}

/* Whether in's RIP-relative operand still reaches from cache address at. */
static int riprel_fits(const struct disasm_insn *in, uint64_t at)
{
	int32_t disp;

	if (in->kind != DISASM_KIND_OTHER)
		return 1;	/* (indirect forms check their own) */
	memcpy(&disp, in->bytes + in->riprel_off, 4);
	return ccache_fits32((int64_t)disp + (int64_t)(in->addr - at));
}

/* The jcc's condition code from its opcode. */
static int jcc_cc(const struct disasm_insn *in)
{
	for (int i = 0; i < in->len; i++) {
		if ((in->bytes[i] & 0xf0) == 0x70)
			return in->bytes[i] & 0x0f;
		if (in->bytes[i] == 0x0f && i + 1 < in->len && (in->bytes[i + 1] & 0xf0) == 0x80)
			return in->bytes[i + 1] & 0x0f;
	}
	return -1;
}

/* NOPs (no flags touched) until k bytes further on is 4-aligned: an
 * exit's rel32 lands there, so the tracer relinks it with one aligned
 * store while other threads run the block (never two halves seen). */
static void align_rel32(struct ccache_emit *e, size_t k)
{
	static const uint8_t nop[4][3] = { { 0 }, { 0x90 }, { 0x66, 0x90 }, { 0x0f, 0x1f, 0x00 } };
	size_t pad = (size_t)(-(e->at + e->n + k) & 3);

	ccache_put(e, nop[pad], pad);
}

/* An exit: a jmp (or jcc with cc >= 0) whose rel32, 4-aligned, is patched
 * later. */
static void exit_code(struct ccache_emit *e, struct ccache_exit *x, int cc, uint64_t target)
{
	align_rel32(e, cc >= 0 ? 2 : 1);
	if (cc >= 0) {
		ccache_put8(e, 0x0f);
		ccache_put8(e, (uint8_t)(0x80 | cc));
	} else {
		ccache_put8(e, 0xe9);
	}
	x->target = target;
	x->patch_off = (uint32_t)e->n;
	ccache_put32(e, 0);
	x->end_off = (uint32_t)e->n;
}

static void exit_jmp(struct ccache_emit *e, struct ccache_block *b, int cc, uint64_t target)
{
	exit_code(e, &b->exit[b->nexit++], cc, target);
}

/* Whether the jcc in (the block's last instruction so far) may be a side
 * exit, the block running on along its fall-through: records written
 * (no watchpoints), through a ring (no store that faults but the
 * block's first), room left, and a target outside the block (a branch
 * back into it is a loop: it ends the block, as the next one starts
 * there) and not its own fall-through. */
static int side_ok(const struct ccache_env *env, const struct ccache_block *b, const struct disasm_insn *in)
{
	if (env->watch || !env->ring || b->nside >= CCACHE_SIDE_MAX || in->target == in->addr + in->len)
		return 0;
	for (int i = 0; i < b->n; i++)
		if (b->ins[i].addr == in->target)
			return 0;
	return 1;
}

/* A side exit: the jcc to its stub in the trailer (side_stubs), its rel32
 * at the offset returned; its exit reserved (the next of b->exit). */
static uint32_t side_jcc(struct ccache_emit *e, struct ccache_block *b, int cc, uint64_t target)
{
	uint32_t at;

	ccache_put8(e, 0x0f);
	ccache_put8(e, (uint8_t)(0x80 | cc));
	at = (uint32_t)e->n;
	ccache_put32(e, 0);
	b->exit[b->nexit++].target = target;
	b->side_push[b->nside] = (uint8_t)ccache_side_pushes(b->ins, b->n);
	b->side_n[b->nside++] = (uint8_t)b->n;
	return at;
}

static void add_insn(struct ccache_block *b, const struct disasm_insn *in, size_t coff)
{
	struct ccache_insn *ci = &b->ins[b->n++];

	ci->addr = in->addr;
	ci->len = in->len & 0x7f;
	ci->kind = (uint8_t)in->kind;
	ci->has_target = 0;
	ci->trel = 0;
	if (in->has_target)
		ccache_insn_set_target(ci, in->target);
	ci->coff = (uint16_t)coff;
}

/* The end of a block at an indirect transfer or return: rax into slot A,
 * the target into rax, then the dispatcher's second entry. */
static int end_indirect(const struct ccache_env *env, struct ccache_emit *e,
			const struct disasm_insn *in, uint64_t *retc_fix)
{
	uint64_t r = env->region;

	save(e, 0, r, CCACHE_SLOT_A);
	if (in->kind == DISASM_KIND_RET) {
		ccache_put(e, (const uint8_t[]){ 0x48, 0x8b, 0x04, 0x24 }, 4);	/* mov (%rsp),%rax */
	} else if (ind_to_mov(e, in) < 0) {
		return -1;
	}
	if (in->kind == DISASM_KIND_RET) {
		ccache_put(e, (const uint8_t[]){ 0x48, 0x8d, 0xa4, 0x24 }, 4);	/* lea 8+imm(%rsp),%rsp */
		ccache_put32(e, 8u + in->ret_imm);
	} else if (in->kind == DISASM_KIND_CALL_IND) {
		*retc_fix = e->n;	/* pushq retc(%rip), fixed when constants land */
		ccache_put(e, (const uint8_t[]){ 0xff, 0x35, 0, 0, 0, 0 }, 6);
	}
	jmp_to(e, env->dispatch + ccache_dispatch_rax(r));
	return 0;
}

/* The record without a ring (env->ring 0): mov %rax,R; movabs
 * recptr,%rax; movl $id,(%rax); lea 4(%rax),%rax; movabs %rax,recptr;
 * mov R,%rax.  Returns the offset of the store (a full buffer faults
 * there: a guard page). */
static uint32_t record_plain(const struct ccache_env *env, struct ccache_emit *e, uint32_t id)
{
	uint32_t at;

	save(e, 0, env->region, CCACHE_SLOT_R);
	ccache_put(e, (const uint8_t[]){ 0x48, 0xa1 }, 2);
	ccache_put64(e, env->recptr);
	at = (uint32_t)e->n;
	ccache_put(e, (const uint8_t[]){ 0xc7, 0x00 }, 2);
	ccache_put32(e, id);
	ccache_put(e, (const uint8_t[]){ 0x48, 0x8d, 0x40, 0x04 }, 4);
	ccache_put(e, (const uint8_t[]){ 0x48, 0xa3 }, 2);
	ccache_put64(e, env->recptr);
	load(e, 0, env->region, CCACHE_SLOT_R);
	return at;
}

/* mov head,%rcx (store 0) or mov %rcx,head: the thread's header at %gs:
 * (CCACHE_GS_CTL), or recptr RIP-relative */
static void head_rcx(const struct ccache_env *env, struct ccache_emit *e, int store)
{
	if (env->region & CCACHE_GS_CTL)
		(store ? save : load)(e, 1, env->region, CCACHE_SLOT_CTL + CCACHE_CTL_RING + CCACHE_RING_HEAD);
	else
		ccache_put_rel(e, (const uint8_t[]){ 0x48, store ? 0x89 : 0x8b, 0x0d }, 3, env->recptr);
}

/* The record stub's slow part, taken when the head lands on a
 * CCACHE_RING_ALIGN boundary: lea back,%rcx; mov %rcx,RRET; jmp ring
 * (the ring stub's limit check: on at RRET, or the ring stub). */
static void record_slow(const struct ccache_env *env, struct ccache_emit *e, size_t back)
{
	ccache_put_rel(e, (const uint8_t[]){ 0x48, 0x8d, 0x0d }, 3, e->at + back);
	save(e, 1, env->region, CCACHE_SLOT_RRET);
	jmp_to(e, env->ring);
}

/* The record with a ring: mov %rcx,RC; mov head,%rcx; movl $id,(%rcx);
 * lea 4(%rcx),%rcx; mov %rcx,head; movzbl %cl,%ecx; jrcxz slow; back:
 * mov RC,%rcx.  One register, no flags touched, the limit left to the
 * ring stub's check (ccache_ring_code) at each CCACHE_RING_ALIGN
 * boundary.  (A header out of RIP-relative reach: through rax, kept in
 * R, with movabs, rax back before the jrcxz.)  The slow part
 * (record_slow) is out of line, in the block's trailer: *jr is the
 * jrcxz's offset, its rel8 fixed there; or, with slow_inline (the
 * trailer out of its reach), right here over a jmp (*jr 0).  Returns the
 * offset of the store. */
static uint32_t record_stub(const struct ccache_env *env, struct ccache_emit *e, uint32_t id, int slow_inline,
			    uint32_t *jr)
{
	uint32_t at;
	uint8_t slow = 7 + ((env->region & CCACHE_GS) ? 9 : 7) + 5;
	int far = !(env->region & CCACHE_GS_CTL) && (!ccache_fits32((int64_t)(env->recptr - e->at)) ||
						    !ccache_fits32((int64_t)(env->recptr - e->at - 64)));

	*jr = 0;
	if (!env->ring)
		return record_plain(env, e, id);
	save(e, 1, env->region, CCACHE_SLOT_RC);
	if (far) {
		save(e, 0, env->region, CCACHE_SLOT_R);
		ccache_put(e, (const uint8_t[]){ 0x48, 0xa1 }, 2);		/* movabs recptr,%rax */
		ccache_put64(e, env->recptr);
		ccache_put(e, (const uint8_t[]){ 0x48, 0x89, 0xc1 }, 3);	/* mov %rax,%rcx */
	} else {
		head_rcx(env, e, 0);
	}
	at = (uint32_t)e->n;
	ccache_put(e, (const uint8_t[]){ 0xc7, 0x01 }, 2);			/* movl $id,(%rcx) */
	ccache_put32(e, id);
	ccache_put(e, (const uint8_t[]){ 0x48, 0x8d, 0x49, 0x04 }, 4);	/* lea 4(%rcx),%rcx */
	if (far) {
		ccache_put(e, (const uint8_t[]){ 0x48, 0x89, 0xc8, 0x48, 0xa3 }, 5);	/* mov %rcx,%rax; movabs */
		ccache_put64(e, env->recptr);
		load(e, 0, env->region, CCACHE_SLOT_R);
	} else {
		head_rcx(env, e, 1);
	}
	ccache_put(e, (const uint8_t[]){ 0x0f, 0xb6, 0xc9 }, 3);		/* movzbl %cl,%ecx */
	if (slow_inline) {
		size_t back;

		ccache_put(e, (const uint8_t[]){ 0xe3, 0x02, 0xeb, slow }, 4);	/* jrcxz slow; jmp back */
		back = e->n + slow;
		record_slow(env, e, back);
		if (e->n != back)
			e->bad = 1;	/* (the slow part's length above) */
	} else {
		*jr = (uint32_t)e->n;
		ccache_put(e, (const uint8_t[]){ 0xe3, 0x00 }, 2);		/* jrcxz slow (fixed later) */
	}
	load(e, 1, env->region, CCACHE_SLOT_RC);
	return at;
}

/* The side exits' stubs: each jcc's rel32 (at side_at[k]) to its own,
 * which writes the side exit's record (CCACHE_REC_SIDE + k: the record
 * stub, its slow part inline), then the exit's patchable jmp. */
static void side_stubs(const struct ccache_env *env, struct ccache_emit *e, struct ccache_block *b,
		       const uint32_t *side_at)
{
	for (int k = 0; k < b->nside && !e->bad; k++) {
		int32_t d = (int32_t)(e->n - (side_at[k] + 4u));
		uint32_t jr;

		memcpy(e->p + side_at[k], &d, 4);
		record_stub(env, e, CCACHE_REC_SIDE + (uint32_t)k, 1, &jr);
		exit_code(e, &b->exit[k], -1, b->exit[k].target);
	}
}

/* The block's trailer: each exit's trap and far jump (the exit goes to
 * its trap until linked, or, served, to its stub after them: the target
 * through the dispatcher; an exit to the block's own SYSCALL keeps its
 * trap), then the return addresses its calls push. */
static void trailer(const struct ccache_env *env, struct ccache_emit *e, struct ccache_block *b,
		    uint64_t (*calls)[2], int ncalls, const uint32_t *side_at)
{
	side_stubs(env, e, b, side_at);
	for (int k = 0; k < b->nexit; k++) {
		struct ccache_exit *x = &b->exit[k];
		int32_t rel;
		uint32_t to;

		/* (int3s before the trap: its far slot 8-aligned, written
		 * with one store) */
		while (((e->at + e->n + 7) & 7) && !e->bad)
			ccache_put8(e, 0xcc);
		x->trap_off = (uint32_t)e->n;
		ccache_put8(e, 0xcc);
		x->far_off = (uint32_t)e->n;
		ccache_put(e, (const uint8_t[]){ 0xff, 0x25, 0, 0, 0, 0 }, 6);
		ccache_put64(e, 0);
		to = x->trap_off;
		if (env->served && !(k >= b->nside && b->ins[b->n - 1].kind == DISASM_KIND_SYSCALL &&
				     x->target == b->ins[b->n - 1].addr)) {
			size_t n = e->bad ? 0 : ccache_exit_stub(e->at + e->n, env->region, x->target, env->dispatch,
							      e->p + e->n, e->cap - e->n);

			if (n) {
				to = (uint32_t)e->n;
				e->n += n;
			}
		}
		rel = (int32_t)(to - x->end_off);
		if (!e->bad)
			memcpy(e->p + x->patch_off, &rel, 4);
	}
	for (int k = 0; k < ncalls && !e->bad; k++) {
		int32_t d = (int32_t)(e->n - (calls[k][0] + 6));

		memcpy(e->p + calls[k][0] + 2, &d, 4);
		ccache_put64(e, calls[k][1]);
	}
}

/* A SYSCALL that runs in the cache, its number checked (ccache_sys.c):
 * the block's two exits, to itself (the tracer runs it) and on; or, out
 * of reach, an exit before it. */
static void sys_insn(const struct ccache_env *env, struct ccache_emit *e, struct ccache_block *b,
		     const struct disasm_insn *in, size_t at)
{
	struct ccache_sys_code sc;

	/* (NOPs first: its exits' rel32s 4-aligned, as exit_jmp's) */
	align_rel32(e, CCACHE_SYS_EXIT0_REL);
	at = e->n;
	if (ccache_sys_code(e->at + at, env->region, in, &sc) < 0) {
		exit_jmp(e, b, -1, in->addr);
		return;
	}
	add_insn(b, in, at);
	ccache_put(e, sc.code, sc.len);
	for (int k = 0; k < 2; k++) {
		struct ccache_exit *x = &b->exit[b->nexit++];

		x->target = k ? in->addr + in->len : in->addr;
		x->patch_off = (uint32_t)at + sc.patch_off[k];
		x->end_off = (uint32_t)at + sc.end_off[k];
	}
}

/* Before an instruction that may touch memory, the watchpoint check
 * (ccache_watch.c): its int3 is right before the instruction's own code,
 * so a hit stops in the original state before it (CCACHE_AT_INSN). */
static int watch_check(const struct ccache_env *env, struct ccache_emit *e, const struct disasm_insn *in)
{
	int n;

	switch (in->kind) {
	case DISASM_KIND_JMP: case DISASM_KIND_JCC: case DISASM_KIND_JRCXZ:
	case DISASM_KIND_LOOP: case DISASM_KIND_SYSCALL:
		return 0;
	default:
		break;
	}
	n = ccache_watch_code(env->watch, env->ctx, e->at + e->n, env->region, in, e->p + e->n,
			      e->cap > e->n ? e->cap - e->n : 0);
	if (n < 0) {
		e->bad = 1;
		return -1;
	}
	e->n += (size_t)n;
	return 0;
}

/* A block is built in these and copied out at its size (two small
 * allocations, not two of the largest size cut down). */
static _Thread_local uint8_t scratch_code[CCACHE_BLOCK_MAX_BYTES];
_Static_assert(CCACHE_BLOCK_MAX_BYTES <= UINT16_MAX + 1, "a block's code offsets are 16 bits");
static _Thread_local struct ccache_insn scratch_ins[CCACHE_BLOCK_MAX_INSNS];

/* The record stub's slow part in the trailer, at e->n, its jrcxz at jr
 * (0: none) fixed: 0, or -1 if out of the jrcxz's reach. */
static int slow_out_of_line(const struct ccache_env *env, struct ccache_emit *e, uint32_t jr)
{
	size_t d = e->n - (jr + 2u);

	if (!jr || e->bad)
		return 0;
	if (d > 127)
		return -1;
	e->p[jr + 1] = (uint8_t)d;
	record_slow(env, e, jr + 2u);
	return 0;
}

/* Whether a block of b->n (> 0) instructions ends before the one at a
 * (decoded into *in): one of them already (a loop), full, a stop, not
 * to run here, or gs code with per-thread slots. */
static int ends_before(const struct ccache_env *env, const struct ccache_block *b, const struct ccache_emit *e,
		       uint64_t a, struct disasm_insn *in)
{
	for (int i = 0; i < b->n; i++)
		if (b->ins[i].addr == a)
			return 1;
	return b->n >= CCACHE_BLOCK_MAX_INSNS - 1 || e->n > CCACHE_BLOCK_MAX_BYTES / 2 || env->stop(env->ctx, a) ||
	       env->decode(env->ctx, a, in) < 0 ||
	       (!ccache_translatable(in) && !(env->syscalls && in->kind == DISASM_KIND_SYSCALL)) ||
	       ((env->region & CCACHE_GS) && uses_gs(in));
}

/* ccache_translate, with the record stub's slow part inline or not: 0,
 * -1, or -2 if it must be inline (the block's trailer out of reach). */
static int translate(const struct ccache_env *env, uint64_t start, uint64_t base, uint32_t id,
		     struct ccache_block *b, int slow_inline)
{
	struct ccache_emit e = { scratch_code, 0, CCACHE_BLOCK_MAX_BYTES - 256, base, 0 };
	/* call sites: where a pushq retc(%rip) sits and what it pushes */
	uint64_t calls[CCACHE_BLOCK_MAX_INSNS + 1][2];
	int ncalls = 0, ended = 0;
	uint64_t a = start;
	uint32_t jr = 0, side_at[CCACHE_SIDE_MAX];

	memset(b, 0, sizeof(*b));
	b->start = start;
	b->base = base;
	b->id = id;
	b->ins = scratch_ins;
	/* (checking watchpoints, nothing is recorded) */
	b->rec_off = env->watch ? 0 : record_stub(env, &e, id, slow_inline, &jr);

	while (!ended && !e.bad) {
		struct disasm_insn in;
		size_t at = e.n;

		if (b->n && ends_before(env, b, &e, a, &in)) {
			exit_jmp(&e, b, -1, a);
			break;
		}
		if (!b->n && (env->decode(env->ctx, a, &in) < 0 || !ccache_translatable(&in) ||
			      ((env->region & CCACHE_GS) && uses_gs(&in))))
			goto fail;
		if (env->watch && watch_check(env, &e, &in) < 0)
			break;
		at = e.n;
		if (in.riprel_off && !riprel_fits(&in, base + at)) {
			/* its operand is out of the cache's reach: not here */
			if (!b->n)
				goto fail;
			exit_jmp(&e, b, -1, a);
			break;
		}
		switch (in.kind) {
		case DISASM_KIND_JMP:
			add_insn(b, &in, at);
			a = in.target;
			break;
		case DISASM_KIND_CALL:
			add_insn(b, &in, at);
			calls[ncalls][0] = e.n;
			calls[ncalls++][1] = in.addr + in.len;
			ccache_put(&e, (const uint8_t[]){ 0xff, 0x35, 0, 0, 0, 0 }, 6);
			a = in.target;
			break;
		case DISASM_KIND_JCC:
			add_insn(b, &in, at);
			if (side_ok(env, b, &in)) {
				side_at[b->nside] = side_jcc(&e, b, jcc_cc(&in), in.target);
				a = in.addr + in.len;
				break;
			}
			exit_jmp(&e, b, jcc_cc(&in), in.target);
			exit_jmp(&e, b, -1, in.addr + in.len);
			ended = 1;
			break;
		case DISASM_KIND_JRCXZ: case DISASM_KIND_LOOP:
			/* the original over the fall-through exit (NOPs first) */
			add_insn(b, &in, at);
			align_rel32(&e, in.len + 1u);
			ccache_put(&e, in.bytes, in.len - 1u);
			ccache_put8(&e, 5);
			exit_jmp(&e, b, -1, in.addr + in.len);
			exit_jmp(&e, b, -1, in.target);
			ended = 1;
			break;
		case DISASM_KIND_SYSCALL:
			/* (never a block's first: see ccache_sys.c) */
			sys_insn(env, &e, b, &in, at);
			ended = 1;
			break;
		case DISASM_KIND_JMP_IND:
		case DISASM_KIND_CALL_IND:
		case DISASM_KIND_RET: {
			uint64_t fix = UINT64_MAX;
			size_t keep = e.n;

			if (end_indirect(env, &e, &in, &fix) < 0) {
				e.n = keep;
				if (!b->n)
					goto fail;
				exit_jmp(&e, b, -1, a);
				ended = 1;
				break;
			}
			add_insn(b, &in, at);
			if (fix != UINT64_MAX) {
				calls[ncalls][0] = fix;
				calls[ncalls++][1] = in.addr + in.len;
			}
			ended = 1;
			break;
		}
		default:
			add_insn(b, &in, at);
			copy_insn(&e, &in);
			a += in.len;
			break;
		}
	}
	if (slow_out_of_line(env, &e, jr) < 0) {
		memset(b, 0, sizeof(*b));
		return -2;
	}
	trailer(env, &e, b, calls, ncalls, side_at);
	if (e.bad || !b->n)
		goto fail;
	b->code = memcpy(xmalloc(e.n), scratch_code, e.n);
	b->len = (uint32_t)e.n;
	/* (a block keeps its instructions for as long as it lives) */
	b->ins = memcpy(xmalloc((size_t)b->n * sizeof(*b->ins)), b->ins, (size_t)b->n * sizeof(*b->ins));
	return 0;
fail:
	memset(b, 0, sizeof(*b));
	return -1;
}

int ccache_translate(const struct ccache_env *env, uint64_t start, uint64_t base, uint32_t id,
		     struct ccache_block *b)
{
	int rc = translate(env, start, base, id, b, 0);

	return rc == -2 ? translate(env, start, base, id, b, 1) : rc;
}

void ccache_block_release(struct ccache_block *b)
{
	free(b->ins);
	free(b->code);
	memset(b, 0, sizeof(*b));
}

/* The dispatcher: rax into A, the target from T into rax; (second
 * entry) rcx, rdx into C, D; the lookup (two probes); a miss puts the
 * target back in T for the trap (or the served miss, which probes again
 * at probe: T into rax, on to the lookup); a hit jumps to the block,
 * rax, rcx, rdx back. */
static size_t dispatcher(uint64_t region, uint64_t ctl, uint8_t *buf, size_t cap, uint32_t *miss_off)
{
	uint64_t base = ccache_region_addr(region) + CCACHE_CODE_OFF;
	struct ccache_emit e = { buf, 0, cap, base, 0 };
	uint8_t st = (region & CCACHE_GS) ? 9 : 7;	/* (a slot store's length) */
	size_t lookup, to_serve = 0, probe;

	save(&e, 0, region, CCACHE_SLOT_A);
	load(&e, 0, region, CCACHE_SLOT_T);
	if (e.n != ccache_dispatch_rax(region))
		return 0;
	save(&e, 1, region, CCACHE_SLOT_C);
	save(&e, 2, region, CCACHE_SLOT_D);
	lookup = e.n;
	ccache_put(&e, (const uint8_t[]){ 0x0f, 0xb7, 0xc8 }, 3);		/* movzwl %ax,%ecx */
	ccache_put(&e, (const uint8_t[]){ 0x48, 0x8d, 0x0c, 0x09 }, 4);	/* lea (%rcx,%rcx),%rcx */
	ccache_put_rel(&e, (const uint8_t[]){ 0x48, 0x8d, 0x15 }, 3, ccache_region_addr(region) + CCACHE_TABLE_OFF);
	ccache_put(&e, (const uint8_t[]){ 0x48, 0x8d, 0x14, 0xca }, 4);	/* lea (%rdx,%rcx,8),%rdx */
	ccache_put(&e, (const uint8_t[]){ 0x48, 0x8b, 0x0a }, 3);		/* mov (%rdx),%rcx: -orig */
	ccache_put(&e, (const uint8_t[]){ 0x48, 0x8d, 0x0c, 0x01 }, 4);	/* lea (%rcx,%rax),%rcx */
	ccache_put(&e, (const uint8_t[]){ 0xe3, (uint8_t)((ctl ? 0x13 : 0x0f) + st) }, 2);	/* jrcxz hit */
	ccache_put(&e, (const uint8_t[]){ 0x48, 0x8b, 0x4a, 0x10 }, 4);	/* mov 16(%rdx),%rcx */
	ccache_put(&e, (const uint8_t[]){ 0x48, 0x8d, 0x0c, 0x01 }, 4);	/* lea (%rcx,%rax),%rcx */
	ccache_put(&e, (const uint8_t[]){ 0xe3, (uint8_t)((ctl ? 5 : 1) + st) }, 2);	/* jrcxz hit2 */
	save(&e, 0, region, CCACHE_SLOT_T);
	if (ctl) {
		to_serve = e.n;
		ccache_put(&e, (const uint8_t[]){ 0xe9, 0, 0, 0, 0 }, 5);	/* jmp serve */
	} else {
		*miss_off = (uint32_t)e.n;
		ccache_put8(&e, 0xcc);
	}
	ccache_put(&e, (const uint8_t[]){ 0x48, 0x8d, 0x52, 0x10 }, 4);	/* hit2: lea 16(%rdx),%rdx */
	ccache_put(&e, (const uint8_t[]){ 0x48, 0x8b, 0x42, 0x08 }, 4);	/* hit: mov 8(%rdx),%rax */
	save(&e, 0, region, CCACHE_SLOT_J);
	load(&e, 0, region, CCACHE_SLOT_A);
	load(&e, 1, region, CCACHE_SLOT_C);
	load(&e, 2, region, CCACHE_SLOT_D);
	ccache_put_slot(&e, (const uint8_t[]){ 0xff, 0x25 }, 2, region, CCACHE_SLOT_J);
	if (ctl && !e.bad) {
		int32_t d;
		size_t n;

		probe = e.n;
		load(&e, 0, region, CCACHE_SLOT_T);
		jmp_to(&e, base + lookup);
		if (e.bad || !(n = ccache_serve_code(base + e.n, region, ctl, base + probe, e.p + e.n, e.cap - e.n,
						     miss_off)))
			return 0;
		d = (int32_t)(e.n - (to_serve + 5));
		memcpy(e.p + to_serve + 1, &d, 4);
		*miss_off += (uint32_t)e.n;
		e.n += n;
	}
	return e.bad ? 0 : e.n;
}

size_t ccache_dispatcher(uint64_t region, uint8_t *buf, size_t cap, uint32_t *miss_off)
{
	return dispatcher(region, 0, buf, cap, miss_off);
}

size_t ccache_dispatcher_served(uint64_t region, uint64_t ctl, uint8_t *buf, size_t cap, uint32_t *miss_off)
{
	return dispatcher(region, ctl, buf, cap, miss_off);
}

int ccache_where(const struct ccache_block *b, uint64_t pc, int *idx)
{
	uint64_t off;

	if (pc < b->base || pc > b->base + b->len)
		return CCACHE_OUTSIDE;
	off = pc - b->base;
	if (off == 0)
		return CCACHE_AT_ENTRY;
	for (int k = 0; k < b->nexit; k++)
		if (off == b->exit[k].trap_off + 1u) {
			*idx = k;
			return CCACHE_AT_TRAP;
		}
	for (int i = 0; i < b->n; i++)
		if (b->ins[i].coff == off) {
			*idx = i;
			return CCACHE_AT_INSN;
		}
	if (b->n && b->ins[b->n - 1].kind == DISASM_KIND_SYSCALL) {
		unsigned saved;
		int w = ccache_sys_where(b->ins[b->n - 1].coff, (uint32_t)off, &saved);

		if (w) {
			*idx = b->n - 1;
			return w == 1 ? CCACHE_AT_SYSCALL : CCACHE_AT_SYSRET;
		}
	}
	return off < b->len ? CCACHE_INSIDE : CCACHE_OUTSIDE;
}

void ccache_link(const struct ccache_block *b, int k, uint64_t dest, uint8_t rel[4], uint32_t *off1,
		 uint8_t far[8], uint32_t *off2)
{
	const struct ccache_exit *x = &b->exit[k];
	int64_t d = (int64_t)(dest - (b->base + x->end_off));
	int32_t r;

	*off1 = x->patch_off;
	*off2 = UINT32_MAX;
	if (ccache_fits32(d)) {
		r = (int32_t)d;
	} else {
		r = (int32_t)(x->far_off - x->end_off);
		memcpy(far, &dest, 8);
		*off2 = x->far_off + 6;
	}
	memcpy(rel, &r, 4);
}
