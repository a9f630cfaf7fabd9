/* core/tracing/dbg_bundle_index.c: a loaded bundle's threads found by tid
 * in constant time (a bundle of 100,000 threads is looked up for each of
 * them: 'thread list', 'thread select'), and the trace image its threads'
 * ends are read with, built once (issue 33). */
#include "core/tracing/dbg_trace_int.h"
#include "trace/decode.h"

#include <stdlib.h>
#include <string.h>

struct dbg_pm_index {
	int nth;		/* dbg_tr(d)->pm->nth when built */
	size_t cap;		/* a power of two, at least twice nth */
	int *tab;		/* thread index + 1, 0: empty */
	struct trace_image img;	/* for the ends of traces (have_img) */
	int have_img;
};

static size_t slot(pid_t tid, size_t cap)
{
	return (size_t)((uint32_t)tid * 2654435761u) & (cap - 1);
}

static struct dbg_pm_index *index_of(struct dbg *d)
{
	struct dbg_pm *pm = dbg_tr(d)->pm;
	struct dbg_pm_index *x = pm->index;

	if (x && x->nth == pm->nth)
		return x;
	if (!x)
		x = pm->index = xcalloc(1, sizeof(*x));
	free(x->tab);
	x->nth = pm->nth;
	for (x->cap = 16; x->cap < 2 * (size_t)pm->nth; x->cap *= 2)
		;
	x->tab = xcalloc(x->cap, sizeof(*x->tab));
	for (int i = 0; i < pm->nth; i++) {
		size_t h = slot(pm->th[i].tid, x->cap);

		while (x->tab[h] && pm->th[x->tab[h] - 1].tid != pm->th[i].tid)
			h = (h + 1) & (x->cap - 1);
		if (!x->tab[h])		/* (the first of a tid listed twice) */
			x->tab[h] = i + 1;
	}
	return x;
}

struct dbg_pm_thread *dbg_pm_thread_of(struct dbg *d, pid_t tid)
{
	struct dbg_pm_index *x;

	if (!dbg_tr(d)->pm || !dbg_tr(d)->pm->nth)
		return NULL;
	x = index_of(d);
	for (size_t h = slot(tid, x->cap); x->tab[h]; h = (h + 1) & (x->cap - 1))
		if (dbg_tr(d)->pm->th[x->tab[h] - 1].tid == tid)
			return &dbg_tr(d)->pm->th[x->tab[h] - 1];
	return NULL;
}

const struct trace_image *dbg_pm_image(struct dbg *d)
{
	struct dbg_pm_index *x;

	if (!dbg_tr(d)->pm)
		return NULL;
	x = index_of(d);
	if (!x->have_img && dbg_trace_build_image(d, &x->img, NULL) == 0)
		x->have_img = 1;
	return x->have_img ? &x->img : NULL;
}

void dbg_pm_index_free(struct dbg_pm *pm)
{
	struct dbg_pm_index *x = pm->index;

	if (!x)
		return;
	if (x->have_img)
		trace_image_release(&x->img);
	free(x->tab);
	free(x);
	pm->index = NULL;
}
