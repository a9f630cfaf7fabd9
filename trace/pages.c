/* trace/pages.c: the code page versions a software collector kept (see
 * trace/pages.h).  An open hash table by page address; each page holds
 * its versions in the order they were kept, each with the generation it
 * holds from. */
#include "trace/pages.h"
#include "disasm/disasm.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct tp_ver {
	uint64_t gen;		/* holds from this generation on */
	uint8_t *bytes;		/* TRACE_PAGE */
	uint64_t fidx;		/* its page in the file (trace_pages_file) */
};

struct tp_page {
	uint64_t addr;		/* 0: a free slot */
	struct tp_ver *v;
	uint32_t n, cap;
	int stale;		/* read again when next run */
	int touched;		/* said or seen changed once (its blocks
				 * are told apart: trace_pages_tag) */
};

struct trace_pages {
	struct tp_page *tab;
	size_t cap, n;
	uint64_t gen, versions, touched;
	struct disasm *ds;	/* trace_pages_next_ip's */
	int file_fd;		/* trace_pages_file's memfd (-1: none yet) */
	uint64_t file_versions;	/* the versions it holds */
};

#define SAVE_MAGIC "PTDBCODEPAGES1\n"

struct trace_pages *trace_pages_new(void)
{
	struct trace_pages *p = xcalloc(1, sizeof(struct trace_pages));

	p->file_fd = -1;
	return p;
}

void trace_pages_free(struct trace_pages *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->cap; i++) {
		for (uint32_t k = 0; k < p->tab[i].n; k++)
			free(p->tab[i].v[k].bytes);
		free(p->tab[i].v);
	}
	free(p->tab);
	if (p->ds)
		disasm_free(p->ds);
	if (p->file_fd >= 0)
		close(p->file_fd);
	free(p);
}

uint64_t trace_pages_gen(const struct trace_pages *p)
{
	return p ? p->gen : 0;
}

const uint64_t *trace_pages_gen_ptr(const struct trace_pages *p)
{
	return &p->gen;
}

uint64_t trace_pages_gen_of_cr3(uint64_t cr3)
{
	return cr3 == ~0ull ? 0 : cr3 >> 12;	/* (pt_asid_no_cr3: no PIP yet) */
}

static size_t slot_of(uint64_t page, size_t cap)
{
	return (size_t)((page >> 12) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static struct tp_page *find(const struct trace_pages *p, uint64_t page)
{
	if (!p || !p->cap || !page)
		return NULL;
	for (size_t h = slot_of(page, p->cap);; h = (h + 1) & (p->cap - 1)) {
		struct tp_page *e = &p->tab[h];

		if (e->addr == page)
			return e;
		if (!e->addr)
			return NULL;
	}
}

static struct tp_page *add(struct trace_pages *p, uint64_t page)
{
	struct tp_page *e;

	if (2 * (p->n + 1) > p->cap) {
		struct tp_page *old = p->tab;
		size_t ocap = p->cap;

		p->cap = p->cap ? 2 * p->cap : 256;
		p->tab = xcalloc(p->cap, sizeof(*p->tab));
		for (size_t i = 0; i < ocap; i++)
			if (old[i].addr) {
				size_t h = slot_of(old[i].addr, p->cap);

				while (p->tab[h].addr)
					h = (h + 1) & (p->cap - 1);
				p->tab[h] = old[i];
			}
		free(old);
	}
	for (size_t h = slot_of(page, p->cap);; h = (h + 1) & (p->cap - 1)) {
		e = &p->tab[h];
		if (e->addr == page)
			return e;
		if (!e->addr) {
			e->addr = page;
			p->n++;
			return e;
		}
	}
}

/* The version of e in force at gen: the last one holding from gen or
 * before (the first, when gen is older than every version). */
static const struct tp_ver *at_gen(const struct tp_page *e, uint64_t gen)
{
	uint32_t k = e->n;

	while (k > 1 && e->v[k - 1].gen > gen)
		k--;
	return &e->v[k - 1];
}

int trace_pages_changed(struct trace_pages *p, uint64_t lo, uint64_t hi)
{
	int moved = 0;

	if (!p || lo >= hi)
		return 0;
	for (size_t i = 0; i < p->cap; i++) {
		struct tp_page *e = &p->tab[i];

		if (e->addr && e->n && e->addr + TRACE_PAGE > lo && e->addr < hi && !e->stale) {
			if (!moved)
				p->gen++;
			moved = 1;
			e->stale = 1;
			p->touched += !e->touched;
			e->touched = 1;
		}
	}
	return moved;
}

int trace_pages_known(const struct trace_pages *p, uint64_t addr, const uint8_t *b, size_t n)
{
	while (n) {
		uint64_t page = addr & ~(TRACE_PAGE - 1);
		size_t off = (size_t)(addr - page), k = TRACE_PAGE - off < n ? TRACE_PAGE - off : n;
		const struct tp_page *e = find(p, page);

		if (!e || !e->n || e->stale || memcmp(e->v[e->n - 1].bytes + off, b, k))
			return 0;
		addr += k;
		b += k;
		n -= k;
	}
	return 1;
}

int trace_pages_put(struct trace_pages *p, uint64_t page, const uint8_t *bytes)
{
	struct tp_page *e = add(p, page);
	int moved = 0;

	if (e->n && !memcmp(e->v[e->n - 1].bytes, bytes, TRACE_PAGE)) {
		e->stale = 0;
		return 0;
	}
	if (e->n && !e->stale) {	/* changed, and nothing said so */
		p->gen++;
		moved = 1;
	}
	p->touched += e->n && !e->touched;
	e->touched |= e->n > 0;
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 2;
		e->v = xrealloc(e->v, e->cap * sizeof(*e->v));
	}
	e->v[e->n].gen = e->n ? p->gen : 0;
	e->v[e->n].bytes = xmalloc(TRACE_PAGE);
	memcpy(e->v[e->n].bytes, bytes, TRACE_PAGE);
	e->n++;
	e->stale = 0;
	p->versions++;
	return moved;
}

const uint8_t *trace_pages_latest(const struct trace_pages *p, uint64_t page)
{
	const struct tp_page *e = find(p, page);

	return e && e->n ? e->v[e->n - 1].bytes : NULL;
}

size_t trace_pages_read(const struct trace_pages *p, uint64_t gen, uint64_t addr, uint8_t *buf,
			size_t n)
{
	size_t got = 0;

	while (got < n) {
		uint64_t a = addr + got, page = a & ~(TRACE_PAGE - 1);
		size_t off = (size_t)(a - page), k = TRACE_PAGE - off;
		const struct tp_page *e = find(p, page);

		if (!e || !e->n)
			break;
		if (k > n - got)
			k = n - got;
		memcpy(buf + got, at_gen(e, gen)->bytes + off, k);
		got += k;
	}
	return got;
}

int trace_pages_touched(const struct trace_pages *p)
{
	return p && p->touched;
}

int trace_pages_touched_at(const struct trace_pages *p, uint64_t addr)
{
	const struct tp_page *e = find(p, addr & ~(TRACE_PAGE - 1));

	return e && e->touched && e->n;
}

uint32_t trace_pages_tag(const struct trace_pages *p, uint64_t addr, uint64_t gen)
{
	const struct tp_page *e = find(p, addr & ~(TRACE_PAGE - 1));
	uint64_t g;

	if (!e || !e->touched || !e->n)
		return 0;
	g = at_gen(e, gen)->gen;
	return g < TRACE_PAGES_TAG_MAX ? (uint32_t)g + 1 : TRACE_PAGES_TAG_MAX;
}

uint64_t trace_pages_next_ip(struct trace_pages *p, uint64_t gen, uint64_t ip)
{
	uint8_t b[16];
	size_t n = trace_pages_read(p, gen, ip, b, sizeof(b));
	int len;

	if (!n)
		return 0;
	if (!p->ds && !(p->ds = disasm_new(NULL)))
		return 0;
	len = disasm_len(p->ds, b, n, ip);
	return len > 0 ? ip + (uint64_t)len : 0;
}

void trace_pages_each(const struct trace_pages *p,
		      void (*fn)(void *ctx, uint64_t page, int touched, uint32_t nver), void *ctx)
{
	for (size_t i = 0; p && i < p->cap; i++)
		if (p->tab[i].addr && p->tab[i].n)
			fn(ctx, p->tab[i].addr, p->tab[i].touched, p->tab[i].n);
}

int trace_pages_version(const struct trace_pages *p, uint64_t page, uint32_t k, uint64_t *gen_from,
			uint64_t *gen_to, uint64_t *file_off)
{
	const struct tp_page *e = find(p, page);

	if (!e || k >= e->n)
		return -1;
	*gen_from = k ? e->v[k].gen : 0;
	*gen_to = k + 1 < e->n ? e->v[k + 1].gen : UINT64_MAX;
	*file_off = e->v[k].fidx * TRACE_PAGE;
	return 0;
}

static int by_page(const void *a, const void *b)
{
	uint64_t x = (*(struct tp_page *const *)a)->addr, y = (*(struct tp_page *const *)b)->addr;

	return x < y ? -1 : x > y;
}

/* Every version into a new memfd, each at its fidx, the pages in address
 * order (pages next to each other, unchanged, are next to each other in
 * the file: one section): 0, or -1. */
static int write_file(struct trace_pages *p)
{
	int fd = memfd_create("ptdb-code-pages", MFD_CLOEXEC);
	struct tp_page **e = xmalloc((p->n ? p->n : 1) * sizeof(*e));
	size_t n = 0;
	uint64_t at = 0;

	if (fd < 0)
		goto fail;
	for (size_t i = 0; i < p->cap; i++)
		if (p->tab[i].addr && p->tab[i].n)
			e[n++] = &p->tab[i];
	qsort(e, n, sizeof(*e), by_page);
	if (ftruncate(fd, (off_t)(p->versions * TRACE_PAGE)) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < e[i]->n; k++) {
			if (pwrite(fd, e[i]->v[k].bytes, TRACE_PAGE, (off_t)(at * TRACE_PAGE)) !=
			    (ssize_t)TRACE_PAGE)
				goto fail;
			e[i]->v[k].fidx = at++;
		}
	free(e);
	if (p->file_fd >= 0)
		close(p->file_fd);
	p->file_fd = fd;
	p->file_versions = p->versions;
	return 0;
fail:
	free(e);
	if (fd >= 0)
		close(fd);
	p->file_versions = UINT64_MAX;	/* (fidx half rewritten: again next time) */
	return -1;
}

int trace_pages_file(struct trace_pages *p)
{
	if (!p || !p->versions)
		return -1;
	if ((p->file_fd < 0 || p->file_versions != p->versions) && write_file(p) < 0)
		return -1;
	return fcntl(p->file_fd, F_DUPFD_CLOEXEC, 0);
}

void trace_pages_count(const struct trace_pages *p, uint64_t *pages, uint64_t *versions)
{
	*pages = p ? p->n : 0;
	*versions = p ? p->versions : 0;
}

/* File: the magic, the current generation, then per version its page
 * address (| 1: the page was said or seen changed), its generation and
 * its bytes (little-endian u64s). */
uint8_t *trace_pages_save(const struct trace_pages *p, size_t *len)
{
	size_t hdr = sizeof(SAVE_MAGIC) - 1 + 8, rec = 16 + TRACE_PAGE;
	uint8_t *out = xmalloc(hdr + (size_t)(p ? p->versions : 0) * rec), *q = out;

	memcpy(q, SAVE_MAGIC, sizeof(SAVE_MAGIC) - 1);
	q += sizeof(SAVE_MAGIC) - 1;
	memcpy(q, &(uint64_t){ p ? p->gen : 0 }, 8);
	q += 8;
	for (size_t i = 0; p && i < p->cap; i++)
		for (uint32_t k = 0; k < p->tab[i].n; k++) {
			uint64_t a = p->tab[i].addr | (p->tab[i].touched ? 1 : 0);

			memcpy(q, &a, 8);
			memcpy(q + 8, &p->tab[i].v[k].gen, 8);
			memcpy(q + 16, p->tab[i].v[k].bytes, TRACE_PAGE);
			q += rec;
		}
	*len = (size_t)(q - out);
	return out;
}

int trace_pages_load(struct trace_pages *p, const uint8_t *buf, size_t len, struct ptdb_err *err)
{
	size_t m = sizeof(SAVE_MAGIC) - 1, rec = 16 + TRACE_PAGE;
	uint64_t gen;

	if (len < m + 8 || memcmp(buf, SAVE_MAGIC, m) || (len - m - 8) % rec)
		return ptdb_err_set(err, "the code pages file is not one ptdb wrote");
	memcpy(&gen, buf + m, 8);
	for (const uint8_t *q = buf + m + 8; q < buf + len; q += rec) {
		uint64_t addr, g;
		struct tp_page *e;

		memcpy(&addr, q, 8);
		memcpy(&g, q + 8, 8);
		if (addr < TRACE_PAGE || addr & (TRACE_PAGE - 2))
			return ptdb_err_set(err, "the code pages file has a bad page address");
		e = add(p, addr & ~1ull);
		if (addr & 1 && !e->touched) {
			e->touched = 1;
			p->touched++;
		}
		if (e->n && e->v[e->n - 1].gen > g)
			return ptdb_err_set(err, "the code pages file's versions are out of order");
		if (e->n == e->cap) {
			e->cap = e->cap ? 2 * e->cap : 2;
			e->v = xrealloc(e->v, e->cap * sizeof(*e->v));
		}
		e->v[e->n].gen = g;
		e->v[e->n].bytes = xmalloc(TRACE_PAGE);
		memcpy(e->v[e->n].bytes, q + 16, TRACE_PAGE);
		e->n++;
		p->versions++;
	}
	if (gen > p->gen)
		p->gen = gen;
	return 0;
}
