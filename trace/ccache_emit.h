/* trace/ccache_emit.h: the buffer the cache engine's code is written into
 * (the translator ccache.c, the watch checks ccache_watch.c, the served
 * misses ccache_shm.c): bytes appended while they fit, a RIP-relative
 * field computed from where its instruction lands, a slot of a region
 * addressed RIP-relative or at %gs:off (CCACHE_GS).  Internal to trace/. */
#ifndef PTDB_TRACE_CCACHE_EMIT_H
#define PTDB_TRACE_CCACHE_EMIT_H

#include <stdint.h>
#include <string.h>

#include "trace/ccache.h"

struct ccache_emit {
	uint8_t *p;
	size_t n, cap;
	uint64_t at;	/* the cache address of p[0] */
	int bad;	/* out of room, or a displacement out of range */
};

static inline void ccache_put(struct ccache_emit *e, const void *b, size_t n)
{
	if (e->n + n > e->cap) {
		e->bad = 1;
		return;
	}
	memcpy(e->p + e->n, b, n);
	e->n += n;
}

static inline void ccache_put8(struct ccache_emit *e, uint8_t v)
{
	ccache_put(e, &v, 1);
}

static inline void ccache_put32(struct ccache_emit *e, uint32_t v)
{
	ccache_put(e, &v, 4);
}

static inline void ccache_put64(struct ccache_emit *e, uint64_t v)
{
	ccache_put(e, &v, 8);
}

static inline int ccache_fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* op[0..n) then a disp32 (or rel32) addressing target relative to the
 * instruction's end (the field is its last). */
static inline void ccache_put_rel(struct ccache_emit *e, const uint8_t *op, size_t n, uint64_t target)
{
	int64_t d = (int64_t)(target - (e->at + e->n + n + 4));

	if (!ccache_fits32(d))
		e->bad = 1;
	ccache_put(e, op, n);
	ccache_put32(e, (uint32_t)d);
}

/* op[0..n) (its last byte a ModRM of mod 00, r/m 101) addressing slot off
 * of region: RIP-relative in the region's slot page, or with CCACHE_GS
 * at %gs:off (the ModRM's r/m made 100, SIB 0x25: no base, no index, an
 * absolute disp32). */
static inline void ccache_put_slot(struct ccache_emit *e, const uint8_t *op, size_t n, uint64_t region,
				   uint32_t off)
{
	if (!(region & CCACHE_GS)) {
		ccache_put_rel(e, op, n, region + off);
		return;
	}
	ccache_put8(e, 0x65);
	ccache_put(e, op, n - 1);
	ccache_put8(e, (uint8_t)((op[n - 1] & ~7) | 4));
	ccache_put8(e, 0x25);
	ccache_put32(e, off);
}

#endif
