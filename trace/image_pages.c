/* trace/image_pages.c: the code pages a software collector kept
 * (trace/pages.h) as sections of the decoder's image.  Code read through
 * the image's read callback is decoded an instruction at a time, each read
 * going through every section first; code in a section is decoded once per
 * block and kept in libipt's block cache (its section's), so keyed by
 * (address, version) for the pages whose code changed.
 *
 * The kept pages no file covers are read from the pages' file (one memfd
 * for every image: trace_pages_file).  A page kept in one
 * version (a JIT's code that never changed) is in force at every
 * generation: contiguous ones make one section of the image.  Each version
 * of a page whose code changed is a section of the section cache only; a
 * decoder's image at generation g is the image plus the versions in force
 * at g (struct gen_images), set again whenever the trace says a new
 * generation (a PIP's CR3), a few kept per decoder. */
#include "trace/decode.h"
#include "trace/decode_int.h"
#include "trace/pages.h"

#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct page_list {
	const struct image_reader *r;
	struct pg { uint64_t page; uint32_t nver; } *pg;
	size_t n, cap;
};

static int covered(const struct image_reader *r, uint64_t page)
{
	for (size_t i = 0; i < r->nfiles; i++)
		if (r->files[i].lo < page + TRACE_PAGE && page < r->files[i].hi)
			return 1;
	return 0;
}

static void collect(void *ctx, uint64_t page, int touched, uint32_t nver)
{
	struct page_list *l = ctx;

	if (covered(l->r, page))
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->pg = xrealloc(l->pg, l->cap * sizeof(*l->pg));
	}
	/* nver 0: one version in force everywhere (never changed) */
	l->pg[l->n++] = (struct pg){ page, touched ? nver : 0 };
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct pg *)a)->page, y = ((const struct pg *)b)->page;

	return x < y ? -1 : x > y;
}

/* The versions of a page that changed as sections of the cache (not of
 * the image). */
static void add_versions(struct trace_image *img, struct image_reader *r, const char *path,
			 const struct pg *pg)
{
	for (uint32_t k = 0; k < pg->nver; k++) {
		uint64_t from, to, off;
		int isid;

		if (trace_pages_version(r->pages, pg->page, k, &from, &to, &off) < 0)
			continue;
		isid = pt_iscache_add_file(img->iscache, path, off, TRACE_PAGE, pg->page);
		if (isid < 0)
			continue;
		r->vers.v = xrealloc(r->vers.v, (r->vers.n + 1) * sizeof(*r->vers.v));
		r->vers.v[r->vers.n++] = (struct image_ver){ pg->page, from, to, isid };
	}
}

/* Unchanged pages from i on that are contiguous, in memory and in the
 * file, as one section of the image; the index after them. */
static size_t add_run(struct trace_image *img, const struct image_reader *r, const char *path,
		      const struct page_list *l, size_t i)
{
	uint64_t from, to, off, o;
	size_t j = i + 1;
	int isid;

	if (trace_pages_version(r->pages, l->pg[i].page, 0, &from, &to, &off) < 0)
		return j;
	while (j < l->n && !l->pg[j].nver && l->pg[j].page == l->pg[j - 1].page + TRACE_PAGE &&
	       trace_pages_version(r->pages, l->pg[j].page, 0, &from, &to, &o) == 0 &&
	       o == off + (j - i) * TRACE_PAGE)
		j++;
	isid = pt_iscache_add_file(img->iscache, path, off, (j - i) * TRACE_PAGE, l->pg[i].page);
	if (isid >= 0)	/* (else read through the callback) */
		pt_image_add_cached(img->image, img->iscache, isid, NULL);
	return j;
}

int trace_image_add_pages(struct trace_image *img)
{
	struct image_reader *r = img->reader;
	struct page_list l = { r, NULL, 0, 0 };
	char path[64];

	if (!r || !r->pages || r->fd >= 0 || !img->image || !img->iscache)
		return 0;
	trace_pages_each(r->pages, collect, &l);
	if (!l.n || (r->fd = trace_pages_file(r->pages)) < 0) {
		free(l.pg);
		return 0;	/* (the read callback has them) */
	}
	qsort(l.pg, l.n, sizeof(*l.pg), by_addr);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r->fd);
	for (size_t i = 0; i < l.n;) {
		if (l.pg[i].nver) {
			add_versions(img, r, path, &l.pg[i]);
			i++;
		} else {
			i = add_run(img, r, path, &l, i);
		}
	}
	if (r->vers.n)
		img->vers = &r->vers;
	free(l.pg);
	return 0;
}

/* ---- a decoder's image per generation ---- */

#define GEN_IMAGES 8

struct gen_images {
	const struct trace_image *img;
	uint64_t cur;
	struct pt_image *cur_im;
	struct {
		struct pt_image *im;	/* NULL: a free slot */
		uint64_t gen, used;
	} c[GEN_IMAGES];
	uint64_t clock;
};

struct gen_images *trace_gen_images_new(const struct trace_image *img)
{
	struct gen_images *g;

	if (!img || !img->vers || !img->vers->n || !img->image || !img->iscache)
		return NULL;
	g = xcalloc(1, sizeof(*g));
	g->img = img;
	g->cur = UINT64_MAX;
	return g;
}

/* The image of generation gen: the image's sections, the versions in
 * force at gen, the image's callback.  NULL if it cannot be made. */
static struct pt_image *build(const struct trace_image *img, uint64_t gen)
{
	struct pt_image *im = pt_image_alloc("ptdb-generation");

	if (!im)
		return NULL;
	if (pt_image_copy(im, img->image) < 0) {
		pt_image_free(im);
		return NULL;
	}
	if (img->read_cb)
		pt_image_set_callback(im, img->read_cb, img->read_ctx);
	for (size_t i = 0; i < img->vers->n; i++) {
		const struct image_ver *v = &img->vers->v[i];

		if (v->from <= gen && gen < v->to)
			pt_image_add_cached(im, img->iscache, v->isid, NULL);
	}
	return im;
}

void trace_gen_images_set(struct gen_images *g, struct pt_block_decoder *dec, uint64_t gen)
{
	int slot = -1;

	if (!g || !dec || gen == g->cur)
		return;
	g->clock++;
	for (int i = 0; i < GEN_IMAGES; i++)
		if (g->c[i].im && g->c[i].gen == gen) {
			slot = i;
			break;
		}
	if (slot < 0) {
		struct pt_image *im = build(g->img, gen);

		if (!im)
			return;	/* (the callback reads the versions) */
		slot = 0;
		for (int i = 0; i < GEN_IMAGES; i++) {
			if (!g->c[i].im) {
				slot = i;
				break;
			}
			if (g->c[i].used < g->c[slot].used)
				slot = i;
		}
		/* (the least used is never the decoder's: it was just used) */
		if (g->c[slot].im)
			pt_image_free(g->c[slot].im);
		g->c[slot].im = im;
		g->c[slot].gen = gen;
	}
	g->c[slot].used = g->clock;
	if (pt_blk_set_image(dec, g->c[slot].im) == 0) {
		g->cur = gen;
		g->cur_im = g->c[slot].im;
	}
}

void trace_gen_images_free(struct gen_images *g)
{
	if (!g)
		return;
	for (int i = 0; i < GEN_IMAGES; i++)
		if (g->c[i].im)
			pt_image_free(g->c[i].im);
	free(g);
}
