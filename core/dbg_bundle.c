/* core/dbg_bundle.c: trace bundles in the session — "trace load" turns a
 * bundle (core/bundle.c reads and checks it) into a post-mortem target
 * whose threads hold the recorded traces and whose modules are the
 * bundle's copies; "trace save" writes the session's traces, the modules
 * they ran in (with the vDSO and anonymous executable memory copied out of
 * the live process) and trace.json. */
#include "core/bundle.h"
#include "core/cursor.h"
#include "core/dbg.h"
#include "core/dbg_int.h"
#include "trace/cpusplit.h"
#include "trace/decode.h"
#include "trace/swc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SAVE_THREADS 4096
#define TRIPLE "x86_64-unknown-linux-gnu"

/* ---- loading ---- */

/* The largest trace file read into memory: half the physical memory, at
 * most 4 GiB (the software backend's largest buffer). */
static uint64_t trace_file_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t half = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz / 2 : (uint64_t)1 << 30;

	return half < ((uint64_t)4 << 30) ? half : ((uint64_t)4 << 30);
}

/* The whole of a trace file named at JSON path jpath.key. */
static int read_trace(const struct bundle *b, const char *jpath, const char *key, const char *path,
		      uint8_t **data, size_t *len, struct ptdb_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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
	if ((uint64_t)st.st_size > limit) {
		close(fd);
		return ptdb_err_set(err, "%s:%s.%s: '%s' is %lld bytes; ptdb decodes traces in "
				    "memory and reads at most %" PRIu64 " bytes (half the memory, at most 4 GiB)",
				    b->json, jpath, key, path, (long long)st.st_size, limit);
	}
	/* the decoder may read a little past the end: zeroed slack */
	*data = xcalloc((size_t)st.st_size + TRACE_RING_SLACK, 1);
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
		size_t len, swlen, nsw;
		char jp[64];

		snprintf(jp, sizeof(jp), "traceBundle.cpus[%d]", ci);
		for (int k = 0; k < ci; k++)
			if (b->cpus[k].id == bc->id)
				return ptdb_err_set(err, "%s:%s.id: CPU %d is listed twice", b->json, jp, bc->id);
		if (read_trace(b, jp, "iptTrace", bc->trace, &data, &len, err) < 0)
			return -1;
		if (read_trace(b, jp, "contextSwitchTrace", bc->context_switch, &swb, &swlen, err) < 0) {
			free(data);
			return -1;
		}
		if (trace_switch_parse(swb, swlen, &sw, &nsw, err) < 0) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			ptdb_err_set(err, "%s:%s.contextSwitchTrace: %s", b->json, jp, msg);
			free(data);
			free(swb);
			return -1;
		}
		c = xcalloc(1, sizeof(*c));
		trace_swc_init_loaded(&c->s, 0, 0, data, len);
		c->id = bc->id;
		c->pid = pid;
		c->conv = b->tsc;
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
		pm->th[k].th = xcalloc(1, sizeof(*pm->th[k].th));
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
	int fd = open(bm->file, O_RDONLY | O_CLOEXEC);
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

void dbg_unload_bundle(struct dbg *d)
{
	if (!d->pm)
		return;
	for (int i = 0; i < d->pm->nth; i++)
		if (d->pm->th[i].th) {
			trace_swc_release(d->pm->th[i].th);
			free(d->pm->th[i].th);
		}
	free(d->pm->th);
	while (d->pm->cpu) {
		struct trace_swc_cpu *c = d->pm->cpu;

		d->pm->cpu = c->next;
		trace_swc_cpu_release(c);
		free(c);
	}
	for (int i = 0; i < d->pm->nproc; i++) {
		free(d->pm->procs[i].exe);
		free(d->pm->procs[i].triple);
	}
	free(d->pm->procs);
	free(d->pm->json);
	free(d->pm);
	d->pm = NULL;
}

/* The processes of b but p, checked as LLDB checks them at load: every
 * module opens (and matches its uuid). */
static int check_others(const struct bundle *b, const struct bundle_process *p, struct ptdb_err *err)
{
	for (int i = 0; i < b->nprocs; i++) {
		if (&b->procs[i] == p)
			continue;
		for (int k = 0; k < b->procs[i].nmods; k++) {
			struct sym_module *m = open_module(b, &b->procs[i].mods[k], err);

			if (!m)
				return -1;
			sym_module_free(m);
		}
	}
	return 0;
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

int dbg_load_bundle(struct dbg *d, const char *path, struct bundle **info, struct ptdb_err *err)
{
	return dbg_load_bundle_process(d, path, 0, info, err);
}

int dbg_load_bundle_process(struct dbg *d, const char *path, int index, struct bundle **info,
			    struct ptdb_err *err)
{
	struct bundle *b;
	struct bundle_process *p;
	struct sym_module **ms = NULL;
	struct dbg_pm *pm;
	int nm = 0;

	*info = NULL;
	if (bundle_read(path, &b, err) < 0)
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
		size_t len = 0;

		t->tid = p->threads[i].tid;
		t->index = (unsigned)i + 1;
		if (!p->threads[i].trace)
			continue;
		if (read_trace(b, p->threads[i].jpath, "iptTrace", p->threads[i].trace, &data, &len, err) < 0) {
			struct dbg tmp = { .pm = pm };

			dbg_unload_bundle(&tmp);
			goto fail;
		}
		t->th = xcalloc(1, sizeof(*t->th));
		trace_swc_init_loaded(t->th, t->tid, t->index, data, len);
	}
	if (b->ncpus && !b->kernel_file && load_cpus(b, pm, p->pid, err) < 0) {
		struct dbg tmp = { .pm = pm };

		dbg_unload_bundle(&tmp);
		goto fail;
	}
	pm->json = xstrdup(b->json);
	pm->pid = p->pid;
	note_procs(pm, b, index);
	pm->kernel = b->kernel_file != NULL;
	snprintf(pm->vendor, sizeof(pm->vendor), "%s", b->vendor);
	pm->family = b->family;
	pm->model = b->model;
	pm->stepping = b->stepping;
	/* everything read: the bundle replaces the session's target */
	dbg_drop_target(d);
	for (int i = 0; i < nm; i++) {
		struct dbg_module *m = dbg_add_module(d, ms[i], p->mods[i].system_path);

		if (sym_module_range(ms[i], &m->start, &m->end) < 0)
			m->start = m->end = 0;
		m->is_exe = i == 0;
		m->anon = !strncmp(p->mods[i].system_path, "[anon:", 6);
	}
	free(ms);
	d->exe_path = xstrdup(p->mods[0].file);
	d->pm = pm;
	d->pid = pm->pid;
	d->sel_tid = pm->nth ? pm->th[0].tid : 0;
	d->sel_frame = 0;
	memset(&d->last, 0, sizeof(d->last));
	d->tsc_conv = b->tsc;
	dbg_resolve_all(d);
	*info = b;
	return 0;
fail:
	for (int i = 0; i < nm; i++)
		sym_module_free(ms[i]);
	free(ms);
	bundle_free(b);
	return -1;
}

int dbg_pm_frame(struct dbg *d, pid_t tid, struct dbg_frame *f, struct ptdb_err *err)
{
	struct trace_swc_thread *th = dbg_trace_thread(d, tid);
	struct trace_decoded *dec;
	uint64_t n;

	if (!th)
		return ptdb_err_set(err, "thread %d has no trace", (int)tid);
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
			f->mod = dbg_module_for(d, ip);
			return 1;
		}
	}
	return ptdb_err_set(err, "thread %d's trace holds no instructions", (int)tid);
}

/* ---- saving ---- */

static int mkdirs(char *path, struct ptdb_err *err)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			ptdb_err_errno(err, "cannot create '%s'", path);
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return ptdb_err_errno(err, "cannot create '%s'", path);
	return 0;
}

/* Creates the file's directories and writes data to it. */
static int write_file(const char *path, const void *data, size_t n, struct ptdb_err *err)
{
	char dir[PATH_MAX];
	char *slash;
	int fd;
	size_t done = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdirs(dir, err) < 0)
			return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return ptdb_err_errno(err, "cannot write '%s'", path);
	while (done < n) {
		ssize_t w = write(fd, (const uint8_t *)data + done, n - done);

		if (w < 0) {
			close(fd);
			return ptdb_err_errno(err, "cannot write '%s'", path);
		}
		done += (size_t)w;
	}
	if (close(fd) < 0)
		return ptdb_err_errno(err, "cannot write '%s'", path);
	return 0;
}

/* Copies the open file fd (from offset 0) to path. */
static int copy_file(int fd, const char *path, struct ptdb_err *err)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int r;

	if (fstat(fd, &st) < 0)
		return ptdb_err_errno(err, "cannot read the module for '%s'", path);
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t k = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (k <= 0) {
			free(buf);
			return ptdb_err_errno(err, "cannot read the module for '%s'", path);
		}
		got += (size_t)k;
	}
	r = write_file(path, buf, got, err);
	free(buf);
	return r;
}

/* 1 if dir exists and holds anything. */
static int dir_nonempty(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int any = 0;

	if (!dp)
		return 0;
	while (!any && (e = readdir(dp)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dp);
	return any;
}

/* Anonymous executable memory of the live process: [lo, hi) ranges. */
struct anon {
	uint64_t lo, hi;
	int used;
};

static int anon_regions(struct dbg *d, struct anon *out, int max)
{
	char path[64], line[512];
	FILE *f;
	int n = 0;

	if (!dbg_alive(d))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)d->pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, ino;
		char perms[8];
		int name = 0;

		if (sscanf(line, "%llx-%llx %7s %*s %*s %llu %n", &lo, &hi, perms, &ino, &name) < 4)
			continue;
		/* executable, no file, not the kernel's [vdso]/[vsyscall] */
		if (perms[2] != 'x' || ino != 0 || (name && line[name] == '['))
			continue;
		out[n].lo = lo;
		out[n].hi = hi;
		out[n].used = 0;
		n++;
	}
	fclose(f);
	return n;
}

struct touch {
	struct dbg *d;
	char *mod_used;		/* per d->mods */
	struct anon *anon;
	int nanon;
};

static void touch_ip(struct touch *t, uint64_t ip)
{
	struct dbg_module *m = dbg_module_for(t->d, ip);

	if (m)
		t->mod_used[m - t->d->mods] = 1;
	for (int i = 0; i < t->nanon; i++)
		if (ip >= t->anon[i].lo && ip < t->anon[i].hi)
			t->anon[i].used = 1;
}

static void touch_block(void *ctx, uint64_t ip, uint64_t end_ip)
{
	touch_ip(ctx, ip);
	touch_ip(ctx, end_ip);
}

static char *join(const char *dir, const char *rel)
{
	size_t n = strlen(dir) + strlen(rel) + 2;
	char *s = xmalloc(n);

	snprintf(s, n, "%s/%s", dir, rel);
	return s;
}

/* A loaded kernel bundle is written as one again, as LLDB saves it: its
 * threads' traces become the CPUs' (each with an empty context-switch
 * trace: the kernel bundle never needed them), its one module the kernel
 * image, no processes. */
static int as_kernel(struct bundle *b, struct bundle_process *p, struct ptdb_err *err)
{
	if (!p->nmods)
		return ptdb_err_set(err, "the kernel trace has no kernel image to save");
	for (int i = 0; i < p->nthreads; i++) {
		struct bundle_cpu *bc;
		char rel[80];

		if (!p->threads[i].trace)
			continue;
		b->cpus = xrealloc(b->cpus, (size_t)(b->ncpus + 1) * sizeof(*b->cpus));
		bc = &b->cpus[b->ncpus++];
		memset(bc, 0, sizeof(*bc));
		bc->id = (int)p->threads[i].tid;
		snprintf(rel, sizeof(rel), "cpus/%d.perf_context_switch_trace", bc->id);
		bc->context_switch = join(b->dir, rel);
		if (write_file(bc->context_switch, "", 0, err) < 0)
			return -1;
		/* LLDB's layout: cpus/<id>.intelpt_trace */
		snprintf(rel, sizeof(rel), "cpus/%d.intelpt_trace", bc->id);
		bc->trace = join(b->dir, rel);
		if (rename(p->threads[i].trace, bc->trace) < 0)
			return ptdb_err_errno(err, "cannot write '%s'", bc->trace);
	}
	{
		char *threads = join(b->dir, "threads");

		rmdir(threads);	/* empty now */
		free(threads);
	}
	b->kernel_file = xstrdup(p->mods[0].file);
	b->kernel_load = p->mods[0].load_addr;
	b->nprocs = 0;
	return 0;
}

/* The CPU that wrote the traces into b. */
static void save_cpu_info(struct dbg *d, struct bundle *b)
{
	if (d->pm) {
		snprintf(b->vendor, sizeof(b->vendor), "%s", d->pm->vendor);
		b->family = d->pm->family;
		b->model = d->pm->model;
		b->stepping = d->pm->stepping;
	} else if (dbg_trace_ipt(d)) {
		/* the CPU that wrote it: its errata apply when decoding */
		int f, m, st;

		dbg_ipt_cpu_info(dbg_trace_ipt(d), b->vendor, sizeof(b->vendor), &f, &m, &st);
		b->family = (unsigned)f;
		b->model = (unsigned)m;
		b->stepping = (unsigned)st;
	} else {
		/* the software backend's packets come from no CPU's errata */
		snprintf(b->vendor, sizeof(b->vendor), "unknown");
	}
}

/* The threads: raw buffers, oldest byte first; the code their traces ran
 * is marked in t. */
static int save_threads(struct dbg *d, struct trace_swc_thread **ths, int nth, int compact,
			const char *dir, struct bundle_process *p, struct touch *t,
			struct ptdb_err *err)
{
	for (int i = 0; i < nth; i++) {
		struct trace_decoded *dec;
		struct bundle_thread *bt;
		uint8_t *buf;
		size_t len;
		char rel[64];
		int r;

		if (dbg_trace_decode(d, ths[i], &dec, err) < 0)
			return -1;
		if (compact && trace_decoded_insn_count(dec) == 0)
			continue;
		trace_decoded_blocks(dec, touch_block, t);
		bt = &p->threads[p->nthreads++];
		bt->tid = ths[i]->tid;
		if (ths[i]->cpu)
			continue;	/* its trace is in its CPU's */
		snprintf(rel, sizeof(rel), "threads/%d.intelpt_trace", (int)ths[i]->tid);
		bt->trace = join(dir, rel);
		if (trace_ring_snapshot(&ths[i]->ring, &buf, &len, err) < 0)
			return -1;
		r = write_file(bt->trace, buf, len, err);
		free(buf);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Per-CPU: the CPUs' traces and context switches, and their clock. */
static int save_cpus(struct dbg *d, const char *dir, struct bundle *b, struct ptdb_err *err)
{
	for (struct trace_swc_cpu *cpu = dbg_trace_cpu(d); cpu; cpu = cpu->next) {
		struct bundle_cpu *bc;
		uint8_t *buf;
		size_t len;
		char rel[80];
		int r;

		b->cpus = xrealloc(b->cpus, (size_t)(b->ncpus + 1) * sizeof(*b->cpus));
		bc = &b->cpus[b->ncpus++];
		memset(bc, 0, sizeof(*bc));
		bc->id = cpu->id;
		snprintf(rel, sizeof(rel), "cpus/%d.intelpt_trace", cpu->id);
		bc->trace = join(dir, rel);
		snprintf(rel, sizeof(rel), "cpus/%d.perf_context_switch_trace", cpu->id);
		bc->context_switch = join(dir, rel);
		b->tsc = cpu->conv;
		if (trace_ring_snapshot(&cpu->s.ring, &buf, &len, err) < 0)
			return -1;
		r = write_file(bc->trace, buf, len, err);
		free(buf);
		if (r < 0 || write_file(bc->context_switch, cpu->sw, cpu->sw_len, err) < 0)
			return -1;
	}
	return 0;
}

/* The modules: copies from the open files (the vDSO's copy too), and
 * anonymous executable memory (JIT code) as raw images. */
static int save_modules(struct dbg *d, const char *dir, int compact, const struct touch *t,
			struct bundle_process *p, struct ptdb_err *err)
{
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		struct bundle_module *bm;
		const char *sp = m->path;
		char uuid[128];

		if (!m->sym || !m->end || (compact && !t->mod_used[i]))
			continue;
		bm = &p->mods[p->nmods++];
		bm->system_path = xstrdup(sp);
		bm->file = join(dir, "modules");
		{
			char *f = join(bm->file, sp[0] == '/' ? sp + 1 : sp);

			free(bm->file);
			bm->file = f;
		}
		bm->load_addr = sym_module_is_raw(m->sym) ? sym_module_bias(m->sym)
							  : sym_module_link_base(m->sym) + sym_module_bias(m->sym);
		sym_module_uuid(m->sym, uuid, sizeof(uuid));
		bm->uuid = uuid[0] ? xstrdup(uuid) : NULL;
		if (copy_file(sym_module_fd(m->sym), bm->file, err) < 0)
			return -1;
	}
	for (int i = 0; i < t->nanon; i++) {
		struct bundle_module *bm;
		uint8_t *buf;
		size_t len = (size_t)(t->anon[i].hi - t->anon[i].lo), got;
		char rel[64];
		int r;

		if (compact && !t->anon[i].used)
			continue;
		buf = xmalloc(len);
		got = dbg_read_some(d, t->anon[i].lo, buf, len);
		if (!got) {
			free(buf);
			continue;
		}
		bm = &p->mods[p->nmods++];
		snprintf(rel, sizeof(rel), "[anon:0x%" PRIx64 "]", t->anon[i].lo);
		bm->system_path = xstrdup(rel);
		snprintf(rel, sizeof(rel), "modules/anon-0x%" PRIx64 ".bin", t->anon[i].lo);
		bm->file = join(dir, rel);
		bm->load_addr = t->anon[i].lo;
		r = write_file(bm->file, buf, got, err);
		free(buf);
		if (r < 0)
			return -1;
	}
	return 0;
}

static void save_release(struct bundle *b, struct bundle_process *p)
{
	for (int i = 0; i < p->nthreads; i++)
		free(p->threads[i].trace);
	for (int i = 0; i < p->nmods; i++) {
		free(p->mods[i].system_path);
		free(p->mods[i].file);
		free(p->mods[i].uuid);
	}
	free(p->threads);
	free(p->mods);
	for (int i = 0; i < b->ncpus; i++) {
		free(b->cpus[i].trace);
		free(b->cpus[i].context_switch);
	}
	free(b->cpus);
	free(b->kernel_file);
	free(b->json);
}

int dbg_save_bundle(struct dbg *d, const char *dir_arg, int compact, int force,
		    char *json, size_t jn, struct ptdb_err *err)
{
	static struct trace_swc_thread *ths[MAX_SAVE_THREADS];
	struct anon anon[64];
	struct touch t = { d, NULL, anon, 0 };
	struct bundle b;
	struct bundle_process p;
	char dir[PATH_MAX];
	struct stat st;
	int nth, r = -1;

	memset(&b, 0, sizeof(b));
	memset(&p, 0, sizeof(p));
	nth = dbg_trace_all(d, ths, MAX_SAVE_THREADS);
	if (nth == 0)
		return ptdb_err_set(err, d->pm ? "the loaded trace holds no thread traces"
					      : "Process is not being traced");
	if (stat(dir_arg, &st) == 0 && !S_ISDIR(st.st_mode))
		return ptdb_err_set(err, "'%s' exists and is not a directory", dir_arg);
	if (!force && dir_nonempty(dir_arg))
		return ptdb_err_set(err, "'%s' is not empty; use --force to write the bundle into it", dir_arg);
	snprintf(dir, sizeof(dir), "%s", dir_arg);
	if (mkdirs(dir, err) < 0)
		return -1;
	if (!realpath(dir_arg, dir))
		return ptdb_err_errno(err, "cannot use '%s'", dir_arg);
	b.dir = dir;
	b.json = join(dir, "trace.json");
	save_cpu_info(d, &b);
	b.tsc = d->tsc_conv;
	b.procs = &p;
	b.nprocs = 1;
	p.pid = d->pid;
	p.triple = TRIPLE;
	p.threads = xcalloc((size_t)nth, sizeof(*p.threads));
	p.mods = xcalloc((size_t)d->nmods + 64, sizeof(*p.mods));
	t.mod_used = xcalloc((size_t)d->nmods + 1, 1);
	t.nanon = anon_regions(d, anon, 64);
	if (save_threads(d, ths, nth, compact, dir, &p, &t, err) == 0 &&
	    save_cpus(d, dir, &b, err) == 0 && save_modules(d, dir, compact, &t, &p, err) == 0 &&
	    !(d->pm && d->pm->kernel && as_kernel(&b, &p, err) < 0) && bundle_write(&b, err) == 0) {
		snprintf(json, jn, "%s", b.json);
		r = 0;
	}
	save_release(&b, &p);
	free(t.mod_used);
	return r;
}
