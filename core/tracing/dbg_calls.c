/* core/tracing/dbg_calls.c: the call tree of a thread's decoded trace (dump
 * function-calls, export ctf): the cursor's instructions, classified
 * through the instruction cache, into trace/calls. */
#include "core/tracing/calls.h"
#include "core/tracing/cursor.h"
#include "core/tracing/dbg_trace_int.h"
#include "trace/calls.h"
#include "trace/decode.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define INFO_BITS 12

/* What core keeps of the building: the clock (the builder's segments are
 * copied out as core's). */
struct dbg_calls_int {
	struct trace_calls *calls;	/* while building */
	struct trace_clock clock;	/* TSC at instruction boundaries */
};

/* What the tree needs of one instruction, cached by address (traces run
 * the same code over and over; memory reads and symbol lookups cost). */
struct insn_info {
	uint64_t ip, next, func;
	enum trace_calls_class cls;
	int named;
};

struct walk {
	struct dbg *d;
	struct insn_info *info;		/* 1 << INFO_BITS entries */
};

static enum trace_calls_class class_of(enum disasm_kind k)
{
	switch (k) {
	case DISASM_KIND_OTHER:
		return TRACE_CALLS_OTHER;
	case DISASM_KIND_CALL:
	case DISASM_KIND_CALL_IND:
		return TRACE_CALLS_CALL;
	case DISASM_KIND_RET:
		return TRACE_CALLS_RETURN;
	case DISASM_KIND_SYSCALL:
	case DISASM_KIND_INT:
	case DISASM_KIND_FAR:
	case DISASM_KIND_HLT:
	case DISASM_KIND_UD:
		return TRACE_CALLS_FAR;
	default:
		return TRACE_CALLS_JUMP;
	}
}

/* The function key: its start, else the module (code without a symbol is
 * one function per module, as LLDB has it), else 0. */
static uint64_t func_key(struct dbg *d, uint64_t ip, int *named)
{
	struct dbg_module *m = dbg_tr(d)->host->module_for(d, ip);
	struct sym_loc loc;

	*named = 0;
	if (!m)
		return 0;
	if (m->sym && sym_lookup_addr(m->sym, ip, &loc) == 0 && loc.func) {
		*named = 1;
		return loc.func_addr;
	}
	return m->start;
}

static struct insn_info *insn_info(struct walk *w, uint64_t ip)
{
	struct insn_info *e = &w->info[(ip * 0x9e3779b97f4a7c15ull) >> (64 - INFO_BITS)];
	const struct dbg_insn *in;

	if (e->ip == ip && ip)
		return e;
	e->ip = ip;
	e->func = func_key(w->d, ip, &e->named);
	in = dbg_insn_cached(w->d, ip);	/* read and disassembled once */
	if (in->ok) {
		e->next = ip + in->in.len;
		e->cls = class_of(in->in.kind);
	} else {
		/* unreadable: whatever it does, judge by where the next one is */
		e->next = 0;
		e->cls = TRACE_CALLS_JUMP;
	}
	return e;
}

static uint64_t walk_func(void *ctx, uint64_t ip, int *named)
{
	struct insn_info *e = insn_info(ctx, ip);

	*named = e->named;
	return e->func;
}

void dbg_calls_release(struct dbg_calls *c)
{
	if (c->in) {
		trace_calls_free(c->in->calls);
		trace_clock_release(&c->in->clock);
		free(c->in);
	}
	free(c->segs);
	free(c->last);
	memset(c, 0, sizeof(*c));
}

uint64_t dbg_calls_tsc_at(const struct dbg_calls *c, uint64_t x)
{
	return c->in ? trace_clock_at(&c->in->clock, x) : 0;
}

/* The finished tree's segments as core's (and their extents, asked for);
 * the builder is freed. */
static void take_segs(struct dbg_calls *c, int extents)
{
	size_t n;
	const struct trace_call_seg *s = trace_calls_segs(c->in->calls, &n);

	c->segs = xcalloc(n + 1, sizeof(*c->segs));
	c->nsegs = n;
	for (size_t i = 0; i < n; i++) {
		c->segs[i].first_id = s[i].first_id;
		c->segs[i].last_id = s[i].last_id;
		c->segs[i].first_ip = s[i].first_ip;
		c->segs[i].last_ip = s[i].last_ip;
		c->segs[i].tree = s[i].tree;
		c->segs[i].depth = s[i].depth;
		c->segs[i].kind = s[i].kind == TRACE_SEG_TRACED ? DBG_SEG_TRACED
				  : s[i].kind == TRACE_SEG_UNTRACED ? DBG_SEG_UNTRACED : DBG_SEG_ERRORS;
	}
	if (extents) {
		c->last = xcalloc(n + 1, sizeof(uint64_t));
		trace_calls_extents(s, n, c->last);
	}
	trace_calls_free(c->in->calls);
	c->in->calls = NULL;
	c->timed = c->in->clock.n != 0;
}

/* Feeds the items of dec to c->calls. */
static int walk_items(struct walk *w, const struct trace_decoded *dec, struct dbg_calls_int *c,
		      struct ptdb_err *err)
{
	struct dbg_cursor *cur = dbg_cursor_new(w->d, dec);
	uint64_t items = trace_decoded_item_count(dec), insns = 0;
	struct ptdb_err e;
	int r = 0;

	for (uint64_t i = 0; i < items && r == 0; i++) {
		const struct dbg_item *it = dbg_cursor_item(cur);

		if ((i ? dbg_cursor_next(cur) : dbg_cursor_seek_item(cur, 0)) != 0) {
			r = ptdb_err_set(err, "cannot read the traced instruction after index %" PRIu64,
					 insns);
			break;
		}
		if (it->has_tsc)
			trace_clock_add(&c->clock, insns, it->tsc);
		if (it->kind == DBG_ITEM_INSN && it->code_tag) {
			/* code that changed while traced: its version's */
			const struct dbg_insn *vi = dbg_cursor_insn(cur);
			int ok = vi && vi->ok;

			r = trace_calls_insn(c->calls, it->ip, ok ? it->ip + vi->in.len : 0,
					     ok ? class_of(vi->in.kind) : TRACE_CALLS_JUMP, &e);
			insns++;
		} else if (it->kind == DBG_ITEM_INSN) {
			struct insn_info *in = insn_info(w, it->ip);

			r = trace_calls_insn(c->calls, it->ip, in->next, in->cls, &e);
			insns++;
		} else if (it->kind == DBG_ITEM_GAP ||
			   (it->kind == DBG_ITEM_EVENT && it->event == DBG_EV_OVERFLOW)) {
			r = trace_calls_gap(c->calls, &e);
		} else if (it->kind == DBG_ITEM_EVENT && it->event == DBG_EV_ASYNC_DISABLED) {
			trace_calls_async(c->calls, it->ip);
		}
		if (r < 0)
			ptdb_err_set(err, "cannot build the call tree: %s", e.msg);
	}
	dbg_cursor_free(cur);
	return r;
}

int dbg_trace_calls(struct dbg *d, pid_t tid, int extents, struct dbg_calls *c,
		    struct ptdb_err *err)
{
	struct trace_swc_thread *th = dbg_trace_thread(d, tid);
	struct trace_decoded *dec;
	struct walk w = { d, NULL };
	struct ptdb_err e;

	memset(c, 0, sizeof(*c));
	if (!th)
		return 0;
	if (dbg_trace_decode(d, th, &dec, err) < 0)
		return -1;
	w.info = xcalloc((size_t)1 << INFO_BITS, sizeof(*w.info));
	c->in = xcalloc(1, sizeof(*c->in));
	c->in->calls = trace_calls_new(walk_func, &w);
	trace_clock_init(&c->in->clock);
	if (walk_items(&w, dec, c->in, err) < 0) {
		free(w.info);
		dbg_calls_release(c);
		return -1;
	}
	trace_calls_finish(c->in->calls, &e);
	free(w.info);
	take_segs(c, extents);
	return 1;
}
