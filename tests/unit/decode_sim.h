/* tests/unit/decode_sim.h: a hand-assembled program at 0x400000 (code[],
 * next_ip) and a simulated run of it written by trace/ptw into a ring
 * (struct sim: the expected instruction addresses beside the stream), its
 * image in a file, and decoding it both ways (decode_same.h).  Included by
 * test-decode.c and test-decode-time.c. */
#ifndef PTDB_TESTS_DECODE_SIM_H
#define PTDB_TESTS_DECODE_SIM_H

#include "tests/unit/decode_same.h"
#include "trace/decode.h"
#include "trace/ptw.h"
#include "trace/ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BASE 0x400000ull
/* 0x00 mov $N,%ecx | 0x05 L: dec %ecx | 0x07 jnz L | 0x09 call 0x18 |
 * 0x0e jmp *%rax | 0x10 nop | 0x11 syscall | 0x13-0x16 nop | 0x17 ret |
 * 0x18 nop | 0x19 ret */
static uint8_t code[] = {
	0xb9, 0x04, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xe8, 0x0a, 0x00, 0x00, 0x00,
	0xff, 0xe0, 0x90, 0x0f, 0x05, 0x90, 0x90, 0x90, 0x90, 0xc3, 0x90, 0xc3,
};

static inline uint64_t next_ip(void *ctx, uint64_t ip)
{
	static const uint8_t len[] = { 5, 0, 0, 0, 0, 2, 0, 2, 0, 5, 0, 0, 0, 0,
		2, 0, 1, 2, 0, 1, 1, 1, 1, 1, 1, 1 };
	(void)ctx;
	if (ip < BASE || ip >= BASE + sizeof(code) || !len[ip - BASE])
		return 0;
	if (ip == BASE + 0x09)
		return BASE + 0x18;    /* direct call: the block follows it */
	return ip + len[ip - BASE];
}

struct sim {
	struct trace_ring ring;
	struct trace_ptw w;
	uint64_t *exp;
	size_t n, cap;
};

static inline void I(struct sim *s, uint64_t off)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->exp = realloc(s->exp, s->cap * sizeof(*s->exp));
	}
	s->exp[s->n++] = BASE + off;
}

static inline void P(struct sim *s, uint64_t off)
{
	trace_ptw_maybe_psb(&s->w, BASE + off);
}

/* A ring of ring bytes and its writer, a PSB every period bytes, with TSC
 * packets (tsc 1) or without. */
static inline void sim_init_tsc(struct sim *s, size_t ring, size_t period, int tsc)
{
	struct trace_ptw_config c = { period, tsc };

	memset(s, 0, sizeof(*s));
	trace_ring_init(&s->ring, ring, NULL);
	trace_ptw_init(&s->w, &s->ring, &c, NULL);
}

static inline void sim_init(struct sim *s, size_t ring, size_t period)
{
	sim_init_tsc(s, ring, period, 1);
}

static inline void sim_free(struct sim *s)
{
	trace_ptw_release(&s->w);
	trace_ring_release(&s->ring);
	free(s->exp);
}

/* mov; loop of iters; call/ret (compressed, or to 0x10 when other_ret);
 * jmp *%rax to 0x10; syscall; nops with an async stop at 0x15. */
static inline void program(struct sim *s, unsigned iters, int other_ret)
{
	uint64_t t = s->w.now;

	trace_ptw_set_time(&s->w, t + 10);
	trace_ptw_enable(&s->w, BASE);
	I(s, 0); P(s, 5);
	for (unsigned i = 0; i < iters; i++) {
		I(s, 5); P(s, 7);
		I(s, 7); trace_ptw_cond(&s->w, i + 1 < iters); P(s, i + 1 < iters ? 5 : 9);
	}
	I(s, 9); trace_ptw_call_direct(&s->w, BASE + 0x0e, 0); P(s, 0x18);
	I(s, 0x18); P(s, 0x19);
	I(s, 0x19);
	if (other_ret) {
		trace_ptw_ret(&s->w, BASE + 0x10); P(s, 0x10);
	} else {
		trace_ptw_ret(&s->w, BASE + 0x0e); P(s, 0x0e);
		I(s, 0x0e); trace_ptw_jump_indirect(&s->w, BASE + 0x10); P(s, 0x10);
	}
	I(s, 0x10); P(s, 0x11);
	I(s, 0x11); trace_ptw_set_time(&s->w, t + 20); trace_ptw_syscall(&s->w); P(s, 0x13);
	trace_ptw_set_time(&s->w, t + 30);
	trace_ptw_enable(&s->w, BASE + 0x13);
	I(s, 0x13); P(s, 0x14);
	I(s, 0x14); P(s, 0x15);
	trace_ptw_disable_async(&s->w, BASE + 0x15);     /* stop, resume same ip */
	P(s, 0x15);
	trace_ptw_enable(&s->w, BASE + 0x15);
	I(s, 0x15); P(s, 0x16);
	trace_ptw_disable_async(&s->w, BASE + 0x16);     /* stop, resume elsewhere */
}

static char path[64];

static inline int make_image(struct trace_image *img)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/ptdb-test-decode-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, code, sizeof(code)) != (ssize_t)sizeof(code))
		return -1;
	close(fd);
	if (trace_image_init(img, NULL) < 0)
		return -1;
	return trace_image_add_file(img, path, 0, sizeof(code), BASE, NULL);
}

static inline void free_image(struct trace_image *img)
{
	trace_image_release(img);
	unlink(path);
}

/* buf decoded into *d, the same both ways (decode_same.h): 0, or -1. */
static inline int decode_both(const uint8_t *buf, size_t len, struct trace_image *img,
			      struct trace_decoded **d)
{
	*d = NULL;
	if (!decoded_same(buf, len, img, next_ip, NULL))
		return -1;
	return trace_decode(buf, len, img, d, NULL);
}

#endif
