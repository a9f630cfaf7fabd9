/* trace/calls.c: the call-tree builder over a stream of classified
 * instructions, segment extents for time lines, and the interpolating
 * clock the Chrome trace export uses.
 *
 * The builder keeps the call stack of the open tree, each frame with the
 * address its call returns to, so depth follows calls and returns exactly
 * (recursion included, which symbol matching alone gets wrong); the
 * function of the target only decides what the control-flow class does not:
 * tail calls (a jump to another function: same level), non-local returns
 * (a jump into a function further up: pop to it) and returns past the start
 * of the trace (the tree gets a new root, LLDB's untraced caller). */
#include "trace/calls.h"

#include <stdlib.h>
#include <string.h>

/* Depths are stored offset by DEPTH_BIAS while building, because a return
 * past the start of the trace adds a level above the root. */
#define DEPTH_BIAS (1u << 27)

struct frame {
	uint64_t ret;	/* where the call returns; 0 unknown (a tree's root) */
	uint64_t func;
	int named;	/* func is a symbol's start */
	int intr;	/* entered asynchronously (a signal handler) */
};

struct trace_calls {
	trace_calls_func_fn func;
	void *ctx;
	struct trace_call_seg *segs;	/* traced and error segments, in order */
	size_t nsegs, capsegs;
	struct trace_call_seg *unt;	/* untraced callers, as they appear */
	size_t nunt, capunt;
	struct frame *st;		/* the open tree's call stack; empty: none */
	size_t nst, capst;
	uint32_t ntrees;
	uint32_t root;			/* stored depth of st[0] */
	uint64_t tree_first;		/* first instruction of the open tree */
	uint64_t ninsn;
	uint64_t prev_next;
	enum trace_calls_class prev_cls;
	int named;			/* the current instruction's function */
	int async;
	uint64_t async_at;
	int in_errors;			/* the last tree is an errors tree */
	int finished;
};

struct trace_calls *trace_calls_new(trace_calls_func_fn func, void *ctx)
{
	struct trace_calls *c = xcalloc(1, sizeof(*c));

	c->func = func;
	c->ctx = ctx;
	return c;
}

void trace_calls_free(struct trace_calls *c)
{
	if (!c)
		return;
	free(c->segs);
	free(c->unt);
	free(c->st);
	free(c);
}

static struct trace_call_seg *grow(struct trace_call_seg **v, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	return &(*v)[(*n)++];
}

static void add_seg(struct trace_calls *c, enum trace_call_seg_kind kind, uint32_t depth,
		    uint64_t id, uint64_t ip)
{
	struct trace_call_seg *s = grow(&c->segs, &c->nsegs, &c->capsegs);

	s->first_id = s->last_id = id;
	s->first_ip = s->last_ip = ip;
	s->tree = c->ntrees - 1;
	s->depth = depth;
	s->kind = kind;
}

static void start_tree(struct trace_calls *c, uint64_t fn, uint64_t id, uint64_t ip)
{
	if (!c->capst) {
		c->capst = 64;
		c->st = xrealloc(c->st, c->capst * sizeof(*c->st));
	}
	c->ntrees++;
	c->root = DEPTH_BIAS;
	c->st[0] = (struct frame){ 0, fn, c->named, 0 };
	c->nst = 1;
	c->tree_first = id;
	c->in_errors = 0;
	add_seg(c, TRACE_SEG_TRACED, c->root, id, ip);
}

/* Levels in use: the frames plus the callers added above the first root. */
static int too_deep(const struct trace_calls *c, size_t more)
{
	return (DEPTH_BIAS - c->root) + c->nst + more > TRACE_CALLS_MAX_DEPTH;
}

static int push(struct trace_calls *c, uint64_t ret, uint64_t fn, int intr, uint64_t id, uint64_t ip)
{
	if (too_deep(c, 1))
		return -1;
	if (c->nst == c->capst) {
		c->capst *= 2;
		c->st = xrealloc(c->st, c->capst * sizeof(*c->st));
	}
	c->st[c->nst++] = (struct frame){ ret, fn, c->named, intr };
	add_seg(c, TRACE_SEG_TRACED, c->root + (uint32_t)(c->nst - 1), id, ip);
	return 0;
}

/* Frame j goes on (in fn) as a new segment; the frames above it are gone. */
static void pop_to(struct trace_calls *c, size_t j, uint64_t fn, uint64_t id, uint64_t ip)
{
	c->nst = j + 1;
	c->st[j].func = fn;
	c->st[j].named = c->named;
	add_seg(c, TRACE_SEG_TRACED, c->root + (uint32_t)j, id, ip);
}

/* The top frame goes on in another function (a tail call): same level. */
static void tail(struct trace_calls *c, uint64_t fn, uint64_t id, uint64_t ip)
{
	pop_to(c, c->nst - 1, fn, id, ip);
}

/* A return from the tree's root: the caller, untraced until now, becomes
 * the root, one level above everything so far. */
static int reroot(struct trace_calls *c, uint64_t fn, uint64_t id, uint64_t ip)
{
	struct trace_call_seg *u;

	if (too_deep(c, 1))
		return -1;
	c->root--;
	u = grow(&c->unt, &c->nunt, &c->capunt);
	u->first_id = c->tree_first;
	u->last_id = id - 1;
	u->first_ip = u->last_ip = ip;
	u->tree = c->ntrees - 1;
	u->depth = c->root;
	u->kind = TRACE_SEG_UNTRACED;
	c->st[0] = (struct frame){ 0, fn, c->named, 0 };
	add_seg(c, TRACE_SEG_TRACED, c->root, id, ip);
	return 0;
}

/* The frame (above the root) whose call returns to ip. */
static int find_ret(const struct trace_calls *c, uint64_t ip, size_t *j)
{
	for (size_t k = c->nst; k-- > 1;)
		if (c->st[k].ret == ip) {
			*j = k;
			return 1;
		}
	return 0;
}

/* The nearest frame below the top running fn, a named function (code
 * without a symbol says nothing about where it runs). */
static int find_func(const struct trace_calls *c, uint64_t fn, size_t *j)
{
	if (!c->named)
		return 0;
	for (size_t k = c->nst - 1; k-- > 0;)
		if (c->st[k].func == fn && c->st[k].named) {
			*j = k;
			return 1;
		}
	return 0;
}

static int on_return(struct trace_calls *c, uint64_t fn, uint64_t id, uint64_t ip)
{
	size_t t = c->nst - 1, j;

	if (find_ret(c, ip, &j)) {
		pop_to(c, j - 1, fn, id, ip);
		return 0;
	}
	/* a signal handler returns into the signal trampoline, which resumes
	 * the interrupted frame with a system call */
	if (c->st[t].intr) {
		tail(c, fn, id, ip);
		return 0;
	}
	if (find_func(c, fn, &j)) {
		pop_to(c, j, fn, id, ip);
		return 0;
	}
	if (t > 0) {
		pop_to(c, t - 1, fn, id, ip);
		return 0;
	}
	return reroot(c, fn, id, ip);
}

/* Where instruction id (at ip, in fn) belongs, after the previous one.
 * 1: it continues the current segment. */
static int step(struct trace_calls *c, uint64_t fn, uint64_t id, uint64_t ip)
{
	size_t t = c->nst - 1, j;
	uint64_t top = c->st[t].func;

	if (c->async && ip != c->async_at) {
		/* resumed elsewhere: an interrupted frame, or a signal handler */
		if (find_ret(c, ip, &j)) {
			pop_to(c, j - 1, fn, id, ip);
			return 0;
		}
		return push(c, c->async_at, fn, 1, id, ip);
	}
	switch (c->prev_cls) {
	case TRACE_CALLS_CALL:
		/* a call to the next instruction reads its own address */
		if (ip == c->prev_next)
			return 1;
		return push(c, c->prev_next, fn, 0, id, ip);
	case TRACE_CALLS_RETURN:
		return on_return(c, fn, id, ip);
	case TRACE_CALLS_JUMP:
		if (fn == top)
			return 1;
		/* into the middle of a function further up: longjmp, a landing pad */
		if (ip != fn && find_func(c, fn, &j))
			pop_to(c, j, fn, id, ip);
		else
			tail(c, fn, id, ip);
		return 0;
	default:
		if (!c->prev_next || ip == c->prev_next) {
			if (fn == top)
				return 1;
			tail(c, fn, id, ip);	/* fell through into the next function */
			return 0;
		}
		if (find_ret(c, ip, &j)) {	/* sigreturn into the interrupted frame */
			pop_to(c, j - 1, fn, id, ip);
			return 0;
		}
		if (c->prev_cls == TRACE_CALLS_OTHER)	/* interrupted: a signal handler */
			return push(c, c->prev_next, fn, 1, id, ip);
		if (fn == top)
			return 1;
		tail(c, fn, id, ip);
		return 0;
	}
}

int trace_calls_insn(struct trace_calls *c, uint64_t ip, uint64_t next,
		     enum trace_calls_class cls, struct ptdb_err *err)
{
	uint64_t id = c->ninsn, fn;
	int r = 0;

	if (c->finished)
		return ptdb_err_set(err, "the call tree is already finished");
	c->named = 0;
	fn = c->func(c->ctx, ip, &c->named);
	if (!c->nst)
		start_tree(c, fn, id, ip);
	else
		r = step(c, fn, id, ip);
	if (r < 0)
		return ptdb_err_set(err, "calls nest deeper than %u levels at instruction %llu",
				    TRACE_CALLS_MAX_DEPTH, (unsigned long long)id);
	if (r == 1) {
		c->segs[c->nsegs - 1].last_id = id;
		c->segs[c->nsegs - 1].last_ip = ip;
	}
	c->ninsn++;
	c->prev_next = next;
	c->prev_cls = cls;
	c->async = 0;
	return 0;
}

int trace_calls_gap(struct trace_calls *c, struct ptdb_err *err)
{
	if (c->finished)
		return ptdb_err_set(err, "the call tree is already finished");
	c->async = 0;
	c->nst = 0;
	if (c->in_errors)
		return 0;
	c->ntrees++;
	add_seg(c, TRACE_SEG_ERRORS, DEPTH_BIAS, c->ninsn, 0);
	c->in_errors = 1;
	return 0;
}

void trace_calls_async(struct trace_calls *c, uint64_t at)
{
	if (!at)
		return;
	c->async = 1;
	c->async_at = at;
}

/* Untraced callers go before their tree's segments, shallowest first (they
 * were found deepest first); in place, from the end. */
static void place_untraced(struct trace_calls *c)
{
	size_t r = c->nsegs, u = c->nunt, w = c->nsegs + c->nunt;
	struct trace_call_seg *s;

	if (!u)
		return;
	if (w > c->capsegs) {
		c->capsegs = w;
		c->segs = xrealloc(c->segs, w * sizeof(*c->segs));
	}
	s = c->segs;
	while (u > 0) {
		uint32_t t = c->unt[u - 1].tree;
		size_t k = u;

		while (r > 0 && s[r - 1].tree >= t)
			s[--w] = s[--r];
		while (k > 0 && c->unt[k - 1].tree == t)
			k--;
		for (size_t i = k; i < u; i++)
			s[--w] = c->unt[i];
		u = k;
	}
	c->nsegs += c->nunt;
	c->nunt = 0;
}

int trace_calls_finish(struct trace_calls *c, struct ptdb_err *err)
{
	size_t i = 0;

	if (c->finished)
		return ptdb_err_set(err, "the call tree is already finished");
	c->finished = 1;
	c->nst = 0;
	place_untraced(c);
	free(c->unt);
	c->unt = NULL;
	c->capunt = 0;
	free(c->st);
	c->st = NULL;
	c->capst = 0;
	/* each tree's shallowest level becomes 0 */
	while (i < c->nsegs) {
		size_t e = i;
		uint32_t min = c->segs[i].depth;

		while (e < c->nsegs && c->segs[e].tree == c->segs[i].tree) {
			if (c->segs[e].depth < min)
				min = c->segs[e].depth;
			e++;
		}
		for (; i < e; i++)
			c->segs[i].depth -= min;
	}
	if (c->nsegs && c->nsegs < c->capsegs) {
		c->capsegs = c->nsegs;
		c->segs = xrealloc(c->segs, c->nsegs * sizeof(*c->segs));
	}
	return 0;
}

const struct trace_call_seg *trace_calls_segs(const struct trace_calls *c, size_t *n)
{
	*n = c->finished ? c->nsegs : 0;
	return c->finished ? c->segs : NULL;
}

uint32_t trace_calls_tree_count(const struct trace_calls *c)
{
	return c->ntrees;
}

size_t trace_calls_mem_bytes(const struct trace_calls *c)
{
	return sizeof(*c) + c->capsegs * sizeof(*c->segs) + c->capunt * sizeof(*c->unt) +
	       c->capst * sizeof(*c->st);
}

void trace_calls_extents(const struct trace_call_seg *segs, size_t n, uint64_t *last)
{
	size_t *open = NULL, nopen = 0, cap = 0;

	for (size_t i = 0; i <= n; i++) {
		int new_tree = i == n || (i > 0 && segs[i].tree != segs[i - 1].tree);

		while (nopen > 0) {
			size_t j = open[nopen - 1];

			if (new_tree)
				last[j] = segs[i - 1].last_id;
			else if (segs[j].depth >= segs[i].depth)
				last[j] = segs[i].first_id - 1;
			else
				break;
			nopen--;
		}
		if (i == n)
			break;
		if (nopen == cap) {
			cap = cap ? 2 * cap : 64;
			open = xrealloc(open, cap * sizeof(*open));
		}
		open[nopen++] = i;
	}
	free(open);
}

void trace_clock_init(struct trace_clock *k)
{
	memset(k, 0, sizeof(*k));
}

void trace_clock_release(struct trace_clock *k)
{
	free(k->a);
	memset(k, 0, sizeof(*k));
}

void trace_clock_add(struct trace_clock *k, uint64_t id, uint64_t tsc)
{
	if (k->n && tsc < k->a[k->n - 1].tsc)
		tsc = k->a[k->n - 1].tsc;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 16;
		k->a = xrealloc(k->a, k->cap * sizeof(*k->a));
	}
	k->a[k->n].id = id;
	k->a[k->n].tsc = tsc;
	k->n++;
}

uint64_t trace_clock_at(const struct trace_clock *k, uint64_t x)
{
	size_t lo = 0, hi = k->n;
	uint64_t t0, dt;

	if (!k->n)
		return 0;
	/* lo = the number of anchors at or before x */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->a[mid].id <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return k->a[0].tsc;
	if (lo == k->n)
		return k->a[lo - 1].tsc;
	t0 = k->a[lo - 1].tsc;
	dt = k->a[lo].tsc - t0;
	return t0 + (uint64_t)((unsigned __int128)dt * (x - k->a[lo - 1].id) /
			       (k->a[lo].id - k->a[lo - 1].id));
}
