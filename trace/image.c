/* trace/image.c: the decoder's memory image (libipt's pt_image): the
 * program's code as file sections, or read through a reader function. */
#include "trace/decode.h"
#include "trace/decode_int.h"
#include "trace/pages.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int trace_image_init(struct trace_image *img, struct ptdb_err *err)
{
	memset(img, 0, sizeof(*img));
	img->image = pt_image_alloc("ptdb");
	img->iscache = pt_iscache_alloc("ptdb");
	if (!img->image || !img->iscache) {
		trace_image_release(img);
		return ptdb_err_set(err, "cannot allocate the trace image");
	}
	return 0;
}

void trace_image_release(struct trace_image *img)
{
	if (img->image)
		pt_image_free(img->image);
	if (img->iscache)
		pt_iscache_free(img->iscache);
	if (img->reader) {
		struct image_reader *r = img->reader;

		if (r->fd >= 0)
			close(r->fd);
		free(r->files);
		free(r->vers.v);
	}
	free(img->reader);
	img->reader = NULL;
	img->image = NULL;
	img->iscache = NULL;
}

size_t trace_image_read(const struct image_reader *r, uint64_t cr3, uint64_t ip, uint8_t *buf,
			size_t size)
{
	size_t got = 0;

	if (r->pages)
		got = trace_pages_read(r->pages, trace_pages_gen_of_cr3(cr3), ip, buf, size);
	if (!got && r->fn)
		got = r->fn(r->ctx, ip, buf, size);
	return got;
}

static int image_read_cb(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
			 void *context)
{
	size_t got = trace_image_read(context, asid ? asid->cr3 : pt_asid_no_cr3, ip, buf, size);

	return got ? (int)got : -pte_nomap;
}

/* The image's reader (lives as long as the image: freed with it). */
static struct image_reader *reader_of(struct trace_image *img)
{
	if (!img->reader) {
		img->reader = xcalloc(1, sizeof(struct image_reader));
		((struct image_reader *)img->reader)->fd = -1;
		pt_image_set_callback(img->image, image_read_cb, img->reader);
		img->read_cb = image_read_cb;
		img->read_ctx = img->reader;
	}
	return img->reader;
}

void trace_image_set_reader(struct trace_image *img, trace_image_read_fn fn, void *ctx)
{
	struct image_reader *r = reader_of(img);

	r->fn = fn;
	r->ctx = ctx;
}

void trace_image_set_pages(struct trace_image *img, struct trace_pages *pages)
{
	reader_of(img)->pages = pages;
	img->pages = pages;
}

int trace_image_add_file(struct trace_image *img, const char *path,
			 uint64_t file_offset, uint64_t size, uint64_t vaddr,
			 struct ptdb_err *err)
{
	int isid = pt_iscache_add_file(img->iscache, path, file_offset, size, vaddr);
	int st;

	if (isid < 0)
		return ptdb_err_set(err, "trace image: cannot add %s: %s", path,
				    pt_errstr(pt_errcode(isid)));
	st = pt_image_add_cached(img->image, img->iscache, isid, NULL);
	if (st < 0)
		return ptdb_err_set(err, "trace image: cannot map %s at 0x%llx: %s", path,
				    (unsigned long long)vaddr, pt_errstr(pt_errcode(st)));
	{
		struct image_reader *r = reader_of(img);

		if (r->nfiles == r->cfiles) {
			r->cfiles = r->cfiles ? 2 * r->cfiles : 16;
			r->files = xrealloc(r->files, r->cfiles * sizeof(*r->files));
		}
		r->files[r->nfiles].lo = vaddr;
		r->files[r->nfiles++].hi = vaddr + size;
	}
	return 0;
}
