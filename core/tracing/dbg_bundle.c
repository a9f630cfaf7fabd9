/* core/tracing/dbg_bundle.c: trace bundles in the session — "trace load" turns a
 * bundle (core/tracing/bundle.c reads and checks it) into a post-mortem target
 * whose threads hold the recorded traces and whose modules are the
 * bundle's copies.  "trace save" is core/tracing/dbg_bundle_save.c. */
#include "core/tracing/bundle.h"
#include "core/tracing/cursor.h"
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/items_int.h"
#include "trace/cpusplit.h"
#include "trace/decode.h"
#include "trace/pages.h"
#include "trace/swc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- loading ---- */

/* The largest trace file read into memory: half the physical memory, at
 * most 4 GiB (the software backend's largest buffer). */
static uint64_t trace_file_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t half = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz / 2 : (uint64_t)1 << 30;

	return half < ((uint64_t)4 << 30) ? half : ((uint64_t)4 << 30);
}

/* Trace files of this size or more are mapped, smaller ones read: a
 * mapping is two of the process's areas (vm.max_map_count, 65530 by
 * default, bounds them), and a small file's pages are soon all read. */
#define MAP_MIN_BYTES ((uint64_t)1 << 20)

/* The whole of a trace file named at JSON path jpath.key: mapped, read
 * as it is needed (map_len set: the mapping's length, 0 if it was read:
 * small, or it could not be mapped), or read into memory (map_len NULL). */
static int read_trace(const struct bundle *b, const char *jpath, const char *key, const char *path,
		      uint8_t **data, size_t *len, size_t *map_len, struct ptdb_err *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	uint64_t limit = trace_file_limit();
	struct stat st;
	size_t got = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		ptdb_err_set(err, "%s:%s.%s: cannot read '%s': %s", b->json, jpath, key, path,
			     strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ptdb_err_set(err, "%s:%s.%s: '%s' is not a regular file", b->json, jpath, key, path);
	}
	if ((uint64_t)st.st_size > limit) {
		close(fd);
		return ptdb_err_set(err, "%s:%s.%s: '%s' is %lld bytes; ptdb decodes traces in "
				    "memory and reads at most %" PRIu64 " bytes (half the memory, at most 4 GiB)",
				    b->json, jpath, key, path, (long long)st.st_size, limit);
	}
	if (map_len) {
		*map_len = 0;
		if ((uint64_t)st.st_size >= MAP_MIN_BYTES &&
		    trace_map_file(fd, (size_t)st.st_size, data, map_len) == 0) {
			close(fd);
			*len = (size_t)st.st_size;
			return 0;
		}
	}
	/* the decoder may read a little past the end: zeroed slack */
	*data = xmalloc((size_t)st.st_size + TRACE_RING_SLACK);
	memset(*data + st.st_size, 0, TRACE_RING_SLACK);
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, *data + got, (size_t)st.st_size - got);

		if (r <= 0) {
			ptdb_err_set(err, "%s:%s.%s: cannot read '%s': %s", b->json, jpath, key, path,
				     r < 0 ? strerror(errno) : "the file shrank while read");
			free(*data);
			close(fd);
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	*len = got;
	return 0;
}

static void drop_trace(uint8_t *data, size_t map_len)
{
	if (map_len)
		munmap(data, map_len);
	else
		free(data);
}

/* A per-CPU bundle's CPUs: their traces, their context switches
 * (checked), and the threads of pid the switches name that the bundle does
 * not list. */
static int load_cpus(const struct bundle *b, struct dbg_pm *pm, pid_t pid, struct ptdb_err *err)
{
	struct trace_swc_cpu **tail = &pm->cpu;

	for (int ci = 0; ci < b->ncpus; ci++) {
		const struct bundle_cpu *bc = &b->cpus[ci];
		struct trace_swc_cpu *c;
		struct trace_switch *sw;
		uint8_t *data, *swb;
		size_t len, swlen, nsw, map_len;
		char jp[64];

		snprintf(jp, sizeof(jp), "traceBundle.cpus[%d]", ci);
		for (int k = 0; k < ci; k++)
			if (b->cpus[k].id == bc->id)
				return ptdb_err_set(err, "%s:%s.id: CPU %d is listed twice", b->json, jp, bc->id);
		if (read_trace(b, jp, "iptTrace", bc->trace, &data, &len, &map_len, err) < 0)
			return -1;
		if (read_trace(b, jp, "contextSwitchTrace", bc->context_switch, &swb, &swlen, NULL,
			       err) < 0) {
			drop_trace(data, map_len);
			return -1;
		}
		if (trace_switch_parse(swb, swlen, &sw, &nsw, err) < 0) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			ptdb_err_set(err, "%s:%s.contextSwitchTrace: %s", b->json, jp, msg);
			drop_trace(data, map_len);
			free(swb);
			return -1;
		}
		c = xcalloc(1, sizeof(*c));
		trace_swc_init_loaded(&c->s, 0, 0, NULL, 0);
		trace_ring_adopt_mapped(&c->s.ring, data, len, map_len);
		c->id = bc->id;
		c->pid = pid;
		c->conv = dbg_tsc_from_bundle(&b->tsc);
		c->sw = swb;
		c->sw_len = c->sw_cap = swlen;
		*tail = c;
		tail = &c->next;
		for (size_t i = 0; i < nsw; i++) {
			int known = 0;

			if (sw[i].pid != pid || !sw[i].tid)
				continue;
			for (int k = 0; k < pm->nth; k++)
				known |= pm->th[k].tid == sw[i].tid;
			if (known)
				continue;
			pm->th = xrealloc(pm->th, (size_t)(pm->nth + 1) * sizeof(*pm->th));
			memset(&pm->th[pm->nth], 0, sizeof(pm->th[0]));
			pm->th[pm->nth].tid = sw[i].tid;
			pm->th[pm->nth].index = (unsigned)pm->nth + 1;
			pm->nth++;
		}
		free(sw);
	}
	for (int k = 0; k < pm->nth; k++) {
		pm->th[k].th = dbg_traced_new();
		trace_swc_init_on_cpu(pm->th[k].th, pm->th[k].tid, pm->th[k].index, pm->cpu);
	}
	return 0;
}

/* An ELF module (placed so that its lowest segment lies at the load
 * address) or a raw binary (starting there). */
static struct sym_module *open_module(const struct bundle *b, const struct bundle_module *bm,
				      struct ptdb_err *err)
{
	struct ptdb_err e;
	struct sym_module *m;
	unsigned char magic[4] = { 0 };
	int fd = open(bm->file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int elf;

	if (fd < 0) {
		ptdb_err_set(err, "%s:%s.file: cannot read '%s': %s", b->json, bm->jpath, bm->file,
			     strerror(errno));
		return NULL;
	}
	elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	m = elf ? sym_module_open(bm->file, &e) : sym_module_open_raw(bm->file, &e);
	if (!m) {
		ptdb_err_set(err, "%s:%s: %s", b->json, bm->jpath, e.msg);
		return NULL;
	}
	if (elf) {
		char uuid[128];

		if (sym_module_truncated(m)) {
			ptdb_err_set(err, "%s:%s.file: '%s' is truncated: its loadable segments reach past "
				     "the end of the file", b->json, bm->jpath, bm->file);
			sym_module_free(m);
			return NULL;
		}
		sym_module_uuid(m, uuid, sizeof(uuid));
		if (bm->uuid && bm->uuid[0] && uuid[0] && !bundle_uuid_equal(bm->uuid, uuid)) {
			ptdb_err_set(err, "%s:%s.uuid: \"%s\" is not the build ID of '%s' (%s): a different file",
				     b->json, bm->jpath, bm->uuid, bm->file, uuid);
			sym_module_free(m);
			return NULL;
		}
		if (bm->load_addr < sym_module_link_base(m) && !sym_module_is_pie(m)) {
			ptdb_err_set(err, "%s:%s.loadAddress: 0x%" PRIx64 " is below the link address 0x%" PRIx64
				     " of the non-PIE '%s'", b->json, bm->jpath, bm->load_addr,
				     sym_module_link_base(m), bm->file);
			sym_module_free(m);
			return NULL;
		}
		sym_module_set_bias(m, bm->load_addr - sym_module_link_base(m));
	} else {
		sym_module_set_bias(m, bm->load_addr);
	}
	sym_module_set_display_name(m, bm->system_path);
	return m;
}

/* A kernel bundle as LLDB loads it: one process (BUNDLE_KERNEL_PID) whose
 * threads are the CPUs (tid = CPU id, each with its CPU's trace; the
 * context switches are not needed) and whose one module is the kernel
 * image at its load address.  b owns what this adds. */
static int kernel_as_process(struct bundle *b, struct ptdb_err *err)
{
	struct bundle_process *p;
	struct bundle_module *m;

	free(b->procs);		/* "processes": [] */
	b->procs = xcalloc(1, sizeof(*b->procs));
	b->nprocs = 1;
	p = &b->procs[0];
	p->pid = BUNDLE_KERNEL_PID;
	p->threads = xcalloc((size_t)b->ncpus + 1, sizeof(*p->threads));
	for (int i = 0; i < b->ncpus; i++) {
		char jp[64];

		snprintf(jp, sizeof(jp), "traceBundle.cpus[%d]", i);
		for (int k = 0; k < i; k++)
			if (b->cpus[k].id == b->cpus[i].id)
				return ptdb_err_set(err, "%s:%s.id: CPU %d is listed twice", b->json, jp,
						    b->cpus[i].id);
		p->threads[i].tid = b->cpus[i].id;
		p->threads[i].trace = xstrdup(b->cpus[i].trace);
		p->threads[i].jpath = xstrdup(jp);
		p->nthreads++;
	}
	m = p->mods = xcalloc(1, sizeof(*p->mods));
	p->nmods = 1;
	m->system_path = xstrdup(b->kernel_file);
	m->file = xstrdup(b->kernel_file);
	m->load_addr = b->kernel_load;
	m->jpath = xstrdup("traceBundle.kernel");
	return 0;
}

/* pm and what it holds go, and d's decoded traces of its threads (d NULL:
 * a pm not yet loaded, whose threads were never decoded). */
static void pm_free(struct dbg *d, struct dbg_pm *pm)
{
	for (int i = 0; i < pm->nth; i++)
		if (pm->th[i].th) {
			if (d)
				dbg_trace_thread_release(d, pm->th[i].th);
			else
				trace_swc_release(pm->th[i].th);
			free(dbg_traced(pm->th[i].th));
		}
	free(pm->th);
	while (pm->cpu) {
		struct trace_swc_cpu *c = pm->cpu;

		pm->cpu = c->next;
		trace_swc_cpu_release(c);
		free(c);
	}
	for (int i = 0; i < pm->nproc; i++) {
		free(pm->procs[i].exe);
		free(pm->procs[i].triple);
	}
	free(pm->procs);
	free(pm->json);
	dbg_pm_index_free(pm);
	trace_pages_free(pm->pages);
	free(pm);
}

/* The bundle's code as it ran ("codePages", trace/pages.h), into pm. */
static int load_pages(const struct bundle *b, int index, struct dbg_pm *pm, struct ptdb_err *err)
{
	const struct bundle_process *p = &b->procs[index];
	char jpath[64];
	uint8_t *data = NULL;
	size_t len = 0;
	struct ptdb_err e;
	int r;

	if (!p->code_pages)
		return 0;
	snprintf(jpath, sizeof(jpath), "traceBundle.processes[%d]", index);
	if (read_trace(b, jpath, "codePages", p->code_pages, &data, &len, NULL, err) < 0)
		return -1;
	pm->pages = trace_pages_new();
	r = trace_pages_load(pm->pages, data, len, &e);
	free(data);
	if (r < 0)
		return ptdb_err_set(err, "%s:%s.codePages: %s", b->json, jpath, e.msg);
	return 0;
}

void dbg_unload_bundle(struct dbg *d)
{
	if (!dbg_tr(d)->pm)
		return;
	pm_free(d, dbg_tr(d)->pm);
	dbg_tr(d)->pm = NULL;
}

/* The processes of b but p, checked as LLDB checks them at load: every
 * module opens (and matches its uuid). */
/* A set of strings (the modules already checked). */
struct seen {
	char **slot;
	size_t cap, n;
};

/* 1 if key was in the set; it is then. */
static int seen_add(struct seen *st, const char *key)
{
	uint64_t h = 1469598103934665603ull;

	if (2 * (st->n + 1) > st->cap) {
		struct seen big = { xcalloc(st->cap ? st->cap * 2 : 64, sizeof(char *)),
				    st->cap ? st->cap * 2 : 64, 0 };

		for (size_t i = 0; i < st->cap; i++) {
			if (st->slot[i])
				seen_add(&big, st->slot[i]);
			free(st->slot[i]);
		}
		free(st->slot);
		*st = big;
	}
	for (const char *c = key; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	for (size_t i = (size_t)h & (st->cap - 1);; i = (i + 1) & (st->cap - 1)) {
		if (!st->slot[i]) {
			st->slot[i] = xstrdup(key);
			st->n++;
			return 0;
		}
		if (!strcmp(st->slot[i], key))
			return 1;
	}
}

static int check_others(const struct bundle *b, const struct bundle_process *p, struct ptdb_err *err)
{
	struct seen st = { NULL, 0, 0 };
	int r = 0;

	/* a module opens as it did for another process when it names the
	 * same file, build ID and load address (processes share their
	 * libraries: 10,000 of them are 10,000 times the same few files) */
	for (int i = 0; i < b->nprocs && r == 0; i++) {
		if (&b->procs[i] == p)
			continue;
		for (int k = 0; k < b->procs[i].nmods && r == 0; k++) {
			const struct bundle_module *bm = &b->procs[i].mods[k];
			const char *uuid = bm->uuid ? bm->uuid : "";
			size_t n = strlen(bm->file) + strlen(uuid) + 24;
			char *key = xmalloc(n);
			struct sym_module *m;

			snprintf(key, n, "%s\n%s\n%" PRIx64, bm->file, uuid, bm->load_addr);

			if (!seen_add(&st, key)) {
				if ((m = open_module(b, bm, err)))
					sym_module_free(m);
				else
					r = -1;
			}
			free(key);
		}
	}
	for (size_t i = 0; i < st.cap; i++)
		free(st.slot[i]);
	free(st.slot);
	return r;
}

static void note_procs(struct dbg_pm *pm, const struct bundle *b, int index)
{
	pm->procs = xcalloc((size_t)b->nprocs + 1, sizeof(*pm->procs));
	pm->nproc = b->nprocs;
	pm->proc = index;
	for (int i = 0; i < b->nprocs; i++) {
		pm->procs[i].pid = b->procs[i].pid;
		pm->procs[i].exe = b->procs[i].nmods ? xstrdup(b->procs[i].mods[0].file) : NULL;
		pm->procs[i].triple = b->procs[i].triple ? xstrdup(b->procs[i].triple) : NULL;
	}
}

int dbg_load_bundle(struct dbg *d, const char *path, int allow_outside, struct bundle **info,
		    struct ptdb_err *err)
{
	return dbg_load_bundle_process(d, path, 0, allow_outside, info, err);
}

int dbg_load_bundle_process(struct dbg *d, const char *path, int index, int allow_outside,
			    struct bundle **info, struct ptdb_err *err)
{
	struct bundle *b;
	struct bundle_process *p;
	struct sym_module **ms = NULL;
	struct dbg_pm *pm;
	int nm = 0;

	*info = NULL;
	if (bundle_read(path, allow_outside, &b, err) < 0)
		return -1;
	if (b->kernel_file && kernel_as_process(b, err) < 0)
		goto fail;
	if (index < 0 || index >= b->nprocs) {
		ptdb_err_set(err, "index %d is out of range, valid target indexes are 0 - %d", index,
			     b->nprocs - 1);
		goto fail;
	}
	p = &b->procs[index];
	if (!p->nmods) {
		ptdb_err_set(err, "%s:traceBundle.processes[%d].modules: no modules: the trace cannot be "
			     "decoded without the code it ran", b->json, index);
		goto fail;
	}
	if (check_others(b, p, err) < 0)
		goto fail;
	ms = xcalloc((size_t)p->nmods, sizeof(*ms));
	for (nm = 0; nm < p->nmods; nm++)
		if (!(ms[nm] = open_module(b, &p->mods[nm], err)))
			goto fail;
	pm = xcalloc(1, sizeof(*pm));
	pm->th = xcalloc((size_t)p->nthreads + 1, sizeof(*pm->th));
	for (int i = 0; i < p->nthreads; i++) {
		struct dbg_pm_thread *t = &pm->th[pm->nth++];
		uint8_t *data = NULL;
		size_t len = 0, map_len = 0;

		t->tid = p->threads[i].tid;
		t->index = (unsigned)i + 1;
		if (!p->threads[i].trace)
			continue;
		if (read_trace(b, p->threads[i].jpath, "iptTrace", p->threads[i].trace, &data, &len,
			       &map_len, err) < 0) {
			pm_free(NULL, pm);
			goto fail;
		}
		t->th = dbg_traced_new();
		trace_swc_init_loaded(t->th, t->tid, t->index, NULL, 0);
		trace_ring_adopt_mapped(&t->th->ring, data, len, map_len);
		if (p->threads[i].wrapped) {	/* as the live trace was */
			t->th->ring.wrapped = 1;
			t->th->ring.total = p->threads[i].written;
		}
	}
	if ((b->ncpus && !b->kernel_file && load_cpus(b, pm, p->pid, err) < 0) ||
	    load_pages(b, index, pm, err) < 0) {
		pm_free(NULL, pm);
		goto fail;
	}
	pm->json = xstrdup(b->json);
	pm->allow_outside = allow_outside;
	pm->pid = p->pid;
	note_procs(pm, b, index);
	pm->kernel = b->kernel_file != NULL;
	snprintf(pm->vendor, sizeof(pm->vendor), "%s", b->vendor);
	pm->family = b->family;
	pm->model = b->model;
	pm->stepping = b->stepping;
	/* everything read: the bundle replaces the session's target */
	dbg_tr(d)->host->drop_target(d);
	for (int i = 0; i < nm; i++) {
		struct dbg_module *m = dbg_tr(d)->host->add_module(d, ms[i], p->mods[i].system_path);

		if (sym_module_range(ms[i], &m->start, &m->end) < 0)
			m->start = m->end = 0;
		m->is_exe = i == 0;
		m->anon = !strncmp(p->mods[i].system_path, "[anon:", 6);
	}
	free(ms);
	dbg_tr(d)->pm = pm;
	dbg_tr(d)->host->loaded(d, p->mods[0].file, pm->pid, pm->nth ? pm->th[0].tid : 0);
	*dbg_tsc_conv_rw(d) = dbg_tsc_from_bundle(&b->tsc);
	dbg_tr(d)->host->resolve_all(d);
	*info = b;
	return 0;
fail:
	for (int i = 0; i < nm; i++)
		sym_module_free(ms[i]);
	free(ms);
	bundle_free(b);
	return -1;
}

/* The IP of the last instruction of th's trace read from its end alone
 * (trace_last_insn_ip): 1, or 0 (decode it all). */
static int last_ip(struct dbg *d, struct trace_swc_thread *th, uint64_t *ip)
{
	const struct trace_image *img;
	const uint8_t *buf;
	size_t len;

	if (th->cpu || !(buf = trace_ring_view(&th->ring, &len)) || !len || !(img = dbg_pm_image(d)))
		return 0;
	return trace_last_insn_ip(buf, len, img, ip);
}

int dbg_pm_frame(struct dbg *d, pid_t tid, struct dbg_frame *f, struct ptdb_err *err)
{
	struct trace_swc_thread *th = dbg_trace_thread(d, tid);
	struct trace_decoded *dec;
	uint64_t n, ip;

	if (!th)
		return ptdb_err_set(err, "thread %d has no trace", (int)tid);
	if (last_ip(d, th, &ip)) {
		memset(f, 0, sizeof(*f));
		f->pc = ip;
		f->mod = dbg_tr(d)->host->module_for(d, ip);
		return 1;
	}
	if (dbg_trace_decode(d, th, &dec, err) < 0)
		return -1;
	/* the last instruction of the trace */
	if ((n = trace_decoded_insn_count(dec))) {
		struct dbg_cursor *c = dbg_cursor_new(d, dec);
		int ok = dbg_cursor_seek_insn(c, n - 1) == 0;
		uint64_t ip = dbg_cursor_item(c)->ip;

		dbg_cursor_free(c);
		if (ok) {
			memset(f, 0, sizeof(*f));
			f->pc = ip;
			f->mod = dbg_tr(d)->host->module_for(d, ip);
			return 1;
		}
	}
	return ptdb_err_set(err, "thread %d's trace holds no instructions", (int)tid);
}
