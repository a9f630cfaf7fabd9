/* core/tracing/dbg_cursor.c: the instruction cache and the cursor over a decoded
 * trace (core/tracing/cursor.h).  The cache is an open-addressing table keyed by
 * address, valid for one state of the code: the process and its stop id
 * (or the loaded trace) and the disassembly flavor; it is emptied in one
 * place (icache_get) when that changes, and when it holds ICACHE_MAX
 * instructions. */
#include "core/tracing/cursor.h"
#include "core/tracing/items_int.h"
#include "core/tracing/dbg_trace_int.h"
#include "trace/pages.h"

#include <stdlib.h>
#include <string.h>

#define ICACHE_MIN 1024u
#define ICACHE_MAX (1u << 16)	/* instructions kept: about 20 MiB */

struct dbg_icache {
	struct dbg_insn *slot;	/* ip 0: empty */
	size_t cap, n;		/* cap: a power of two */
	/* what the cached code belongs to */
	const void *proc, *pm;
	pid_t pid;
	uint64_t stop_id;
	int flavor, kept;
	uint64_t lookups, misses;
};

uint64_t dbg_trace_stop_id(struct dbg *d)
{
	struct target_proc *proc = dbg_tr_proc(d);

	return proc ? target_stop_id(proc) : 0;
}

static void icache_reset(struct dbg_icache *c, size_t cap)
{
	free(c->slot);
	c->cap = cap;
	c->n = 0;
	c->slot = xcalloc(cap, sizeof(*c->slot));
}

/* The cache, emptied when the code it holds may differ from the code now. */
static struct dbg_icache *icache_get(struct dbg *d)
{
	struct dbg_icache *c = dbg_tr(d)->icache;
	struct disasm *ds = dbg_tr(d)->host->disasm(d);
	int flavor = ds ? (int)disasm_get_flavor(ds) : 0;
	struct target_proc *proc = dbg_tr_proc(d);
	uint64_t sid = proc ? target_stop_id(proc) : 0;	/* dbg_trace_stop_id */
	pid_t pid = *dbg_tr(d)->pid;
	int kept = dbg_trace_kept(d);

	if (!c) {
		c = dbg_tr(d)->icache = xcalloc(1, sizeof(*c));
		icache_reset(c, ICACHE_MIN);
	} else if (c->proc != (const void *)proc || c->pm != (const void *)dbg_tr(d)->pm ||
		   c->pid != pid || c->stop_id != sid || c->flavor != flavor || c->kept != kept) {
		icache_reset(c, ICACHE_MIN);
	}
	c->proc = proc;
	c->pm = dbg_tr(d)->pm;
	c->pid = pid;
	c->stop_id = sid;
	c->flavor = flavor;
	c->kept = kept;
	return c;
}

static size_t slot_of(const struct dbg_icache *c, uint64_t ip)
{
	return (size_t)((ip * 0x9E3779B97F4A7C15ull) >> 20) & (c->cap - 1);
}

static void icache_grow(struct dbg_icache *c)
{
	struct dbg_insn *old = c->slot;
	size_t ocap = c->cap;

	c->slot = xcalloc(ocap * 2, sizeof(*c->slot));
	c->cap = ocap * 2;
	for (size_t i = 0; i < ocap; i++) {
		size_t k;

		if (!old[i].ip)
			continue;
		for (k = slot_of(c, old[i].ip); c->slot[k].ip; k = (k + 1) & (c->cap - 1))
			;
		c->slot[k] = old[i];
	}
	free(old);
}

/* Reads and disassembles the instruction at ip into e. */
static void fill(struct dbg *d, uint64_t ip, struct dbg_insn *e)
{
	uint8_t buf[16];
	struct disasm *ds = dbg_tr(d)->host->disasm(d);
	size_t n = sizeof(buf);

	e->ip = ip;
	e->ok = 0;
	if (!dbg_tr(d)->pm && !dbg_trace_kept(d) && !dbg_tr(d)->host->alive(d))
		n = 0;
	else if (dbg_tr(d)->pm || dbg_trace_kept(d))
		n = dbg_tr(d)->host->read_some(d, ip, buf, n);
	else if (target_read_mem(dbg_tr_proc(d), ip, buf, n, NULL) < 0)
		n = dbg_tr(d)->host->read_some(d, ip, buf, n);	/* up to a page end; files when gone */
	if (!n)		/* (code gone: as it ran, the latest version kept) */
		n = trace_pages_read(dbg_trace_pages(d), UINT64_MAX, ip, buf, sizeof(buf));
	e->nbytes = n;
	if (ds && n && disasm_insn(ds, buf, n, ip, &e->in, NULL) == 0)
		e->ok = 1;
}

const struct dbg_insn *dbg_insn_version(struct dbg *d, uint64_t ip, uint32_t tag, struct dbg_insn *e)
{
	uint8_t buf[16];
	struct disasm *ds = dbg_tr(d)->host->disasm(d);

	e->ip = ip;
	e->ok = 0;
	e->nbytes = trace_pages_read(dbg_trace_pages(d), tag - 1, ip, buf, sizeof(buf));
	if (ds && e->nbytes && disasm_insn(ds, buf, e->nbytes, ip, &e->in, NULL) == 0)
		e->ok = 1;
	return e;
}

const struct dbg_insn *dbg_insn_cached(struct dbg *d, uint64_t ip)
{
	struct dbg_icache *c = icache_get(d);
	size_t k;

	c->lookups++;
	if (!ip) {		/* (0 marks empty slots) */
		static struct dbg_insn none;

		return &none;
	}
	for (k = slot_of(c, ip); c->slot[k].ip; k = (k + 1) & (c->cap - 1))
		if (c->slot[k].ip == ip)
			return &c->slot[k];
	c->misses++;
	if (c->n >= ICACHE_MAX) {
		icache_reset(c, ICACHE_MIN);
	} else if (2 * (c->n + 1) > c->cap) {
		icache_grow(c);
	} else {
		fill(d, ip, &c->slot[k]);
		c->n++;
		return &c->slot[k];
	}
	for (k = slot_of(c, ip); c->slot[k].ip; k = (k + 1) & (c->cap - 1))
		;
	fill(d, ip, &c->slot[k]);
	c->n++;
	return &c->slot[k];
}

void dbg_icache_stats(struct dbg *d, uint64_t *lookups, uint64_t *misses)
{
	struct dbg_icache *c = dbg_tr(d)->icache;

	*lookups = c ? c->lookups : 0;
	*misses = c ? c->misses : 0;
}

void dbg_icache_free(struct dbg *d)
{
	if (!dbg_tr(d)->icache)
		return;
	free(dbg_tr(d)->icache->slot);
	free(dbg_tr(d)->icache);
	dbg_tr(d)->icache = NULL;
}

uint64_t dbg_cursor_next_ip(void *ctx, uint64_t ip)
{
	struct dbg *d = ctx;
	const struct dbg_insn *e;

	if (!dbg_tr(d)->host->alive(d) && !dbg_tr(d)->pm && !dbg_tr(d)->trace)
		return 0;
	e = dbg_insn_cached(d, ip);
	if (!e->ok)
		return 0;
	if ((e->in.kind == DISASM_KIND_JMP || e->in.kind == DISASM_KIND_CALL) && e->in.has_target)
		return e->in.target;
	return ip + e->in.len;
}

/* ---- the cursor ---- */

struct dbg_cursor {
	struct dbg *d;
	const struct trace_decoded *dec;
	struct trace_cursor tc;
	uint64_t index, id;	/* the item's index, its instruction id */
	struct trace_item raw;
	struct dbg_item it;	/* raw as core's */
	int valid;
	struct dbg_insn vin;	/* the item's instruction, code that changed */
};

struct dbg_cursor *dbg_cursor_new(struct dbg *d, const struct trace_decoded *dec)
{
	struct dbg_cursor *c = xcalloc(1, sizeof(*c));

	c->d = d;
	c->dec = dec;
	trace_cursor_init(&c->tc, dec);
	return c;
}

void dbg_cursor_free(struct dbg_cursor *c)
{
	if (!c)
		return;
	trace_cursor_release(&c->tc);
	free(c);
}

static int load(struct dbg_cursor *c, uint64_t index)
{
	int r = trace_cursor_item(&c->tc, index, &c->raw, dbg_cursor_next_ip, c->d);

	dbg_item_from(&c->it, &c->raw);

	c->index = index;
	c->valid = r == 0;
	return r;
}

uint64_t dbg_cursor_gen(const struct dbg_cursor *c)
{
	return c->valid ? trace_cursor_gen(&c->tc, c->index) : 0;
}

int dbg_cursor_seek_item(struct dbg_cursor *c, uint64_t index)
{
	if (index >= trace_decoded_item_count(c->dec))
		return -1;
	c->id = index - trace_decoded_side_before(c->dec, index);
	return load(c, index);
}

int dbg_cursor_seek_insn(struct dbg_cursor *c, uint64_t id)
{
	if (id >= trace_decoded_insn_count(c->dec))
		return -1;
	c->id = id;
	return load(c, trace_decoded_insn_item(c->dec, id));
}

int dbg_cursor_next(struct dbg_cursor *c)
{
	uint64_t id = c->id + (c->it.kind == DBG_ITEM_INSN);

	if (c->index + 1 >= trace_decoded_item_count(c->dec))
		return 1;
	c->id = id;
	return load(c, c->index + 1);
}

int dbg_cursor_prev(struct dbg_cursor *c)
{
	if (c->index == 0)
		return 1;
	if (load(c, c->index - 1) < 0)
		return -1;
	if (c->it.kind == DBG_ITEM_INSN)
		c->id--;
	return 0;
}

const struct dbg_item *dbg_cursor_item(const struct dbg_cursor *c)
{
	return &c->it;
}

uint64_t dbg_cursor_index(const struct dbg_cursor *c)
{
	return c->index;
}

uint64_t dbg_cursor_id(const struct dbg_cursor *c)
{
	return c->id;
}

const struct dbg_insn *dbg_cursor_insn(struct dbg_cursor *c)
{
	if (!c->valid || c->it.kind != DBG_ITEM_INSN)
		return NULL;
	if (c->it.code_tag)
		return dbg_insn_version(c->d, c->it.ip, c->it.code_tag, &c->vin);
	return dbg_insn_cached(c->d, c->it.ip);
}
