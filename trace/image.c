/* trace/image.c: the decoder's memory image (libipt's pt_image): the
 * program's code as file sections, or read through a reader function. */
#include "trace/decode.h"
#include "trace/decode_int.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

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
	free(img->reader);
	img->reader = NULL;
	img->image = NULL;
	img->iscache = NULL;
}

static int image_read_cb(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
			 void *context)
{
	struct image_reader *r = context;
	size_t got;

	(void)asid;
	got = r->fn(r->ctx, ip, buf, size);
	return got ? (int)got : -pte_nomap;
}

void trace_image_set_reader(struct trace_image *img, trace_image_read_fn fn, void *ctx)
{
	/* the reader lives as long as the image: freed with it */
	struct image_reader *r = xcalloc(1, sizeof(*r));

	r->fn = fn;
	r->ctx = ctx;
	free(img->reader);
	img->reader = r;
	pt_image_set_callback(img->image, image_read_cb, r);
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
	return 0;
}
