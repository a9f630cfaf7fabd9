/* trace/decode_int.h: the decoded thread's storage, shared by
 * trace/decode.c (which builds it) and trace/decode_items.c (which reads
 * it: items, cursors, side table, time spans).  Not for other files. */
#ifndef PTDB_TRACE_DECODE_INT_H
#define PTDB_TRACE_DECODE_INT_H

#include "trace/decode.h"

#define TRACE_RUN_SIDE 0x80000000u
#define RUN_IDX_BITS 24
#define RUN_IDX_MAX ((1u << RUN_IDX_BITS) - 1)
#define RUN_IDX(v) ((v) & RUN_IDX_MAX)
#define RUN_REP(v) ((((v) >> RUN_IDX_BITS) & 0x7fu) + 1)
#define RUN_REP_MAX 128u
#define TRACE_CKPT_SHIFT 6

struct trace_dblock {
	uint64_t ip;
	uint64_t end_ip;
	uint32_t ninsn;
	uint32_t flags;
};

struct trace_run {
	uint32_t v;         /* TRACE_RUN_SIDE | side index, or (rep - 1) << 24 |
			     * dictionary index */
};

struct trace_side {
	uint8_t kind;
	uint8_t event;
	uint8_t resumed;
	uint8_t has_tsc;
	uint8_t hw;
	uint8_t libipt_type;	/* enum pt_event_type (< 256) */
	uint16_t cpu;		/* TRACE_EV_CPU */
	uint64_t ip;
	uint64_t tsc;
	uint64_t offset;
	uint64_t item;		/* its item index (side entries are in order) */
	const char *error;
};

struct trace_decoded {
	struct trace_dblock *dict;
	size_t ndict, cdict;
	uint32_t *htab;     /* dictionary index + 1, 0 = empty */
	size_t hcap;
	struct trace_run *runs;
	size_t nruns, cruns;
	uint64_t *ckpt;     /* first item of run k << TRACE_CKPT_SHIFT */
	size_t nckpt, cckpt;
	struct trace_side *side;
	size_t nside, cside;
	struct trace_side overflow_side;	/* sink once the side table is full */
	uint64_t items, insns, blocks, gaps;
	/* while decoding */
	const uint8_t *buf;	/* the trace, for finding its PSBs */
	size_t len;
	uint64_t next_psb;	/* the next PSB not reported yet, or UINT64_MAX */
	const size_t *marks;	/* trace_image's CPU marks */
	const int *mark_cpus;
	size_t nmarks, next_mark;
	uint64_t sync;		/* the last PSB reported */
	int have_sync;
	uint64_t last_tsc;	/* the time in force (ticks when it changes) */
	int have_tsc;
	int hw_disabled;	/* the last disable was a hardware one */
	uint64_t serial;	/* trace_decoded_serial */
	/* trace_decoded_item's own cursor (readers own theirs) */
	struct trace_cursor cur;
};

static inline uint64_t run_items(const struct trace_decoded *d, const struct trace_run *r)
{
	if (r->v & TRACE_RUN_SIDE)
		return 1;
	return (uint64_t)RUN_REP(r->v) * d->dict[RUN_IDX(r->v)].ninsn;
}

#endif
