/* trace/decode_events.c: what the block decoder reports beside blocks, as
 * the decoded thread's side items (trace/decode.c's loop calls it): gaps
 * (libipt's errors and ptdb's own), events, a sync item per PSB, a tick
 * item per new time, CPU changes, and where the code generation changed. */
#include "trace/decode.h"
#include "trace/decode_int.h"
#include "trace/pages.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

static struct trace_side *add_side(struct trace_decoded *d)
{
	struct trace_side *s;

	if (d->nside >= RUN_IDX_MAX)	/* 16 M events: the rest are dropped */
		return &d->overflow_side;
	if (d->nside == d->cside) {
		d->cside = d->cside ? 2 * d->cside : 64;
		d->side = xrealloc(d->side, d->cside * sizeof(*d->side));
	}
	s = &d->side[d->nside];
	memset(s, 0, sizeof(*s));
	s->item = d->items;
	trace_add_run(d, TRACE_RUN_SIDE | (uint32_t)d->nside);
	d->nside++;
	d->items++;
	return s;
}

/* ip: where decoding failed, when libipt says (0 if not). */
void trace_add_gap(struct trace_decoded *d, struct pt_block_decoder *dec, int status,
		   uint64_t ip)
{
	struct trace_side *s = add_side(d);
	uint64_t off = 0;

	pt_blk_get_offset(dec, &off);
	s->kind = TRACE_ITEM_GAP;
	s->error = status == TRACE_GAP_NO_SYNC ? "no sync point found"
		 : status == TRACE_GAP_ENDLESS ? "endless loop without trace packets"
					       : pt_errstr(pt_errcode(status));
	s->offset = off;
	s->ip = ip;
	d->gaps++;
}

static struct trace_side *add_simple_event(struct trace_decoded *d, int kind, uint64_t ip,
					   uint64_t tsc, int has_tsc)
{
	struct trace_side *s = add_side(d);

	s->kind = TRACE_ITEM_EVENT;
	s->event = (uint8_t)kind;
	s->ip = ip;
	s->tsc = tsc;
	s->has_tsc = (uint8_t)has_tsc;
	if (kind == TRACE_EV_TICK)
		s->libipt_type = ptev_tick;
	return s;
}

uint64_t trace_next_psb(const uint8_t *buf, size_t len, uint64_t from)
{
	static const uint8_t psb[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };
	const uint8_t *p;

	if (from >= len)
		return UINT64_MAX;
	p = memmem(buf + from, len - from, psb, sizeof(psb));
	return p ? (uint64_t)(p - buf) : UINT64_MAX;
}

/* An execution on a new CPU starts at a PSB: LLDB's "CPU core changed"
 * comes before that PSB's time and sync point. */
static void cpu_marks(struct trace_decoded *d, uint64_t off)
{
	while (d->next_mark < d->nmarks && d->marks[d->next_mark] <= off)
		add_simple_event(d, TRACE_EV_CPU, 0, 0, 0)->cpu = (uint16_t)d->mark_cpus[d->next_mark++];
}

static void add_sync(struct trace_decoded *d, uint64_t off)
{
	if (d->have_sync && off == d->sync)
		return;
	if (d->have_sync && off >= d->stop_off) {
		d->stop = 1;	/* the next chunk's (segment's) first item */
		d->stop_exact = off == d->stop_off;
		return;
	}
	if (d->have_sync && d->mode == TRACE_MODE_INDEX)
		trace_index_boundary(d, off);
	d->sync = off;
	d->have_sync = 1;
	cpu_marks(d, off);
	add_simple_event(d, TRACE_EV_SYNC, 0, 0, 0)->offset = off;
}

/* A new time: a tick item (LLDB appends an "HW clock tick" whenever the
 * TSC changes, whatever packet brought it).  1 if it was new. */
static int note_tsc(struct trace_decoded *d, uint64_t tsc, uint64_t ip)
{
	if (!d->seen_tsc) {
		d->seen_tsc = 1;
		d->first_tsc = tsc;
	}
	if (d->have_tsc && tsc == d->last_tsc)
		return 0;
	d->last_tsc = tsc;
	d->have_tsc = 1;
	add_simple_event(d, TRACE_EV_TICK, ip, tsc, 1);
	return 1;
}

/* One sync item per PSB.  libipt 2.0.5 moves its sync offset only when it
 * (re)synchronizes, not when it decodes through a PSB; but each PSB+ ends
 * in status events, and when they come the decoder stands just past that
 * PSB+ (the period is at least 64 bytes): the PSBs up to its position are
 * the ones passed. */
void trace_synced(struct trace_decoded *d, struct pt_block_decoder *dec)
{
	uint64_t off, tsc;
	uint32_t lost_mtc, lost_cyc;

	if (pt_blk_get_sync_offset(dec, &off) < 0)
		return;
	/* the PSB+'s time first, as LLDB ticks before the sync point */
	cpu_marks(d, off);
	if (pt_blk_time(dec, &tsc, &lost_mtc, &lost_cyc) >= 0 && tsc)
		note_tsc(d, tsc, 0);
	add_sync(d, off);
	d->next_psb = trace_next_psb(d->buf, d->len, off + 1);
}

static void passed_psb(struct trace_decoded *d, struct pt_block_decoder *dec)
{
	uint64_t pos;

	if (d->next_psb == UINT64_MAX || pt_blk_get_offset(dec, &pos) < 0)
		return;
	while (d->next_psb <= pos && !d->stop) {
		add_sync(d, d->next_psb);
		d->next_psb = trace_next_psb(d->buf, d->len, d->next_psb + 1);
	}
}

/* An event's new time: a tick item.  1 if it was new. */
static int note_time(struct trace_decoded *d, const struct pt_event *ev, uint64_t ip)
{
	return ev->has_tsc ? note_tsc(d, ev->tsc, ip) : 0;
}

/* The items from here on ran in generation gen (trace_cursor_gen). */
static void note_gen(struct trace_decoded *d, uint64_t gen)
{
	if (d->ngens + 2 > d->cgens) {
		d->cgens = d->cgens ? 2 * d->cgens : 16;
		d->gens = xrealloc(d->gens, d->cgens * sizeof(*d->gens));
	}
	d->gens[d->ngens++] = d->items;
	d->gens[d->ngens++] = gen;
}

static void add_event(struct trace_decoded *d, const struct pt_event *ev)
{
	struct trace_side *s;
	int kind, hw = 0;
	uint64_t ip = 0;

	/* the code generation the collector said (trace/pages.h) */
	if (ev->type == ptev_paging || ev->type == ptev_async_paging) {
		uint64_t gen = trace_pages_gen_of_cr3(ev->type == ptev_paging ? ev->variant.paging.cr3
									     : ev->variant.async_paging.cr3);

		if (gen != d->gen && d->mode != TRACE_MODE_INDEX)
			note_gen(d, gen);
		d->gen = gen;
		trace_gen_images_set(d->gi, d->dec, gen);	/* its code's versions */
		note_time(d, ev, 0);
		return;
	}
	if (ev->status_update) {
		note_time(d, ev, 0);	/* the PSB+'s TSC */
		return;     /* PSB+ bookkeeping (§13) */
	}
	if (!d->seen_hw && (ev->type == ptev_enabled || ev->type == ptev_disabled ||
			    ev->type == ptev_async_disabled)) {
		d->seen_hw = 1;
		d->first_hw_enabled = ev->type == ptev_enabled;
		d->first_hw_item = d->items;
	}
	switch (ev->type) {
	case ptev_enabled:
		kind = TRACE_EV_ENABLED;
		ip = ev->variant.enabled.ip;
		hw = d->hw_disabled;
		d->hw_disabled = 0;
		break;
	case ptev_disabled:
		kind = TRACE_EV_DISABLED;
		ip = ev->ip_suppressed ? 0 : ev->variant.disabled.ip;
		hw = d->hw_disabled = 1;
		break;
	case ptev_async_disabled:
		kind = TRACE_EV_ASYNC_DISABLED;
		ip = ev->variant.async_disabled.at;
		d->hw_disabled = 0;
		break;
	case ptev_overflow:
		kind = TRACE_EV_OVERFLOW;
		ip = ev->ip_suppressed ? 0 : ev->variant.overflow.ip;
		break;
	case ptev_tick:
		/* a tick is a new time or nothing (libipt also ticks at a
		 * time the last event already brought) */
		note_time(d, ev, ev->ip_suppressed ? 0 : ev->variant.tick.ip);
		return;
	case ptev_exec_mode:
	case ptev_cbr:
		note_time(d, ev, 0);
		return;
	default:
		kind = TRACE_EV_OTHER;
		break;
	}
	note_time(d, ev, 0);
	s = add_side(d);
	s->kind = TRACE_ITEM_EVENT;
	s->event = (uint8_t)kind;
	s->libipt_type = (uint8_t)ev->type;
	s->ip = ip;
	s->hw = (uint8_t)hw;
	s->resumed = ev->type == ptev_enabled && ev->variant.enabled.resumed;
	if (ev->type == ptev_enabled && !d->enables++) {
		if (d->mode == TRACE_MODE_CHUNK && d->first_resumed != 2)
			s->resumed = (uint8_t)d->first_resumed;
		else if (d->mode == TRACE_MODE_INDEX)
			d->ix->ent[d->ix->n - 1].first_resumed = s->resumed;
	}
	s->has_tsc = ev->has_tsc;
	s->tsc = ev->tsc;
	if (kind == TRACE_EV_OVERFLOW)
		s->error = pt_errstr(pte_overflow);	/* LLDB shows it as an error */
}

int trace_drain(struct trace_decoded *d, struct pt_block_decoder *dec, int status)
{
	while (status >= 0 && (status & pts_event_pending)) {
		struct pt_event ev;

		status = pt_blk_event(dec, &ev, sizeof(ev));
		if (status >= 0) {
			uint64_t pos;

			/* a PSB+ passed: a new CPU, its time, its sync */
			if (ev.status_update && pt_blk_get_offset(dec, &pos) == 0)
				cpu_marks(d, pos);
			add_event(d, &ev);
			if (ev.status_update)
				passed_psb(d, dec);
			if (d->stop)
				break;
		}
	}
	return status;
}
