/* trace/ring.c: overwrite-mode byte ring for the software backend's packet
 * stream, snapshots oldest first, and the chronological copy of a cyclic
 * (perf aux style) buffer.  See ring.h. */
#include "trace/ring.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

size_t trace_ring_round_size(size_t bytes)
{
	size_t s = TRACE_RING_PAGE;

	while (s < bytes) {
		if (s > ((size_t)-1) / 2)
			return 0;
		s <<= 1;
	}
	return s;
}

int trace_ring_init(struct trace_ring *r, size_t bytes, struct ptdb_err *err)
{
	size_t s = trace_ring_round_size(bytes);

	memset(r, 0, sizeof(*r));
	if (!s)
		return ptdb_err_set(err, "trace buffer size %zu is too large", bytes);
	r->buf = xcalloc(1, s);
	r->size = s;
	return 0;
}

void trace_ring_release(struct trace_ring *r)
{
	uint64_t gen = r->gen;

	if (r->map_len)
		munmap(r->buf, r->map_len);
	else
		free(r->buf);
	memset(r, 0, sizeof(*r));
	r->gen = gen + 1;	/* what was read of it is stale */
}

void trace_ring_adopt(struct trace_ring *r, uint8_t *buf, size_t len)
{
	trace_ring_release(r);
	r->buf = buf;
	r->size = r->pos = len;
	r->total = len;
}

int trace_map_file(int fd, size_t len, uint8_t **buf, size_t *map_len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t file_pages = (len + page - 1) / page * page;
	size_t all = (len + TRACE_RING_SLACK + page - 1) / page * page;
	uint8_t *p;

	if (all < len)
		return -1;
	/* the whole span as zero pages, the file mapped over its start: the
	 * bytes past its end up to the page's end are zeros, and so is the
	 * page after when the file ends at a page boundary */
	p = mmap(NULL, all, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	if (file_pages && mmap(p, file_pages, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		munmap(p, all);
		return -1;
	}
	*buf = p;
	*map_len = all;
	return 0;
}

void trace_ring_adopt_mapped(struct trace_ring *r, uint8_t *buf, size_t len, size_t map_len)
{
	trace_ring_adopt(r, buf, len);
	r->map_len = map_len;
	r->whole = 1;
}

const uint8_t *trace_ring_view(const struct trace_ring *r, size_t *len)
{
	if (!r->whole)
		return NULL;
	*len = r->pos;
	return r->buf;
}

int trace_ring_write(struct trace_ring *r, const void *p, size_t n)
{
	if (n > 64 || n > r->size)
		return -1;
	if (n > r->size - r->pos) {
		size_t pad = r->size - r->pos;

		memset(r->buf + r->pos, 0, pad);
		r->total += pad;
		r->pos = 0;
		r->wrapped = 1;
	}
	memcpy(r->buf + r->pos, p, n);
	r->pos += n;
	r->total += n;
	if (r->pos == r->size) {
		r->pos = 0;
		r->wrapped = 1;
	}
	return 0;
}

int trace_ring_snapshot(const struct trace_ring *r, uint8_t **buf, size_t *len,
			struct ptdb_err *err)
{
	size_t n = r->wrapped ? r->size : r->pos;
	uint8_t *b;

	(void)err;
	b = xmalloc(n + TRACE_RING_SLACK);
	if (r->wrapped) {
		memcpy(b, r->buf + r->pos, r->size - r->pos);
		memcpy(b + (r->size - r->pos), r->buf, r->pos);
	} else {
		memcpy(b, r->buf, r->pos);
	}
	memset(b + n, 0, TRACE_RING_SLACK);
	*buf = b;
	*len = n;
	return 0;
}

long trace_cyclic_copy(const uint8_t *aux, size_t size, uint64_t head, uint8_t *out)
{
	size_t off;

	if (!size || (size & (size - 1)))
		return -1;
	if (head < size) {
		memcpy(out, aux, (size_t)head);
		return (long)head;
	}
	off = (size_t)(head & (size - 1));
	memcpy(out, aux + off, size - off);
	memcpy(out + (size - off), aux, off);
	return (long)size;
}

int trace_aux_overwrite_wrapped(const uint8_t *aux, size_t size, uint64_t head)
{
	if (!size || (size & (size - 1)))
		return 0;
	for (size_t i = (size_t)(head & (size - 1)); i < size; i++)
		if (aux[i])
			return 1;
	return 0;
}

void trace_ring_take_aux(struct trace_ring *r, uint8_t *buf, size_t len, size_t size,
			 int wrapped)
{
	if (r->map_len)
		munmap(r->buf, r->map_len);
	else
		free(r->buf);
	r->map_len = 0;
	r->whole = 0;
	r->buf = buf;
	r->size = size;
	r->pos = len;
	r->total = len;
	r->wrapped = wrapped;
	r->gen++;
}

long trace_aux_copy_overwrite(const uint8_t *aux, size_t size, uint64_t head, uint8_t *out)
{
	size_t off;

	if (!size || (size & (size - 1)))
		return -1;
	off = (size_t)(head & (size - 1));
	memcpy(out, aux + off, size - off);
	memcpy(out + (size - off), aux, off);
	return (long)size;
}
