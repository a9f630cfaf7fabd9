/* trace/ptw.h: the software backend's Intel PT packet writer.  It mirrors
 * the decoder's state (docs/pt-packets.md §1) and emits, with libipt's
 * encoder, exactly the packet sequences of pt-packets.md for each event the
 * collector observes, appending whole packets to a trace_ring. */
#ifndef PTDB_TRACE_PTW_H
#define PTDB_TRACE_PTW_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "trace/ring.h"

struct pt_encoder;

#define TRACE_PTW_STACK 64
#define TRACE_PTW_MIN_PERIOD 64
#define TRACE_PTW_DEFAULT_PERIOD 4096

struct trace_ptw_config {
	size_t psb_period;  /* bytes between PSB+; 0 = 4096, minimum 64 */
	int tsc;            /* emit TSC packets (§11) */
};

struct trace_ptw {
	struct trace_ring *ring;
	struct pt_encoder *enc;
	uint8_t scratch[64];
	size_t psb_period;
	int tsc_on;
	uint64_t now;
	int started;        /* the first PSB+ has been written */
	int packet_en;      /* between TIP.PGE and TIP.PGD */
	uint64_t tnt_bits;  /* pending outcomes, oldest in the top used bit */
	unsigned tnt_n;     /* 0..47 */
	uint64_t last_ip;
	int last_ip_valid;
	uint64_t stack[TRACE_PTW_STACK];   /* shadow call stack (ring) */
	unsigned stack_top; /* index of the next push */
	unsigned stack_n;   /* entries in use, <= TRACE_PTW_STACK */
	uint64_t last_psb;  /* ring->total at the last PSB */
	/* the code generation (trace/pages.h) the collector keeps, NULL:
	 * none; said in a PIP (its CR3) in every PSB+ and before a TIP.PGE
	 * once it moved (cr3_said: the last one written, said: any) */
	const uint64_t *code_gen;
	uint64_t cr3_said;
	int said;
};

/* All int functions return 0, or -1 on a sequence violation (e.g. a branch
 * while disabled, enable while enabled) or an encoder failure; nothing is
 * written then. */
int trace_ptw_init(struct trace_ptw *w, struct trace_ring *ring,
		   const struct trace_ptw_config *c, struct ptdb_err *err);
void trace_ptw_release(struct trace_ptw *w);
/* 'now' for the next timing packets. */
void trace_ptw_set_time(struct trace_ptw *w, uint64_t tsc);
/* Start/resume at ip: (first time: PSB [TSC] MODE PSBEND, §4.1)
 * [TSC] MODE.Exec TIP.PGE(ip). */
int trace_ptw_enable(struct trace_ptw *w, uint64_t ip);
/* Stop the user sees / signal / end (§8): flush [TSC] FUP(next_ip) TIP.PGD(-). */
int trace_ptw_disable_async(struct trace_ptw *w, uint64_t next_ip);
/* After SYSCALL executed (§7.1): flush [TSC] TIP.PGD(-). */
int trace_ptw_syscall(struct trace_ptw *w);
/* The program's own INT3/INT n at clip (§7.2): flush [TSC] FUP(clip) TIP.PGD(-). */
int trace_ptw_int(struct trace_ptw *w, uint64_t clip);
int trace_ptw_call_indirect(struct trace_ptw *w, uint64_t nlip, uint64_t target);
int trace_ptw_jump_indirect(struct trace_ptw *w, uint64_t target);
/* Emits pending TNT bits now. */
int trace_ptw_flush(struct trace_ptw *w);

/* (the writer's per-branch work, inline: the packet writer's hot path;
 * also trace/ccache_pkt.c's, which keeps the pending bits in registers) */

/* n bytes onto the ring: trace_ring_write, inline where they fit before
 * the end (no padding, no wrap). */
static inline int trace_ptw_put_(struct trace_ring *r, const uint8_t *b, size_t n)
{
	if (n >= r->size - r->pos)
		return trace_ring_write(r, b, n);
	__builtin_memcpy(r->buf + r->pos, b, n);
	r->pos += n;
	r->total += n;
	return 0;
}

/* The TNT packet of n (1..47) outcome bits, the oldest the most
 * significant: TNT-8 for <= 6 bits, TNT-64 otherwise (§5), byte for byte
 * as libipt's encoder writes it. */
static inline int trace_ptw_tnt_(struct trace_ring *r, uint64_t bits, unsigned n)
{
	uint8_t b[8];

	/* the stop bit above the payload's oldest bit */
	bits = (bits & ((1ull << n) - 1)) | 1ull << n;
	if (n <= 6) {
		b[0] = (uint8_t)(bits << 1);
		return trace_ptw_put_(r, b, 1);
	}
	b[0] = 0x02;
	b[1] = 0xa3;
	for (int i = 0; i < 6; i++)
		b[2 + i] = (uint8_t)(bits >> 8 * i);
	return trace_ptw_put_(r, b, 8);
}

/* §12: the IP compression against the last IP (libipt's enum
 * pt_ip_compression: 1 update-16, 2 update-32, 3 sext-48, 4 update-48,
 * 6 full; trace/ptw.c checks). */
static inline unsigned trace_ptw_ipc_(const struct trace_ptw *w, uint64_t ip)
{
	uint64_t l = w->last_ip;
	int64_t sx = (int64_t)(ip << 16) >> 16;

	if (w->last_ip_valid && (ip >> 16) == (l >> 16))
		return 1;
	if (w->last_ip_valid && (ip >> 32) == (l >> 32))
		return 2;
	if ((uint64_t)sx == ip)
		return 3;
	if (w->last_ip_valid && (ip >> 48) == (l >> 48))
		return 4;
	return 6;
}

/* An IP packet (opcode: 0x0d TIP, 0x11 TIP.PGE, 0x1d FUP) with ip
 * compressed against the last IP, which becomes ip: opcode | ipc << 5,
 * then the IP's low bytes, as libipt's encoder writes it
 * (tests/unit/test-ptw.c compares). */
static inline int trace_ptw_ip_(struct trace_ptw *w, uint8_t opcode, uint64_t ip)
{
	static const uint8_t size[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	unsigned ipc = trace_ptw_ipc_(w, ip);
	uint8_t b[9];

	b[0] = (uint8_t)(opcode | ipc << 5);
	__builtin_memcpy(b + 1, &ip, 8);
	if (trace_ptw_put_(w->ring, b, 1u + size[ipc]) < 0)
		return -1;
	w->last_ip = ip;
	w->last_ip_valid = 1;
	return 0;
}

static inline int trace_ptw_bit_(struct trace_ptw *w, int taken)
{
	w->tnt_bits = (w->tnt_bits << 1) | (taken ? 1u : 0u);
	w->tnt_n++;
	if (w->tnt_n == 47)
		return trace_ptw_flush(w);
	return 0;
}

static inline void trace_ptw_push_(struct trace_ptw *w, uint64_t nlip)
{
	w->stack[w->stack_top] = nlip;
	w->stack_top = (w->stack_top + 1) % TRACE_PTW_STACK;
	if (w->stack_n < TRACE_PTW_STACK)
		w->stack_n++;   /* else the oldest entry was overwritten */
}

/* Jcc / loop / jrcxz outcome. */
static inline int trace_ptw_cond(struct trace_ptw *w, int taken)
{
	if (!w->packet_en)
		return -1;
	return trace_ptw_bit_(w, taken);
}

/* Direct CALL: pushes nlip unless the displacement is 0. */
static inline int trace_ptw_call_direct(struct trace_ptw *w, uint64_t nlip, int disp_zero)
{
	if (!w->packet_en)
		return -1;
	if (!disp_zero)
		trace_ptw_push_(w, nlip);
	return 0;
}

/* Near RET: TNT(1) + pop when target is the shadow top, else TIP (no pop). */
static inline int trace_ptw_ret(struct trace_ptw *w, uint64_t target)
{
	unsigned top;

	if (!w->packet_en)
		return -1;
	top = (w->stack_top + TRACE_PTW_STACK - 1) % TRACE_PTW_STACK;
	if (w->stack_n && w->stack[top] == target) {
		if (trace_ptw_bit_(w, 1) < 0)
			return -1;
		w->stack_top = top;
		w->stack_n--;
		return 0;
	}
	/* §6: an uncompressed return does not pop. */
	return trace_ptw_jump_indirect(w, target);
}
/* Data loss, form A of §10.  Call trace_ptw_disable_async(X) when the loss
 * starts; this emits, at the resume to resume_ip:
 * OVF [TSC] MODE TIP.PGE(resume_ip, sext48). */
int trace_ptw_overflow(struct trace_ptw *w, uint64_t resume_ip);
/* Between instructions: when bytes since the last PSB >= period, emits PSB+
 * (§4.2 with FUP(next_ip) when enabled, §4.3 when disabled).  Returns 1 if
 * it wrote one, 0 if not, -1 on error. */
int trace_ptw_maybe_psb(struct trace_ptw *w, uint64_t next_ip);
/* A PSB+ now, tracing disabled (§4.3): a thread switch in a per-CPU
 * stream, where the decoder's state (return stack, last IP) must not carry
 * over from one thread to the next. */
int trace_ptw_psb_disabled(struct trace_ptw *w);
/* 1 if trace_ptw_maybe_psb would write a PSB+ now (to set its time first). */
static inline int trace_ptw_psb_due(const struct trace_ptw *w)
{
	return w->started && w->ring->total - w->last_psb >= w->psb_period;
}
/* The code generation moved while tracing is on: a PSB+ (its PIP) before
 * the instruction at next_ip; when off, the next TIP.PGE says it. */
int trace_ptw_code_moved(struct trace_ptw *w, uint64_t next_ip);
/* Bytes appended to the ring so far (PAD fill included). */
size_t trace_ptw_bytes_written(const struct trace_ptw *w);

#endif
