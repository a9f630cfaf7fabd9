/* trace/ring.h: the byte ring buffer the software backend writes its Intel PT
 * packet stream into (overwrite mode, power-of-two number of pages, the same
 * size semantics as the hardware aux buffer), and the generic chronological
 * copy of a cyclic buffer that both backends use. */
#ifndef PTDB_TRACE_RING_H
#define PTDB_TRACE_RING_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TRACE_RING_PAGE 4096u
/* Readable zero bytes after every snapshot (libipt 2.0.5 reads 1 past end). */
#define TRACE_RING_SLACK 16u

struct trace_ring {
	uint8_t *buf;
	size_t size;        /* power of two, multiple of TRACE_RING_PAGE */
	size_t pos;         /* next write offset, 0 <= pos < size */
	int wrapped;        /* pos has gone past the end at least once */
	uint64_t total;     /* bytes ever written, padding included */
	size_t map_len;     /* buf is a file's mapping of map_len bytes
			     * (trace_ring_adopt_mapped; munmap'd), 0: heap */
	int whole;          /* a file's contents, never written (viewed) */
	uint64_t gen;       /* generation: bumped whenever the contents are
			     * replaced (trace_ring_take_aux: a hardware
			     * refill; trace_ring_adopt: a loaded trace or a
			     * per-CPU split part; trace_ring_release).  Packets
			     * appended by trace_ring_write do not bump it:
			     * they are written while the process runs, and a
			     * reader keys them by the stop (core's decode
			     * cache: (gen, stop id)) */
};

/* bytes rounded up to a power-of-two number of pages (at least one page);
 * 0 if that does not fit in a size_t. */
size_t trace_ring_round_size(size_t bytes);

/* Allocates a ring of trace_ring_round_size(bytes) bytes. */
int trace_ring_init(struct trace_ring *r, size_t bytes, struct ptdb_err *err);
void trace_ring_release(struct trace_ring *r);
/* r's buffer is freed and r holds buf[0,len) instead, as written,
 * unwrapped (its size is len, not a power of two; a loaded trace, a
 * thread's part of a per-CPU trace).  Takes buf (xmalloc'd). */
void trace_ring_adopt(struct trace_ring *r, uint8_t *buf, size_t len);

/* A file's len bytes read as they are needed: a private read-only
 * mapping of fd followed by TRACE_RING_SLACK zero bytes (an anonymous
 * page after the file's last one), *map_len bytes in all for
 * trace_ring_adopt_mapped.  -1 (errno set) if it cannot be mapped. */
int trace_map_file(int fd, size_t len, uint8_t **buf, size_t *map_len);
/* As trace_ring_adopt, buf being a file's contents followed by
 * TRACE_RING_SLACK zero bytes, never written: trace_map_file's mapping
 * (map_len), or xmalloc'd (map_len 0). */
void trace_ring_adopt_mapped(struct trace_ring *r, uint8_t *buf, size_t len, size_t map_len);
/* The contents without a copy when r holds them as they are read (a
 * file's, trace_ring_adopt_mapped): buf[0,*len) followed by
 * TRACE_RING_SLACK zero bytes, valid until r is released or adopts
 * another buffer.  NULL otherwise (take a snapshot). */
const uint8_t *trace_ring_view(const struct trace_ring *r, size_t *len);

/* Appends one whole packet (n <= 64 and n <= size).  When it does not fit
 * before the end, the rest of the ring is filled with PAD (0x00) bytes and
 * the packet goes to offset 0.  Returns 0, or -1 if n is too large. */
int trace_ring_write(struct trace_ring *r, const void *p, size_t n);

/* The contents oldest first ([pos,end) + [0,pos) after a wrap, else
 * [0,pos)) in a new xmalloc'd buffer (free() it) followed by
 * TRACE_RING_SLACK zero bytes that *len does not count. */
int trace_ring_snapshot(const struct trace_ring *r, uint8_t **buf, size_t *len,
			struct ptdb_err *err);

/* Copies the cyclic buffer aux of size bytes (a power of two) in
 * chronological order into out (room for size bytes).  head is the
 * monotonically increasing write counter (perf's aux_head): before the first
 * wrap (head < size) only [0,head) is valid and copied; after it the whole
 * buffer is copied starting at head % size.  Returns the number of bytes
 * copied, or -1 if size is 0 or not a power of two. */
long trace_cyclic_copy(const uint8_t *aux, size_t size, uint64_t head, uint8_t *out);

/* The same for an aux ring in overwrite (snapshot) mode, where aux_head is
 * the write offset inside the buffer and says nothing of wrapping: the
 * whole buffer from head % size round to it (bytes never written are
 * zeros, which decode as PAD).  Returns size, or -1 as above. */
long trace_aux_copy_overwrite(const uint8_t *aux, size_t size, uint64_t head, uint8_t *out);

/* 1 if that overwrite-mode buffer has wrapped: the PMU writes from offset
 * 0 of a zeroed buffer, so a non-zero byte past the write offset was
 * written on an earlier round.  How much was written is not known. */
int trace_aux_overwrite_wrapped(const uint8_t *aux, size_t size, uint64_t head);

/* A backend's read of its aux buffer (buf: len bytes oldest first, from
 * a buffer of size bytes, wrapped or not) becomes r's contents; r's old
 * buffer is freed.  total is len: after a wrap more was written, how
 * much is not known (total <= size then says so). */
void trace_ring_take_aux(struct trace_ring *r, uint8_t *buf, size_t len, size_t size,
			 int wrapped);

#endif
