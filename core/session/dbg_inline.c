/* core/session/dbg_inline.c: the calls the compiler inlined, as frames — a stack's
 * concrete frames expanded into LLDB's "[inlined]" frames, the ones a
 * step hides at an inlined call's start, their names and source lines —
 * and source paths through target.source-map. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/symbols/source.h"
#include "trace/decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A loaded trace's thread where its trace ends, with the callers its calls
 * and returns show: the frames 'thread trace goto end' gives, the cursor
 * (and the selection) left as they were. */
int dbg_pm_frames(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
		  struct ptdb_err *err)
{
	struct trace_swc_thread *th = dbg_trace_thread(d, tid);
	struct dbg_replay *cursor = d->tr.replay;
	struct dbg_stop last = d->last, stop;
	pid_t sel = d->sel_tid;
	unsigned frame = d->sel_frame;
	int n;
	struct trace_decoded *dec;
	struct dbg_frame f0;

	if (dbg_pm_frame(d, tid, &f0, err) < 0)
		return -1;
	if (max == 1) {		/* (the replay's frame 0 is f0: 'thread list' needs no decode) */
		out[0] = f0;
		return 1;
	}
	d->tr.replay = NULL;
	if (!th || dbg_trace_decode(d, th, &dec, NULL) < 0 ||
	    dbg_replay_goto(d, tid, trace_decoded_insn_count(dec) - 1, &stop, NULL) < 0 ||
	    (n = dbg_replay_frames(d, out, max, NULL)) < 1 || out[0].pc != f0.pc) {
		out[0] = f0;
		n = 1;
	}
	out[0].replaying = 0;
	dbg_replay_leave(d);
	d->tr.replay = cursor;
	d->last = last;
	d->sel_tid = sel;
	d->sel_frame = frame;
	return n;
}

int dbg_frames(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
	       struct ptdb_err *err)
{
	struct dbg_frame *c, *all;
	int n, k = 0, hide, cap = max + DBG_MAX_INLINE;

	if (d->tr.replay && tid == dbg_replay_tid(d))
		return dbg_replay_frames(d, out, max, err);
	if (dbg_source(d)->frames)
		return dbg_source(d)->frames(d, tid, out, max, err);
	if (max <= 0)
		return 0;
	/* room for the inlined frames a stop may hide before frame 0 */
	c = xcalloc((size_t)max, sizeof(*c));
	all = xcalloc((size_t)cap, sizeof(*all));
	n = dbg_frames_concrete(d, tid, c, max, err);
	for (int i = 0; i < n && k < cap; i++) {
		struct sym_inline inl[DBG_MAX_INLINE];
		uint64_t look = i > 0 && !c[i].trap ? c[i].pc - 1 : c[i].pc;
		int ni = c[i].mod ? sym_inlines_at(c[i].mod->sym, look, inl, DBG_MAX_INLINE) : 0;

		for (int l = 0; l <= ni && k < cap; l++, k++) {
			all[k] = c[i];
			all[k].look = look;
			all[k].inl = (unsigned)l;
			all[k].ninl = (unsigned)ni;
			all[k].virt = l > 0;
			all[k].conc = (unsigned)i;
			all[k].cpc = c[i].pc;
			if (l > 0)
				all[k].pc = inl[l - 1].lo;
		}
	}
	free(c);
	hide = n > 0 && k > 0 ? dbg_inline_hidden(d, tid, all[0].pc) : 0;
	if (hide > 0 && hide < k) {
		all[hide].pc = all[0].pc;	/* the call site, where the thread is */
		all[hide].virt = 0;
	} else {
		hide = 0;
	}
	k = k - hide < max ? k - hide : max;
	memcpy(out, all + hide, (size_t)(k > 0 ? k : 0) * sizeof(*out));
	free(all);
	return n < 0 ? n : k;
}

int dbg_inline_hidden(struct dbg *d, pid_t tid, uint64_t pc)
{
	struct dbg_module *m;
	struct sym_inline inl[DBG_MAX_INLINE];
	int ni;

	if (!d->inl_hide.n || d->inl_hide.tid != tid || d->inl_hide.pc != pc || !dbg_alive(d) ||
	    d->inl_hide.stop_id != target_stop_id(d->proc) || !(m = dbg_module_for(d, pc)))
		return 0;
	ni = sym_inlines_at(m->sym, pc, inl, DBG_MAX_INLINE);
	return (int)d->inl_hide.n <= ni ? (int)d->inl_hide.n : ni;
}

/* An inlined frame as LLDB shows it: "mod`f [inlined] g at file:line"
 * (g the call at level inl, its line the next inner call's call site, or
 * the line table's for the innermost), "mod`f at file:line" for the
 * function itself. */
char *dbg_format_inlined(struct dbg_module *m, const struct dbg_frame *f,
			 const struct sym_loc *loc, char *buf, size_t n)
{
	struct sym_inline inl[DBG_MAX_INLINE];
	int ni = sym_inlines_at(m->sym, f->look, inl, DBG_MAX_INLINE);
	unsigned l = f->inl < (unsigned)ni ? f->inl : (unsigned)ni;
	const char *file = loc->file, *base;
	unsigned line = loc->line, col = loc->column;
	size_t len;

	if (l > 0) {
		file = inl[l - 1].call_file;
		line = inl[l - 1].call_line;
		col = inl[l - 1].call_col;
	}
	/* frame #0 of a concrete frame inside an inlined call's lexical
	 * block: "mod`f at file:line" as lldb-16 names it (no arguments) */
	if ((int)l < ni && !(l == 0 && sym_inline_in_block(m->sym, f->look)))
		snprintf(buf, n, "%s`%s [inlined] %s", sym_module_name(m->sym), loc->func, inl[l].name);
	else
		snprintf(buf, n, "%s`%s", sym_module_name(m->sym), loc->func);
	len = strlen(buf);
	if (!file || !line || len >= n)
		return buf;
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (col)
		snprintf(buf + len, n - len, " at %s:%u:%u", base, line, col);
	else
		snprintf(buf + len, n - len, " at %s:%u", base, line);
	return buf;
}

int dbg_frame_line(struct dbg *d, const struct dbg_frame *f, int caller, const char **file,
		   unsigned *line, unsigned *column)
{
	struct dbg_module *m = f->mod ? f->mod : dbg_module_for(d, f->pc);

	if (m && f->look && f->ninl && f->inl) {
		struct sym_inline inl[DBG_MAX_INLINE];
		int ni = sym_inlines_at(m->sym, f->look, inl, DBG_MAX_INLINE);

		if ((int)f->inl > ni || !inl[f->inl - 1].call_file || !inl[f->inl - 1].call_line)
			return -1;
		*file = inl[f->inl - 1].call_file;
		*line = inl[f->inl - 1].call_line;
		*column = inl[f->inl - 1].call_col;
		return 0;
	}
	return dbg_addr_line(d, f->look ? f->look : caller && f->pc ? f->pc - 1 : f->pc, file, line,
			     column);
}

int dbg_frame_function(struct dbg *d, const struct dbg_frame *f, int caller, char *buf,
		       size_t n)
{
	uint64_t look = f->look ? f->look : caller && f->pc ? f->pc - 1 : f->pc;
	struct dbg_module *m = f->mod ? f->mod : dbg_module_for(d, f->pc);
	struct sym_loc loc;

	if (!m || !m->sym || sym_lookup_addr(m->sym, look, &loc) < 0 || !loc.func)
		return -1;
	if (f->look && f->ninl) {
		struct sym_inline inl[DBG_MAX_INLINE];
		int ni = sym_inlines_at(m->sym, f->look, inl, DBG_MAX_INLINE);

		if ((int)f->inl < ni && inl[f->inl].name) {
			snprintf(buf, n, "%s", inl[f->inl].name);
			return 0;
		}
	}
	snprintf(buf, n, "%s", loc.func);
	return 0;
}

const char *dbg_source_path(struct dbg *d, const char *path, char *buf, size_t n)
{
	return source_map_apply(d->source_map, path, buf, n);
}

/* One caller line of an inlined call, as LLDB's symbol context goes on:
 * "mod`f + off[ [inlined] g + off] at file:line:col" — the address the
 * start of the call's range holding addr, the line its call site. */
static void inline_caller(struct dbg_module *m, const struct sym_loc *loc,
			  const struct sym_inline *inl, int k, int ni, char *buf, size_t n)
{
	const char *file = inl[k].call_file, *base;
	uint64_t at = inl[k].lo;
	size_t len;

	snprintf(buf, n, "%s`%s", sym_module_name(m->sym), loc->func);
	len = strlen(buf);
	if (at != loc->func_addr && len < n)
		len += (size_t)snprintf(buf + len, n - len, " + %" PRIu64, at - loc->func_addr);
	if (k + 1 < ni && len < n) {
		len += (size_t)snprintf(buf + len, n - len, " [inlined] %s", inl[k + 1].name);
		if (at != inl[k + 1].lo && len < n)
			len += (size_t)snprintf(buf + len, n - len, " + %" PRIu64, at - inl[k + 1].lo);
	}
	if (!file || !inl[k].call_line || len >= n)
		return;
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (inl[k].call_col)
		snprintf(buf + len, n - len, " at %s:%u:%u", base, inl[k].call_line, inl[k].call_col);
	else
		snprintf(buf + len, n - len, " at %s:%u", base, inl[k].call_line);
}

char *dbg_format_inline_callers(struct dbg *d, uint64_t addr, const char *indent, char *buf,
				size_t n)
{
	struct dbg_module *m = dbg_module_for(d, addr);
	struct sym_inline inl[DBG_MAX_INLINE];
	struct sym_loc loc;
	size_t len = 0;
	int ni;

	buf[0] = 0;
	if (!m || !m->sym || sym_lookup_addr(m->sym, addr, &loc) < 0 || !loc.func)
		return buf;
	ni = sym_inlines_at(m->sym, addr, inl, DBG_MAX_INLINE);
	for (int k = 0; k < ni && len < n; k++) {
		char one[512];

		inline_caller(m, &loc, inl, k, ni, one, sizeof(one));
		len += (size_t)snprintf(buf + len, n - len, "%s%s\n", indent, one);
	}
	return buf;
}
