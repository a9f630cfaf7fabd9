/* trace/decode.h: decoding an Intel PT snapshot (hardware or software
 * backend) with libipt's block decoder into a compact decoded thread that
 * stores blocks, not instructions (design.md §3.4), and the item iterator
 * (instruction | gap | event) over it. */
#ifndef PTDB_TRACE_DECODE_H
#define PTDB_TRACE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct pt_image;
struct pt_image_section_cache;
struct trace_pages;
struct pt_asid;
struct image_vers;

/* The memory image the decoder reads code from: file-backed sections in a
 * section cache (pt-packets.md §13: keeps the block cache effective). */
/* The CPU that wrote the trace (libipt applies its errata workarounds);
 * unknown for software-written traces. */
struct trace_cpu {
	int intel;		/* 0: unknown vendor, no errata */
	uint16_t family;
	uint8_t model, stepping;
};

struct trace_image {
	struct pt_image *image;
	struct pt_image_section_cache *iscache;
	struct trace_cpu cpu;
	void *reader;		/* trace_image_set_reader's, owned */
	/* the code as it ran (trace/pages.h; borrowed, NULL: none): read
	 * before the reader's memory, by the generation the trace says */
	struct trace_pages *pages;
	/* the image's read callback (libipt's read_memory_callback_t) and
	 * its context, and the versions of the pages whose code changed as
	 * sections (trace/image_pages.c; the reader's): a decoder's image
	 * for each generation is the image, those versions and the callback */
	int (*read_cb)(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
		       void *ctx);
	void *read_ctx;
	const struct image_vers *vers;
	/* a thread's trace cut out of per-CPU traces: where each execution on
	 * a new CPU starts (offsets of PSBs, increasing) and that CPU's id,
	 * for TRACE_EV_CPU events (borrowed; none: ncpu_marks 0) */
	const size_t *cpu_marks;
	const int *cpu_ids;
	size_t ncpu_marks;
};

int trace_image_init(struct trace_image *img, struct ptdb_err *err);
void trace_image_release(struct trace_image *img);
/* Code no file section covers (anonymous executable memory of a live
 * process) is read through fn: up to n bytes at addr into buf, returning
 * the count (0: nothing there). */
typedef size_t (*trace_image_read_fn)(void *ctx, uint64_t addr, uint8_t *buf, size_t n);
void trace_image_set_reader(struct trace_image *img, trace_image_read_fn fn, void *ctx);
/* Code no file section covers comes first from the versions a software
 * collector kept (borrowed: outlives the image and its decodes). */
void trace_image_set_pages(struct trace_image *img, struct trace_pages *pages);
/* The pages (trace_image_set_pages) no file added so far covers, as
 * sections of the image (trace/image_pages.c: decoded with libipt's block
 * cache, not through the read callback); after the files.  0 (on any
 * failure the callback reads them). */
int trace_image_add_pages(struct trace_image *img);
/* Maps size bytes of path at file_offset to vaddr. */
int trace_image_add_file(struct trace_image *img, const char *path,
			 uint64_t file_offset, uint64_t size, uint64_t vaddr,
			 struct ptdb_err *err);

enum trace_item_kind {
	TRACE_ITEM_INSN = 0,
	TRACE_ITEM_GAP,         /* decode error; error text and offset set */
	TRACE_ITEM_EVENT,
};

enum trace_event_kind {
	TRACE_EV_ENABLED = 1,   /* ip = where tracing resumed; resumed flag */
	TRACE_EV_DISABLED,      /* synchronous disable (after SYSCALL); ip 0 */
	TRACE_EV_ASYNC_DISABLED,/* stop / signal / INT; ip = the 'at' address */
	TRACE_EV_OVERFLOW,      /* ip = resume ip or 0 */
	TRACE_EV_TICK,          /* time changed; ip = the branch */
	TRACE_EV_OTHER,         /* any other libipt event; ip 0, libipt_type set */
	TRACE_EV_SYNC,          /* the decoder (re)synchronized at the PSB at
				 * offset: every PSB, whether the decoder
				 * starts there, resumes there after an error
				 * or decodes through it */
	TRACE_EV_CPU,           /* the thread's execution goes on on another
				 * CPU (per-CPU traces): cpu set */
	TRACE_EV_NKINDS
};

/* Ticks: a TRACE_EV_TICK is recorded whenever the time changes, before the
 * event or at the branch that brought the new time (as LLDB's "HW clock
 * tick"), so the timing points are exactly the items with has_tsc. */
struct trace_item {
	enum trace_item_kind kind;
	uint64_t ip;            /* instruction address, the event's ip, or a
				 * gap's ip when libipt knows it (0 if not) */
	const char *error;      /* gap, overflow: libipt's error text (static) */
	uint64_t offset;        /* gap: trace offset of the error; sync: of the PSB */
	int event;              /* event: enum trace_event_kind */
	int resumed;            /* enabled event: resumed where it stopped */
	int hw;                 /* disabled: by the hardware at a privilege
				 * change (after SYSCALL), not asynchronously
				 * (a stop, signal, INT); enabled: the return
				 * from such a disable */
	int libipt_type;        /* event: enum pt_event_type */
	uint64_t tsc;
	int has_tsc;
	int cpu;                /* CPU event: the new CPU's id */
	uint32_t code_tag;      /* instruction: the code version it ran in
				 * (trace/pages.h's tag), 0: the memory's */
};

/* Where execution goes after the instruction at ip *inside a block*: ip +
 * its length, or the target of a direct JMP/CALL (libipt's blocks follow
 * direct branches: "executed sequentially but not necessarily contiguous").
 * Returns 0 if the instruction cannot be read. */
typedef uint64_t (*trace_next_ip_fn)(void *ctx, uint64_t ip);

struct trace_decoded;

/* Decodes buf[0,len) (which must be followed by 16 readable bytes; ring
 * snapshots are) from its first PSB; errors become gap items and decoding
 * resumes at the next PSB.  *out is heap; free with trace_decoded_free. */
int trace_decode(const uint8_t *buf, size_t len, struct trace_image *img,
		 struct trace_decoded **out, struct ptdb_err *err);

/* Long decodes: progress is called every few thousand blocks with the
 * trace bytes decoded so far and len; nonzero cancels the decode. */
struct trace_decode_hook {
	int (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
};
#define TRACE_DECODE_CANCELLED (-2)
/* trace_decode with a hook (NULL: none).  Cancelled: returns
 * TRACE_DECODE_CANCELLED, err "interrupted", *out NULL. */
int trace_decode_hooked(const uint8_t *buf, size_t len, struct trace_image *img,
			const struct trace_decode_hook *hook, struct trace_decoded **out,
			struct ptdb_err *err);
void trace_decoded_free(struct trace_decoded *d);

/* The decoded trace as an index, not a copy: one pass over buf counts its
 * items and records its sync points (the PSBs, at least chunk_bytes of
 * trace apart: 0 every PSB) with the decoder's state there; reading an
 * item decodes the chunk that holds it, from the PSB before it (a few
 * chunks are kept decoded).  Every function of this header reads it as it
 * reads trace_decode's, with the same results.  buf and *img (copied) are
 * borrowed until trace_decoded_free, or handed over by trace_decoded_adopt.
 * The memory held is the index (some 100 bytes per chunk), the blocks'
 * dictionary and the chunks kept, whatever the trace's length. */
int trace_decode_indexed(const uint8_t *buf, size_t len, struct trace_image *img,
			 size_t chunk_bytes, const struct trace_decode_hook *hook,
			 struct trace_decoded **out, struct ptdb_err *err);
/* An indexed trace takes buf (heap: freed) and img (released) with it. */
void trace_decoded_adopt(struct trace_decoded *d, void *buf, struct trace_image *img);
/* The IP of buf's last instruction, read from the PSBs near its end
 * (trace/decode_last.c): 1, or 0 when none there holds one (decode it
 * all to know). */
int trace_last_insn_ip(const uint8_t *buf, size_t len, const struct trace_image *img, uint64_t *ip);
/* An indexed trace's chunks and how many chunk decodes it made (0, 0 for
 * trace_decode's). */
void trace_decoded_chunk_stats(const struct trace_decoded *d, uint64_t *chunks,
			       uint64_t *decodes);
/* The threads an indexed trace's indexing pass ran on (1: serially), and
 * whether it ran serially because a parallel pass's segments did not
 * start from the state the one before ended in (1: it fell back). */
int trace_decoded_index_threads(const struct trace_decoded *d);
int trace_decoded_index_fell_back(const struct trace_decoded *d);

uint64_t trace_decoded_insn_count(const struct trace_decoded *d);
/* Which decode this is: unique in the process (state kept about one
 * decoded trace, such as where a dump stopped, is keyed by it). */
uint64_t trace_decoded_serial(const struct trace_decoded *d);
uint64_t trace_decoded_item_count(const struct trace_decoded *d);  /* insns + gaps + events */
uint64_t trace_decoded_block_count(const struct trace_decoded *d);
uint64_t trace_decoded_gap_count(const struct trace_decoded *d);
/* Heap bytes held by d (block dictionary, runs, side tables, cursor cache). */
size_t trace_decoded_mem_bytes(const struct trace_decoded *d);

/* Calls fn for each distinct block of the trace: its first and last
 * instruction addresses (no walk over instructions; an indexed trace's
 * chunks are decoded, a block may come once per chunk). */
void trace_decoded_blocks(const struct trace_decoded *d,
			  void (*fn)(void *ctx, uint64_t ip, uint64_t end_ip), void *ctx);

/* Events by kind (events[k] for enum trace_event_kind k < nkinds) and the
 * timestamp range, from the side table (no walk over instructions). */
void trace_decoded_summary(const struct trace_decoded *d, uint64_t *events, int nkinds,
			   uint64_t *tsc_lo, uint64_t *tsc_hi, int *have_tsc);

/* Gaps and events ("side items") are few and stored apart: the k-th of
 * them (k < trace_decoded_side_count) with its item index, and how many
 * lie before item index (so the first at or after it is that k; and item
 * index is instruction index - that count).  Random access, O(log n). */
uint64_t trace_decoded_side_count(const struct trace_decoded *d);
int trace_decoded_side(const struct trace_decoded *d, uint64_t k, uint64_t *index,
		       struct trace_item *it);
uint64_t trace_decoded_side_before(const struct trace_decoded *d, uint64_t index);

/* The timing points around item index: the last item at or before it that
 * has a timestamp (lo) and the first after it (hi). */
struct trace_time_span {
	int has_lo, has_hi;
	uint64_t lo_index, lo_tsc, hi_index, hi_tsc;
};
void trace_decoded_time_span(const struct trace_decoded *d, uint64_t index,
			     struct trace_time_span *s);

/* Errors by libipt's text (gaps and overflows): up to max distinct texts
 * (static strings) with their counts; returns how many were filled. */
int trace_decoded_error_kinds(const struct trace_decoded *d, const char **texts,
			      uint64_t *counts, int max);

/* Item index (0..count-1).  Sequential forward and backward walks are O(1)
 * per item (a cursor remembers the position and the current block's
 * instruction addresses); other jumps are a binary search.  Returns 0, or -1
 * if index is out of range or next_ip failed (it->ip is 0 then). */
int trace_decoded_item(struct trace_decoded *d, uint64_t index, struct trace_item *it,
		       trace_next_ip_fn next_ip, void *ctx);

/* A reader's own position in a decoded trace, which it never changes:
 * any number of cursors walk one trace.  trace_cursor_item is
 * trace_decoded_item through this cursor (sequential walks O(1) per item,
 * jumps a binary search); next_ip is called once per instruction of each
 * block entered. */
struct trace_cursor {
	const struct trace_decoded *top;	/* an indexed trace, or NULL */
	struct trace_decoded *chunk;	/* its chunk the cursor is in (a reference) */
	size_t ci;
	uint64_t base;		/* the chunk's first item */
	const struct trace_decoded *d;	/* the store walked */
	size_t run;		/* the run holding the last item read */
	uint64_t first;		/* its first item index */
	uint32_t blk;		/* the block whose addresses ips holds */
	uint64_t *ips;
	size_t cap;
};
void trace_cursor_init(struct trace_cursor *c, const struct trace_decoded *d);
void trace_cursor_release(struct trace_cursor *c);
int trace_cursor_item(struct trace_cursor *c, uint64_t index, struct trace_item *it,
		      trace_next_ip_fn next_ip, void *ctx);
/* The code generation (trace/pages.h) item index ran in, index being the
 * item the cursor read last (0 before code first changed). */
uint64_t trace_cursor_gen(const struct trace_cursor *c, uint64_t index);
/* The item index of instruction id (id < the instruction count): a binary
 * search over the side table, O(log n). */
uint64_t trace_decoded_insn_item(const struct trace_decoded *d, uint64_t id);

#endif
