/* core/tracing/dbg_replay.c: going back in time over a thread's trace.  A
 * position (instruction id and item index of the decoded trace, read
 * through a struct dbg_cursor) stands for the thread while replaying; moving it backward or forward by instruction,
 * line, function or to a breakpoint follows GDB's reverse-execution rules
 * over the recorded history.  Call depth comes from the instructions
 * themselves: a taken CALL enters a frame, a RET leaves one.  Registers and
 * memory are not recorded: only the program counter is known. */
#include "core/tracing/cursor.h"
#include "core/tracing/dbg_trace_int.h"
#include "trace/decode.h"
#include "trace/swc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct dbg_replay {
	pid_t tid;
	struct trace_swc_thread *th;
	uint64_t id, item;	/* the instruction at the cursor */
	uint64_t total;		/* instructions in the trace */
	struct dbg_stop live;	/* the live stop, told again when leaving */
	struct dbg_cursor *cur;	/* over the decoded trace numbered serial */
	uint64_t serial;
};

static void replay_free(struct dbg_replay *r)
{
	if (r)
		dbg_cursor_free(r->cur);
	free(r);
}

/* The replay's cursor at item index of dec: 0, or -1 (out of range or
 * unreadable). */
static int at_item(struct dbg *d, struct trace_decoded *dec, uint64_t index,
		   const struct dbg_item **it)
{
	struct dbg_replay *r = dbg_tr(d)->replay;

	if (!r->cur || r->serial != trace_decoded_serial(dec)) {
		dbg_cursor_free(r->cur);
		r->cur = dbg_cursor_new(d, dec);
		r->serial = trace_decoded_serial(dec);
	}
	*it = dbg_cursor_item(r->cur);
	return dbg_cursor_seek_item(r->cur, index);
}

/* One step of a walk: the neighbouring instruction, and whether a gap lay
 * between. */
struct pos {
	uint64_t id, item, ip;
	uint32_t tag;		/* its item's code_tag (code that changed) */
};

static struct trace_decoded *decoded(struct dbg *d, struct ptdb_err *err)
{
	struct trace_decoded *dec;

	if (dbg_trace_decode(d, dbg_tr(d)->replay->th, &dec, err) < 0)
		return NULL;
	return dec;
}

/* The instruction next to p (dir -1 or +1): 0, 1 at the trace's edge, 2 if
 * a gap lies between (n then is the instruction beyond it). */
static int neighbour(struct dbg *d, struct trace_decoded *dec, const struct pos *p, int dir,
		     struct pos *n)
{
	uint64_t count = trace_decoded_item_count(dec), i = p->item;
	int gap = 0;

	for (;;) {
		const struct dbg_item *it;

		if ((dir < 0 && i == 0) || (dir > 0 && i + 1 >= count))
			return 1;
		i = dir < 0 ? i - 1 : i + 1;
		if (at_item(d, dec, i, &it) < 0)
			return 1;
		if (it->kind == DBG_ITEM_GAP)
			gap = 1;
		if (it->kind != DBG_ITEM_INSN)
			continue;
		n->item = i;
		n->ip = it->ip;
		n->tag = it->code_tag;
		n->id = dir < 0 ? p->id - 1 : p->id + 1;
		return gap ? 2 : 0;
	}
}

enum flow { F_OTHER, F_CALL, F_RET };

/* The instruction at p as it ran. */
static const struct dbg_insn *insn_at(struct dbg *d, const struct pos *p, struct dbg_insn *buf)
{
	return p->tag ? dbg_insn_version(d, p->ip, p->tag, buf) : dbg_insn_cached(d, p->ip);
}

/* The code version of the instruction item at index (0: memory's). */
static uint32_t tag_at(struct dbg *d, struct trace_decoded *dec, uint64_t index)
{
	const struct dbg_item *it;

	return at_item(d, dec, index, &it) == 0 && it->kind == DBG_ITEM_INSN ? it->code_tag : 0;
}

/* What the instruction at p did to the call depth, given where the thread
 * went next (next_ip; 0 unknown). */
static enum flow flow_of(struct dbg *d, const struct pos *p, uint64_t next_ip)
{
	struct dbg_insn buf;
	const struct dbg_insn *e = insn_at(d, p, &buf);
	uint64_t ip = p->ip;
	const struct disasm_insn *in = &e->in;

	if (!e->ok)
		return F_OTHER;
	if (in->kind == DISASM_KIND_RET)
		return F_RET;
	/* "call next" only pushes its address: no frame */
	if ((in->kind == DISASM_KIND_CALL || in->kind == DISASM_KIND_CALL_IND) &&
	    (!next_ip || next_ip != ip + in->len))
		return F_CALL;
	return F_OTHER;
}

struct line {
	const char *file;
	unsigned line;
	int known;
};

static struct line line_of(struct dbg *d, uint64_t ip)
{
	struct line l = { NULL, 0, 0 };
	unsigned col;

	l.known = dbg_tr(d)->host->addr_line(d, ip, &l.file, &l.line, &col) == 0;
	return l;
}

static int same_line(struct line a, struct line b)
{
	return a.known && b.known && a.line == b.line && a.file == b.file;
}

int dbg_replaying(const struct dbg *d)
{
	return dbg_tr(d)->replay != NULL;
}

pid_t dbg_replay_tid(const struct dbg *d)
{
	return dbg_tr(d)->replay ? dbg_tr(d)->replay->tid : 0;
}

int dbg_replay_cursor(const struct dbg *d, uint64_t *id, uint64_t *total)
{
	if (!dbg_tr(d)->replay)
		return -1;
	*id = dbg_tr(d)->replay->id;
	*total = dbg_tr(d)->replay->total;
	return 0;
}

void dbg_replay_leave(struct dbg *d)
{
	if (!dbg_tr(d)->replay)
		return;
	*dbg_tr(d)->host->last(d) = dbg_tr(d)->replay->live;
	replay_free(dbg_tr(d)->replay);
	dbg_tr(d)->replay = NULL;
}

static void set_stop(struct dbg *d, struct dbg_stop *stop, int edge)
{
	memset(stop, 0, sizeof(*stop));
	stop->reason = DBG_R_REPLAY;
	stop->tid = dbg_tr(d)->replay->tid;
	stop->replay_id = dbg_tr(d)->replay->id;
	stop->replay_total = dbg_tr(d)->replay->total;
	stop->replay_edge = edge;
	*dbg_tr(d)->host->last(d) = *stop;
	dbg_tr(d)->host->select(d, dbg_tr(d)->replay->tid);
}

/* A replay of thread tid's trace, which must hold instructions (dec: its
 * decoded trace); its place (id, item) and live stop are the caller's to
 * set.  NULL with err. */
static struct dbg_replay *replay_new(struct dbg *d, pid_t tid, struct trace_decoded **dec,
				     struct ptdb_err *err)
{
	struct trace_swc_thread *th = dbg_trace_thread(d, tid);
	struct dbg_replay *r;

	if (!th) {
		ptdb_err_set(err, "thread #%u is not traced", dbg_thread_index(d, tid));
		return NULL;
	}
	if (dbg_trace_decode(d, th, dec, err) < 0)
		return NULL;
	if (!trace_decoded_insn_count(*dec)) {
		ptdb_err_set(err, "the trace of thread #%u holds no instructions",
			     dbg_thread_index(d, tid));
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->tid = tid;
	r->th = th;
	r->total = trace_decoded_insn_count(*dec);
	return r;
}

int dbg_replay_goto(struct dbg *d, pid_t tid, uint64_t id, struct dbg_stop *stop,
		    struct ptdb_err *err)
{
	struct trace_decoded *dec;
	struct dbg_replay *r = replay_new(d, tid, &dec, err);

	if (!r)
		return -1;
	if (id >= r->total) {
		ptdb_err_set(err, "no instruction %" PRIu64 " in the trace: its ids are 0 to %" PRIu64,
			     id, r->total - 1);
		free(r);
		return -1;
	}
	r->live = dbg_tr(d)->replay ? dbg_tr(d)->replay->live : *dbg_tr(d)->host->last(d);
	r->item = trace_decoded_insn_item(dec, id);	/* O(log n) */
	r->id = id;
	replay_free(dbg_tr(d)->replay);
	dbg_tr(d)->replay = r;
	set_stop(d, stop, 0);
	return 0;
}

int dbg_replay_from_end(struct dbg *d, pid_t tid, struct ptdb_err *err)
{
	struct trace_decoded *dec;
	struct dbg_replay *r = replay_new(d, tid, &dec, err);

	if (!r)
		return -1;
	r->live = *dbg_tr(d)->host->last(d);
	/* one past the last instruction: where the live thread is */
	r->id = r->total;
	r->item = trace_decoded_item_count(dec);
	replay_free(dbg_tr(d)->replay);
	dbg_tr(d)->replay = r;
	return 0;
}

int dbg_replay_code_gen(struct dbg *d, uint64_t *gen)
{
	struct dbg_replay *r = dbg_tr(d)->replay;
	struct trace_decoded *dec;
	const struct dbg_item *it;

	if (!r)
		return -1;
	*gen = UINT64_MAX;	/* past the end: the live thread's, the newest */
	if (r->id >= r->total || !(dec = decoded(d, NULL)) || at_item(d, dec, r->item, &it) < 0)
		return 0;
	*gen = dbg_cursor_gen(r->cur);
	return 0;
}

uint64_t dbg_replay_pc(struct dbg *d)
{
	struct trace_decoded *dec;
	const struct dbg_item *it;

	if (!dbg_tr(d)->replay || !(dec = decoded(d, NULL)))
		return 0;
	if (dbg_tr(d)->replay->id >= dbg_tr(d)->replay->total) {
		/* past the end: the live thread's pc */
		struct user_regs_struct r;

		return dbg_tr(d)->host->alive(d) &&
		       target_get_regs(dbg_tr_proc(d), dbg_tr(d)->replay->tid, &r, NULL) == 0 ? r.rip : 0;
	}
	if (at_item(d, dec, dbg_tr(d)->replay->item, &it) < 0)
		return 0;
	return it->ip;
}

/* ---- moving ---- */

/* Walks from the cursor in direction dir until done() says stop; the
 * cursor ends there, or at the edge (edge 1 the beginning, 2 the end) or
 * just before a gap. */
struct walk {
	struct dbg *d;
	struct trace_decoded *dec;
	int dir;
	int depth;		/* frames entered (>0) or left (<0) so far */
	struct pos cur;
	struct line start;	/* the cursor's line when the move began */
	unsigned bp_id, bp_loc;
};

/* Moves w one instruction; updates the depth.  0 moved, else the edge
 * (1 or 2) or 3 for a gap. */
static int walk_step(struct walk *w)
{
	struct pos n;
	int r = neighbour(w->d, w->dec, &w->cur, w->dir, &n);

	if (r == 1)
		return w->dir < 0 ? 1 : 2;
	if (r == 2)
		return 3;
	if (w->dir > 0) {
		/* leaving cur forward: what it did */
		enum flow f = flow_of(w->d, &w->cur, n.ip);

		w->depth += f == F_CALL ? 1 : f == F_RET ? -1 : 0;
	} else {
		/* going back over n: undo what it did */
		enum flow f = flow_of(w->d, &n, w->cur.ip);

		w->depth += f == F_RET ? 1 : f == F_CALL ? -1 : 0;
	}
	w->cur = n;
	return 0;
}

/* Backward to the first instruction of the run of line l in the frame at
 * depth 0 of the walk (callees inside the run are skipped). */
static void back_to_line_start(struct walk *w, struct line l)
{
	for (;;) {
		struct walk save = *w;
		int r;

		/* one instruction back, then through any callee to its call */
		r = walk_step(w);
		while (r == 0 && w->depth > 0)
			r = walk_step(w);
		if (r != 0 || w->depth < 0 || !same_line(line_of(w->d, w->cur.ip), l)) {
			*w = save;
			return;
		}
	}
}

/* w, a walk in direction dir from the replay's place: 0, or -1 (err). */
static int walk_start(struct walk *w, struct dbg *d, int dir, struct ptdb_err *err)
{
	memset(w, 0, sizeof(*w));
	w->d = d;
	w->dir = dir;
	if (!(w->dec = decoded(d, err)))
		return -1;
	w->cur.id = dbg_tr(d)->replay->id;
	w->cur.item = dbg_tr(d)->replay->item;
	w->cur.ip = dbg_replay_pc(d);
	w->cur.tag = tag_at(d, w->dec, w->cur.item);
	return 0;
}

int dbg_replay_move(struct dbg *d, int dir, enum dbg_replay_kind kind, struct dbg_stop *stop,
		    struct ptdb_err *err)
{
	struct walk w;
	int edge = 0, r = 0;

	if (!dbg_tr(d)->replay)
		return ptdb_err_set(err, "not replaying a trace");
	if (walk_start(&w, d, dir, err) < 0)
		return -1;
	w.start = line_of(d, w.cur.ip);
	for (;;) {
		r = walk_step(&w);
		if (r)
			break;
		if (kind == DBG_RP_INSN)
			break;
		if (kind == DBG_RP_OUT) {
			if (w.depth < 0)
				break;
			continue;
		}
		if (kind == DBG_RP_CONTINUE) {
			if (dbg_tr(d)->host->bp_replay_hit(d, w.cur.ip, &w.bp_id, &w.bp_loc))
				break;
			continue;
		}
		/* by line: into callees with line information (step), over
		 * them (next); leaving the frame stops in the caller */
		{
			struct line l = line_of(d, w.cur.ip);

			if (w.depth > 0 && (kind == DBG_RP_LINE_OVER || !l.known))
				continue;
			if (w.depth == 0 && (!l.known || same_line(l, w.start)))
				continue;
			if (dir < 0) {
				/* the beginning of that line's run, in its frame */
				w.depth = 0;
				back_to_line_start(&w, l);
			}
			break;
		}
	}
	if (r == 1 || r == 2)
		edge = r;
	dbg_tr(d)->replay->id = w.cur.id;
	dbg_tr(d)->replay->item = w.cur.item;
	set_stop(d, stop, edge);
	if (r == 3)
		stop->replay_gap = 1;
	if (kind == DBG_RP_CONTINUE && !r) {
		stop->bp_id = w.bp_id;
		stop->loc_id = w.bp_loc;
	}
	*dbg_tr(d)->host->last(d) = *stop;
	return 0;
}

/* ---- frames while replaying ---- */

int dbg_replay_frames(struct dbg *d, struct dbg_frame *out, int max, struct ptdb_err *err)
{
	struct walk w;
	int n = 0;

	if (walk_start(&w, d, -1, err) < 0)
		return -1;
	if (max <= 0)
		return 0;
	memset(&out[0], 0, sizeof(out[0]));
	out[0].pc = w.cur.ip;
	out[0].mod = dbg_tr(d)->host->module_for(d, w.cur.ip);
	out[0].replaying = 1;
	n = 1;
	/* every call the walk back leaves through is a caller's frame, shown
	 * at its return address as for a live unwind */
	while (n < max) {
		int before = w.depth, r = walk_step(&w);

		if (r) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].untraced = 1;	/* whoever called before the trace began */
			n++;
			break;
		}
		if (w.depth < before && w.depth < 0) {
			struct dbg_insn buf;
			const struct dbg_insn *e = insn_at(d, &w.cur, &buf);
			uint64_t ret = w.cur.ip;

			if (e->ok)
				ret = w.cur.ip + e->in.len;
			memset(&out[n], 0, sizeof(out[n]));
			out[n].pc = ret;
			out[n].mod = dbg_tr(d)->host->module_for(d, ret - 1);
			n++;
			w.depth = 0;
		}
	}
	return n;
}
