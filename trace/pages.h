/* trace/pages.h: the code as it ran.  A software collector keeps the bytes
 * of every code page whose instructions it records, once per version of
 * the page (trace/pages.c).  Versions are told apart by a generation: the
 * process's code generation moves on when code may have changed (a system
 * call that maps, protects or writes code, bytes found changed when the
 * collector reads code again), and the packet writer puts it in the trace
 * as the CR3 of a PIP (trace_pages_cr3): the decoder's image reads the code
 * in force at each point of the trace from here (trace/image.c), and a
 * bundle carries the versions as a file of its own. */
#ifndef PTDB_TRACE_PAGES_H
#define PTDB_TRACE_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TRACE_PAGE 4096ull

struct trace_pages;

struct trace_pages *trace_pages_new(void);
void trace_pages_free(struct trace_pages *p);

/* The generation in force now (0 until code first changed). */
uint64_t trace_pages_gen(const struct trace_pages *p);
/* Where it is kept (a packet writer's code_gen). */
const uint64_t *trace_pages_gen_ptr(const struct trace_pages *p);
/* The generation as the writer's PIP carries it, and back (libipt's
 * "no CR3" before any PIP: generation 0). */
static inline uint64_t trace_pages_cr3(uint64_t gen)
{
	return gen << 12;
}
uint64_t trace_pages_gen_of_cr3(uint64_t cr3);

/* Code in [lo, hi) may have changed (a system call that maps, unmaps,
 * protects or writes it): when a kept page lies there, the generation
 * moves on and those pages are read again when next run.  1 if it moved. */
int trace_pages_changed(struct trace_pages *p, uint64_t lo, uint64_t hi);
/* 1 when the n bytes at addr (an instruction about to be recorded) are
 * those of the pages' current versions, nothing to read; 0: the caller
 * reads the page(s) and hands them to trace_pages_put. */
int trace_pages_known(const struct trace_pages *p, uint64_t addr, const uint8_t *b, size_t n);
/* The bytes of the page at page (4096) as they are now.  A page's first
 * version holds from generation 0; a later one from the current
 * generation, moved on first (returns 1) when nothing said the page
 * changed (the caller's threads then say the new generation at once). */
int trace_pages_put(struct trace_pages *p, uint64_t page, const uint8_t *bytes);
/* The bytes of page's latest version (TRACE_PAGE of them), NULL when
 * the page was never kept: they stay where they are until
 * trace_pages_free. */
const uint8_t *trace_pages_latest(const struct trace_pages *p, uint64_t page);
/* Up to n bytes at addr as they were at generation gen, across pages
 * kept; 0 when addr's page was never kept. */
size_t trace_pages_read(const struct trace_pages *p, uint64_t gen, uint64_t addr, uint8_t *buf,
			size_t n);
/* 1 when some kept page was said or seen changed; trace_pages_touched_at:
 * addr's (its code comes from here, not from a file: the image leaves it
 * out of its files' sections). */
int trace_pages_touched(const struct trace_pages *p);
int trace_pages_touched_at(const struct trace_pages *p, uint64_t addr);
/* A decoded block at addr, decoded at generation gen: 0 when its page was
 * never said or seen changed (its code is the memory's or the file's),
 * else 1 + the generation its version holds from (a block's code: at
 * generation tag - 1). */
#define TRACE_PAGES_TAG_MAX 0xfffffu
uint32_t trace_pages_tag(const struct trace_pages *p, uint64_t addr, uint64_t gen);
/* The next instruction's address after the one at ip, at generation gen
 * (UINT64_MAX: the latest; 0: not decodable from the pages). */
uint64_t trace_pages_next_ip(struct trace_pages *p, uint64_t gen, uint64_t ip);
/* Calls fn for each page kept: whether it was said or seen changed, how
 * many versions it has (in no order of pages). */
void trace_pages_each(const struct trace_pages *p,
		      void (*fn)(void *ctx, uint64_t page, int touched, uint32_t nver), void *ctx);
/* The versions as a file: a memfd holding every version kept (written
 * again when versions were kept since), as a new descriptor the caller
 * closes (-1: none).  One copy, whoever asks (every thread's decoder
 * image reads it). */
int trace_pages_file(struct trace_pages *p);
/* Version k of page (k < its count): the generations it is in force in,
 * [*gen_from, *gen_to) (the last: to UINT64_MAX), and where its bytes are
 * in the last trace_pages_file; -1 when there is no such version. */
int trace_pages_version(const struct trace_pages *p, uint64_t page, uint32_t k, uint64_t *gen_from,
			uint64_t *gen_to, uint64_t *file_off);
/* Counts: pages with versions, versions kept. */
void trace_pages_count(const struct trace_pages *p, uint64_t *pages, uint64_t *versions);

/* The versions as a file's bytes (a bundle's "code pages" file), and back
 * (merged into p).  Save: a heap buffer of *len. */
uint8_t *trace_pages_save(const struct trace_pages *p, size_t *len);
int trace_pages_load(struct trace_pages *p, const uint8_t *buf, size_t len, struct ptdb_err *err);

#endif
