/* core/tracing/items_int.h: trace/'s items and TSC conversion turned into
 * core's (cursor.h, trace_info.h); for core/tracing only. */
#ifndef PTDB_CORE_ITEMS_INT_H
#define PTDB_CORE_ITEMS_INT_H

#include "core/tracing/cursor.h"
#include "trace/decode.h"
#include "trace/tsc.h"

struct dbg;

/* A trace item as core's (the same values: dbg_items.c checks them). */
static inline void dbg_item_from(struct dbg_item *o, const struct trace_item *it)
{
	o->kind = (enum dbg_item_kind)it->kind;
	o->ip = it->ip;
	o->error = it->error;
	o->offset = it->offset;
	o->event = it->event;
	o->resumed = it->resumed;
	o->hw = it->hw;
	o->libipt_type = it->libipt_type;
	o->tsc = it->tsc;
	o->has_tsc = it->has_tsc;
	o->cpu = it->cpu;
	o->code_tag = it->code_tag;
}

/* A bundle's tscPerfZeroConversion and the conversion (source "given"). */
struct bundle_tsc;
struct trace_tsc_conv dbg_tsc_from_bundle(const struct bundle_tsc *b);
struct bundle_tsc dbg_tsc_to_bundle(const struct trace_tsc_conv *c);	/* c may be NULL */

/* The session's TSC conversion to fill (made, invalid, on first use). */
struct trace_tsc_conv *dbg_tsc_conv_rw(struct dbg *d);

#endif
