/* trace/ccache_ring.c: the record ring's arithmetic (see ccache_ring.h);
 * pure. */
#include "trace/ccache_ring.h"

void ccache_ring_init(struct ccache_ring *r, uint64_t start, uint64_t bytes)
{
	r->start = start;
	r->end = start + (bytes & ~(uint64_t)(CCACHE_RING_ALIGN - 1));
	r->tail = start;
}

int ccache_ring_head_ok(const struct ccache_ring *r, uint64_t head)
{
	return head >= r->start && head <= r->end && (head - r->start) % 4 == 0;
}

/* The tail as the reader sees it: at the end it has read a whole lap,
 * and goes on at the start once the head has wrapped. */
static uint64_t tail_at(const struct ccache_ring *r, uint64_t head)
{
	return r->tail == r->end && head != r->end ? r->start : r->tail;
}

int ccache_ring_spans(const struct ccache_ring *r, uint64_t head, size_t max, uint64_t span[2][2])
{
	uint64_t t = tail_at(r, head), left = (uint64_t)max * 4;
	int n = 0;

	if (!ccache_ring_head_ok(r, head) || t == head)
		return 0;
	if (head < t) {		/* [t, end), then [start, head) */
		uint64_t a = r->end - t < left ? r->end - t : left;

		span[n][0] = t;
		span[n++][1] = t + a;
		left -= a;
		t = r->start;
	}
	if (left && head > t) {
		uint64_t a = head - t < left ? head - t : left;

		span[n][0] = t;
		span[n++][1] = t + a;
	}
	return n;
}

void ccache_ring_consumed(struct ccache_ring *r, uint64_t head, size_t n)
{
	uint64_t t = tail_at(r, head), b = (uint64_t)n * 4;

	if (head < t && b >= r->end - t) {
		b -= r->end - t;
		t = r->start;
	}
	r->tail = t + b;
}

int ccache_ring_room(struct ccache_ring *r, uint64_t head, uint64_t *nhead, uint64_t *nlim)
{
	uint64_t t = tail_at(r, head), h = head;

	if (!ccache_ring_head_ok(r, head))
		return 0;
	if (h == r->end) {
		/* the wrap: the start's slot must be read (an empty ring,
		 * head == tail, reads as empty from the start, and so does
		 * the tail: at the end it would say a whole lap is read
		 * once the head is back there) */
		if (t == r->end)
			t = r->tail = r->start;
		else if (t == r->start)
			return 0;
		h = r->start;
	}
	*nhead = h;
	*nlim = ccache_ring_limit(r, h);
	return *nlim > h;
}

uint64_t ccache_ring_limit(const struct ccache_ring *r, uint64_t head)
{
	uint64_t t = tail_at(r, head);

	/* (the slot before the tail stays empty; the stub checks only on
	 * CCACHE_RING_ALIGN boundaries) */
	return t <= head ? r->end : (t - 4) & ~(uint64_t)(CCACHE_RING_ALIGN - 1);
}

uint64_t ccache_ring_wrap(struct ccache_ring *r, uint64_t head)
{
	uint64_t w;

	if (!ccache_ring_head_ok(r, head))
		return 0;
	if (r->tail == r->end && head != r->end)
		r->tail = r->start;
	if (r->tail > head)
		return 0;
	/* (a tail at the end, everything read: short of the end, so the
	 * head cannot come back to the end before the tracer has read) */
	w = (r->tail - 4) & ~(uint64_t)(CCACHE_RING_ALIGN - 1);
	return r->tail >= r->start + 4 && w > r->start ? w : 0;
}
