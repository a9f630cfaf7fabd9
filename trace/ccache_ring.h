/* trace/ccache_ring.h: the cache engine's record ring.  Translated code
 * writes one 4-byte block id per block it runs at the ring's head; the
 * tracer reads them from its tail and turns them into packets while the
 * program runs.  The header (CCACHE_RING_*) sits in memory shared with
 * the tracer: the head (the address of the next record, written by the
 * record stub after each record), the negated limit (when the head lands
 * on a CCACHE_RING_ALIGN boundary the stub calls the region's ring stub,
 * which compares it with the limit; at it, the ring wraps, or the
 * records would reach the tail), the request word (a futex: 0 idle,
 * 1 posted by the ring stub, 2 not served: the ring stub's trap), the
 * tail (the tracer's, for information), the ring's bounds and the limit
 * for a wrap: a head that meets its limit at the ring's end goes back to
 * the start by itself when the tracer has said how far it may go there
 * (the records it has read at the start), without a request: only a
 * full ring, or a wrap onto records not read yet, waits for the tracer.  One slot is always left empty
 * (head == tail: empty).  struct ccache_ring is the tracer's side: pure
 * arithmetic over addresses in the program, one object per ring (per
 * record buffer). */
#ifndef PTDB_TRACE_CCACHE_RING_H
#define PTDB_TRACE_CCACHE_RING_H

#include <stddef.h>
#include <stdint.h>

enum {
	CCACHE_RING_HEAD = 0, CCACHE_RING_LIMNEG = 8, CCACHE_RING_WORD = 16, CCACHE_RING_TAIL = 24,
	/* the ring's end negated and its start (fixed), and the negated
	 * limit a head at the end may wrap to by itself (the tracer's, 0:
	 * it may not; ccache_ring_wrap) */
	CCACHE_RING_ENDNEG = 32, CCACHE_RING_START = 40, CCACHE_RING_WRAPNEG = 48,
	CCACHE_RING_HDR_BYTES = 56,
	CCACHE_RING_IDLE = 0, CCACHE_RING_POSTED = 1, CCACHE_RING_TRAP = 2,
	/* the ring's start and end, and every limit, are multiples of this:
	 * the stub compares its head with the limit only when the head
	 * lands on one (its low byte 0: movzbl, jrcxz, no flags touched),
	 * not after every record */
	CCACHE_RING_ALIGN = 256
};

struct ccache_ring {
	uint64_t start, end;	/* the records [start, end): addresses in
				 * the program, end - start a multiple of 4 */
	uint64_t tail;		/* the next record to read */
};

/* A ring over [start, start + bytes rounded down to CCACHE_RING_ALIGN),
 * empty, the head at start (start a multiple of CCACHE_RING_ALIGN). */
void ccache_ring_init(struct ccache_ring *r, uint64_t start, uint64_t bytes);
/* Whether head is one the stub can have written (in [start, end], on a
 * record's boundary). */
int ccache_ring_head_ok(const struct ccache_ring *r, uint64_t head);
/* The records ready to read, oldest first, at most max of them: up to
 * two spans (the second after a wrap), each [span[i][0], span[i][1]);
 * returns their number (0: empty).  ccache_ring_consumed then moves the
 * tail past n records of them. */
int ccache_ring_spans(const struct ccache_ring *r, uint64_t head, size_t max, uint64_t span[2][2]);
void ccache_ring_consumed(struct ccache_ring *r, uint64_t head, size_t n);
/* The head and limit the stub goes on with from head (it reached its
 * limit, or stopped anywhere): 1 with *nhead (head, or the start once
 * the head is at the end and the first record is read) and *nlim (the
 * end, or the slot before the tail); 0 if the ring is full (the tracer
 * reads some first).  The caller writes both into the header (an empty
 * ring's tail moves to the start with the head). */
int ccache_ring_room(struct ccache_ring *r, uint64_t head, uint64_t *nhead, uint64_t *nlim);
/* The limit for a head not at the end, as far as the tail allows (the
 * end, or the slot before the tail rounded down to CCACHE_RING_ALIGN: at
 * or below the head, the ring is full).  The reader may raise the limit to
 * it while the stub runs: the stub compares for equality, and a head
 * short of the old limit is short of this one (the head moves from the
 * end to the start only when the reader serves the stub). */
uint64_t ccache_ring_limit(const struct ccache_ring *r, uint64_t head);
/* For a head read just now (the stub may move it on, never past the
 * limit): the limit a head at the end may take at the start by itself
 * (the slot before the tail rounded down, above the start), or 0 (the
 * head is past the end already, or too little is read: it waits).  A
 * tail at the end with the head past it is moved to the start first
 * (the head wrapped by itself: a whole lap was read), so that a tail at
 * the end always means the lap the head is in.  The tracer publishes it
 * (CCACHE_RING_WRAPNEG) before it raises the limit to the end: a stub
 * at the end sees one for its own lap. */
uint64_t ccache_ring_wrap(struct ccache_ring *r, uint64_t head);

#endif
