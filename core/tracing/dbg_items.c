/* core/tracing/dbg_items.c: what readers of a decoded trace see as core's
 * own (cursor.h, trace_info.h): its counts, side items, timing points and
 * error kinds, the session's TSC conversion, decoding with progress. */
#include "core/tracing/items_int.h"
#include "core/tracing/trace_info.h"
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/bundle.h"

#include <stddef.h>

/* core's enums are trace/decode.h's and trace/tsc.h's values */
_Static_assert(DBG_ITEM_INSN == (int)TRACE_ITEM_INSN && DBG_ITEM_GAP == (int)TRACE_ITEM_GAP &&
	       DBG_ITEM_EVENT == (int)TRACE_ITEM_EVENT, "item kinds");
_Static_assert(DBG_EV_ENABLED == (int)TRACE_EV_ENABLED && DBG_EV_DISABLED == (int)TRACE_EV_DISABLED &&
	       DBG_EV_ASYNC_DISABLED == (int)TRACE_EV_ASYNC_DISABLED &&
	       DBG_EV_OVERFLOW == (int)TRACE_EV_OVERFLOW && DBG_EV_TICK == (int)TRACE_EV_TICK &&
	       DBG_EV_OTHER == (int)TRACE_EV_OTHER && DBG_EV_SYNC == (int)TRACE_EV_SYNC &&
	       DBG_EV_CPU == (int)TRACE_EV_CPU && DBG_EV_NKINDS == (int)TRACE_EV_NKINDS,
	       "event kinds");
_Static_assert(DBG_TSC_GIVEN == (int)TRACE_TSC_GIVEN && DBG_TSC_PERF == (int)TRACE_TSC_PERF &&
	       DBG_TSC_CALIBRATED == (int)TRACE_TSC_CALIBRATED, "TSC sources");

/* ---- a decoded trace ---- */

uint64_t dbg_decoded_insn_count(const struct trace_decoded *dec)
{
	return trace_decoded_insn_count(dec);
}

uint64_t dbg_decoded_item_count(const struct trace_decoded *dec)
{
	return trace_decoded_item_count(dec);
}

uint64_t dbg_decoded_gap_count(const struct trace_decoded *dec)
{
	return trace_decoded_gap_count(dec);
}

uint64_t dbg_decoded_serial(const struct trace_decoded *dec)
{
	return trace_decoded_serial(dec);
}

uint64_t dbg_decoded_insn_item(const struct trace_decoded *dec, uint64_t id)
{
	return trace_decoded_insn_item(dec, id);
}

uint64_t dbg_decoded_side_count(const struct trace_decoded *dec)
{
	return trace_decoded_side_count(dec);
}

int dbg_decoded_side(const struct trace_decoded *dec, uint64_t k, uint64_t *index,
		     struct dbg_item *it)
{
	struct trace_item t;
	int r = trace_decoded_side(dec, k, index, &t);

	dbg_item_from(it, &t);
	return r;
}

void dbg_decoded_summary(const struct trace_decoded *dec, uint64_t *events, int nkinds,
			 uint64_t *tsc_lo, uint64_t *tsc_hi, int *have_tsc)
{
	trace_decoded_summary(dec, events, nkinds, tsc_lo, tsc_hi, have_tsc);
}

void dbg_decoded_time_span(const struct trace_decoded *dec, uint64_t index,
			   struct dbg_time_span *s)
{
	struct trace_time_span t;

	trace_decoded_time_span(dec, index, &t);
	s->has_lo = t.has_lo;
	s->has_hi = t.has_hi;
	s->lo_index = t.lo_index;
	s->lo_tsc = t.lo_tsc;
	s->hi_index = t.hi_index;
	s->hi_tsc = t.hi_tsc;
}

int dbg_decoded_error_kinds(const struct trace_decoded *dec, const char **texts,
			    uint64_t *counts, int max)
{
	return trace_decoded_error_kinds(dec, texts, counts, max);
}

int dbg_trace_decode_progress(struct dbg *d, struct trace_swc_thread *th,
			      int (*fn)(void *ctx, uint64_t done, uint64_t total), void *ctx,
			      struct trace_decoded **out, struct ptdb_err *err)
{
	struct trace_decode_hook hook = { fn, ctx };

	return dbg_trace_decode_hooked(d, th, &hook, out, err);
}

/* ---- the TSC conversion ---- */

struct trace_tsc_conv *dbg_tsc_conv_rw(struct dbg *d)
{
	if (!dbg_tr(d)->tsc_conv)
		dbg_tr(d)->tsc_conv = xcalloc(1, sizeof(*dbg_tr(d)->tsc_conv));
	return dbg_tr(d)->tsc_conv;
}

int dbg_tsc_known(const struct dbg *d, struct dbg_tsc_figures *f)
{
	const struct trace_tsc_conv *c = dbg_tr(d)->tsc_conv;

	if (!c || !c->valid)
		return 0;
	if (f) {
		f->mult = c->mult;
		f->shift = c->shift;
		f->zero = c->zero;
		f->source = c->source;
		f->source_name = trace_tsc_source_name(c);
		f->hz = trace_tsc_freq(c);
		f->has_start = c->has_start;
		f->start_tsc = c->start_tsc;
		f->note = c->note;
	}
	return 1;
}

uint64_t dbg_tsc_to_ns(const struct dbg *d, uint64_t tsc)
{
	return trace_tsc_to_ns(dbg_tr(d)->tsc_conv, tsc);
}

struct trace_tsc_conv dbg_tsc_from_bundle(const struct bundle_tsc *b)
{
	struct trace_tsc_conv c = { .mult = b->mult, .shift = b->shift, .zero = b->zero,
				    .valid = b->valid, .source = TRACE_TSC_GIVEN };

	return c;
}

struct bundle_tsc dbg_tsc_to_bundle(const struct trace_tsc_conv *c)
{
	struct bundle_tsc b = { 0 };

	if (c) {
		b.mult = c->mult;
		b.shift = c->shift;
		b.zero = c->zero;
		b.valid = c->valid;
	}
	return b;
}
