/* tests/unit/perf_model.h: a small model of the kernel's perf mmap ABI, to
 * drive the intel-pt backend's reading code (trace/ipt_perf.c) where there
 * is no Intel PT.  Written from the kernel's documented behaviour
 * (perf_event_open(2), "The mmap layout"; kernel/events/ring_buffer.c;
 * arch/x86/events/intel/pt.c), not from ptdb's code:
 *
 *  - A ring mapped without PROT_WRITE is in overwrite mode: the kernel
 *    writes on whatever the reader has not read and never looks at the
 *    tail.  Mapped with PROT_WRITE it stops where the reader's tail is and
 *    drops what does not fit.
 *  - Data ring, forward (the default): data_head counts every byte ever
 *    written; records are written at data_head % size.  In writable mode a
 *    record that does not fit between head and data_tail is dropped and
 *    counted, and the next record that fits is preceded by a
 *    PERF_RECORD_LOST carrying the count.
 *  - Data ring, attr.write_backward: data_head counts down from 0; a record
 *    of n bytes goes to (data_head - n) % size, so from data_head on the
 *    records lie newest first.
 *  - Aux ring, writable mode: aux_head counts every byte; the kernel stops
 *    at aux_tail.  Overwrite (snapshot) mode: the PMU writes round the
 *    buffer for ever; when the event stops, intel_pt's pt_event_stop hands
 *    perf_aux_output_end the write *offset inside the buffer*, and that is
 *    what aux_head shows — not a running count, so it does not tell
 *    whether the buffer wrapped.  Unwritten bytes stay zero.
 *
 * The mode comes from the code under test: TRACE_IPT_AUX_WRITABLE,
 * TRACE_IPT_DATA_WRITABLE and the attr's write_backward. */
#ifndef PTDB_TEST_PERF_MODEL_H
#define PTDB_TEST_PERF_MODEL_H

#include "trace/ipt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PM_PAGE 4096u
#define PM_RECORD_LOST 2u

struct perf_model {
	struct trace_ipt_event ev;	/* what the code under test reads */
	struct perf_event_mmap_page *mp;
	uint8_t *data, *aux;
	size_t data_size, aux_size;
	int data_overwrite, aux_overwrite, backward;
	uint64_t head;			/* data ring: the kernel's head */
	uint64_t aux_written;		/* aux, writable mode: running count */
	size_t aux_pos;			/* aux, overwrite mode: write offset */
	uint64_t pending_lost;		/* dropped, not yet told by a LOST record */
	uint64_t dropped;		/* records ever dropped (writable mode) */
};

/* The reader's view of the metadata page and data ring: writable only in
 * writable mode (the model itself writes through pm_unprotect). */
static inline void pm_protect(struct perf_model *m)
{
	if (m->data_overwrite && m->data_size)
		mprotect(m->mp, PM_PAGE + m->data_size, PROT_READ);
}

static inline void pm_unprotect(struct perf_model *m)
{
	mprotect(m->mp, PM_PAGE + m->data_size, PROT_READ | PROT_WRITE);
}

static inline void pm_open(struct perf_model *m, const struct perf_event_attr *a,
			   size_t data_pages, size_t aux_pages)
{
	memset(m, 0, sizeof(*m));
	m->data_size = data_pages * PM_PAGE;
	m->aux_size = aux_pages * PM_PAGE;
	/* real pages, so that a read-only ring is read-only to the reader too
	 * (a store into it faults, as it would on the kernel's mapping) */
	m->mp = mmap(NULL, PM_PAGE + m->data_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m->data = (uint8_t *)m->mp + PM_PAGE;
	m->aux = m->aux_size ? calloc(1, m->aux_size) : NULL;
	m->mp->data_offset = PM_PAGE;
	m->mp->data_size = m->data_size;
	m->mp->aux_size = m->aux_size;
	m->data_overwrite = !TRACE_IPT_DATA_WRITABLE;
	m->aux_overwrite = !TRACE_IPT_AUX_WRITABLE;
	m->backward = a->write_backward;
	m->ev.fd = -1;			/* no ioctls: the event is "disabled" */
	m->ev.backward = a->write_backward;
	m->ev.base = m->mp;
	m->ev.base_len = PM_PAGE + m->data_size;
	m->ev.data_size = m->data_size;
	m->ev.aux = m->aux;
	m->ev.aux_size = m->aux_size;
	pm_protect(m);
}

static inline void pm_close(struct perf_model *m)
{
	munmap(m->mp, PM_PAGE + m->data_size);
	free(m->aux);
	memset(m, 0, sizeof(*m));
}

/* n bytes at ring offset off, wrapping. */
static inline void pm_put(uint8_t *ring, size_t size, uint64_t off, const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ring[(off + i) & (size - 1)] = ((const uint8_t *)src)[i];
}

/* Room for n more bytes in a writable data ring. */
static inline int pm_fits(const struct perf_model *m, size_t n)
{
	uint64_t tail = m->mp->data_tail, used = m->backward ? tail - m->head : m->head - tail;

	return m->data_overwrite || used + n <= m->data_size;
}

static inline void pm_emit(struct perf_model *m, const void *rec, size_t n)
{
	if (m->backward) {
		m->head -= n;
		pm_put(m->data, m->data_size, m->head, rec, n);
	} else {
		pm_put(m->data, m->data_size, m->head, rec, n);
		m->head += n;
	}
}

/* The kernel writes one record (header included; sample_id trailer
 * pid, tid, time as PERF_SAMPLE_TID | PERF_SAMPLE_TIME put it). */
static inline void pm_record_(struct perf_model *m, const void *rec, size_t n)
{
	if (m->pending_lost) {
		struct {
			struct perf_event_header h;
			uint64_t id, lost;
			uint32_t pid, tid;
			uint64_t time;
		} lost = { { PM_RECORD_LOST, 0, sizeof(lost) }, 0, m->pending_lost, 0, 0, 0 };

		if (!pm_fits(m, sizeof(lost) + n)) {
			m->pending_lost++;
			m->dropped++;
			return;
		}
		pm_emit(m, &lost, sizeof(lost));
		m->pending_lost = 0;
	}
	if (!pm_fits(m, n)) {
		m->pending_lost++;
		m->dropped++;
		return;
	}
	pm_emit(m, rec, n);
	__atomic_store_n(&m->mp->data_head, m->head, __ATOMIC_RELEASE);
}

static inline void pm_record(struct perf_model *m, const void *rec, size_t n)
{
	pm_unprotect(m);
	pm_record_(m, rec, n);
	pm_protect(m);
}

/* The PMU writes trace bytes into the aux ring. */
static inline void pm_aux_write(struct perf_model *m, const uint8_t *b, size_t n)
{
	if (m->aux_overwrite) {
		pm_put(m->aux, m->aux_size, m->aux_pos, b, n);
		m->aux_pos = (m->aux_pos + n) & (m->aux_size - 1);
		return;
	}
	for (size_t i = 0; i < n && m->aux_written - m->mp->aux_tail < m->aux_size; i++)
		m->aux[m->aux_written++ & (m->aux_size - 1)] = b[i];
}

/* The event stops (disabled, or the task scheduled out): the kernel
 * publishes aux_head. */
static inline void pm_aux_stop(struct perf_model *m)
{
	pm_unprotect(m);
	__atomic_store_n(&m->mp->aux_head, m->aux_overwrite ? (uint64_t)m->aux_pos : m->aux_written,
			 __ATOMIC_RELEASE);
	pm_protect(m);
}

#endif
