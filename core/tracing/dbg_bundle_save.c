/* core/tracing/dbg_bundle_save.c: "trace save": the session's traces written as a
 * bundle (LLDB's layout, core/tracing/bundle.c's trace.json): the threads' and
 * CPUs' raw traces, copies of the modules they ran (all of them, or with
 * --compact only those), anonymous executable memory as raw images. */
#include "core/tracing/bundle.h"
#include "core/tracing/bundle_dir.h"
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/trace_info.h"
#include "core/tracing/items_int.h"
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
#include <sys/stat.h>
#include <unistd.h>

#define TRIPLE "x86_64-unknown-linux-gnu"

/* Writes a new file under the bundle's temporary folder. */
static int write_file(const char *path, const void *data, size_t n, struct ptdb_err *err)
{
	return bundle_dir_write(path, data, n, err);
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

	if (!dbg_tr(d)->host->alive(d))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)*dbg_tr(d)->pid);
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
	struct dbg_module *mods;	/* the session's */
	char *mod_used;		/* per mods */
	struct anon *anon;
	int nanon;
};

static void touch_ip(struct touch *t, uint64_t ip)
{
	struct dbg_module *m = dbg_tr(t->d)->host->module_for(t->d, ip);

	if (m)
		t->mod_used[m - t->mods] = 1;
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
	int f, m, st;

	/* the CPU that wrote them (a loaded bundle's, intel-pt's): its errata
	 * apply when decoding */
	if (dbg_trace_cpu_info(d, b->vendor, sizeof(b->vendor), &f, &m, &st) == 0) {
		b->family = (unsigned)f;
		b->model = (unsigned)m;
		b->stepping = (unsigned)st;
	} else {
		/* the software backend's: a CPU whose errata its packets never
		 * meet, so that LLDB (which refuses an unknown CPU) decodes it */
		snprintf(b->vendor, sizeof(b->vendor), "%s", TRACE_SWC_CPU_VENDOR);
		b->family = TRACE_SWC_CPU_FAMILY;
		b->model = TRACE_SWC_CPU_MODEL;
		b->stepping = TRACE_SWC_CPU_STEPPING;
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
		/* a wrapped buffer says so: its oldest part is lost */
		bt->wrapped = ths[i]->ring.wrapped != 0;
		bt->written = ths[i]->ring.total;
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
		b->tsc = dbg_tsc_to_bundle(&cpu->conv);
		if (trace_ring_snapshot(&cpu->s.ring, &buf, &len, err) < 0)
			return -1;
		r = write_file(bc->trace, buf, len, err);
		free(buf);
		if (r < 0 || write_file(bc->context_switch, cpu->sw, cpu->sw_len, err) < 0)
			return -1;
	}
	return 0;
}

/* Where the copy of a module loaded from sp goes: under dir/modules/ (the
 * path's names without . and ..: a bundle's systemPath never leads out),
 * with "-N" when an earlier module took the name. */
static char *module_file(const char *dir, const char *sp, const struct bundle_process *p, int n)
{
	char *rel = bundle_dir_module_rel(sp), *file = join(dir, rel);

	free(rel);
	for (int k = 0; k < n; k++) {
		if (strcmp(p->mods[k].file, file))
			continue;
		{
			size_t len = strlen(file) + 16;
			char *f = xmalloc(len);

			snprintf(f, len, "%s-%d", file, n);
			free(file);
			file = f;
		}
		k = -1;	/* again, against every earlier one */
	}
	return file;
}

/* The modules: copies from the open files (the vDSO's copy too), and
 * anonymous executable memory (JIT code) as raw images. */
static int save_modules(struct dbg *d, const char *dir, int compact, const struct touch *t,
			struct bundle_process *p, struct ptdb_err *err)
{
	int nmods;
	struct dbg_module *mods = dbg_tr(d)->host->modules(d, &nmods);

	for (int i = 0; i < nmods; i++) {
		struct dbg_module *m = &mods[i];
		struct bundle_module *bm;
		const char *sp = m->path;
		char uuid[128];

		if (!m->sym || !m->end || (compact && !t->mod_used[i]))
			continue;
		bm = &p->mods[p->nmods++];
		bm->system_path = xstrdup(sp);
		bm->file = module_file(dir, sp, p, p->nmods - 1);
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
		got = dbg_tr(d)->host->read_some(d, t->anon[i].lo, buf, len);
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

/* The code as it ran (trace/pages.h): every version of every page the
 * trace's instructions came from, JIT code, trampolines on a stack and
 * code unmapped since included ("codePages", a file of ptdb's). */
static int save_pages(struct dbg *d, const char *dir, struct bundle_process *p, struct ptdb_err *err)
{
	const struct trace_pages *pages = dbg_trace_pages(d);
	uint64_t npages, nversions;
	uint8_t *buf;
	size_t len;
	int r;

	trace_pages_count(pages, &npages, &nversions);
	if (!nversions)
		return 0;
	buf = trace_pages_save(pages, &len);
	p->code_pages = join(dir, "code-pages.bin");
	r = write_file(p->code_pages, buf, len, err);
	free(buf);
	return r;
}

static void save_release(struct bundle *b, struct bundle_process *p)
{
	free(p->code_pages);
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

/* dbg_save_bundle of the traces ths[nth]. */
static int save_bundle(struct dbg *d, struct trace_swc_thread **ths, int nth, const char *dir_arg,
		       int compact, int force, char *json, size_t jn, struct ptdb_err *err)
{
	struct anon anon[64];
	struct touch t = { d, NULL, NULL, anon, 0 };
	struct bundle b;
	struct bundle_process p;
	struct bundle_dir bd;
	const char *dir;
	int r = -1, nmods;

	memset(&b, 0, sizeof(b));
	memset(&p, 0, sizeof(p));
	if (nth == 0)
		return ptdb_err_set(err, dbg_tr(d)->pm ? "the loaded trace holds no thread traces"
					      : "Process is not being traced");
	if (bundle_dir_begin(&bd, dir_arg, force, err) < 0)
		return -1;
	dir = bd.tmp;
	b.dir = bd.tmp;
	b.json = join(dir, "trace.json");
	save_cpu_info(d, &b);
	b.tsc = dbg_tsc_to_bundle(dbg_tr(d)->tsc_conv);
	b.procs = &p;
	b.nprocs = 1;
	p.pid = *dbg_tr(d)->pid;
	p.triple = TRIPLE;
	p.threads = xcalloc((size_t)nth, sizeof(*p.threads));
	t.mods = dbg_tr(d)->host->modules(d, &nmods);
	p.mods = xcalloc((size_t)nmods + 64, sizeof(*p.mods));
	t.mod_used = xcalloc((size_t)nmods + 1, 1);
	t.nanon = anon_regions(d, anon, 64);
	if (save_threads(d, ths, nth, compact, dir, &p, &t, err) == 0 &&
	    save_cpus(d, dir, &b, err) == 0 && save_modules(d, dir, compact, &t, &p, err) == 0 &&
	    save_pages(d, dir, &p, err) == 0 &&
	    !(dbg_tr(d)->pm && dbg_tr(d)->pm->kernel && as_kernel(&b, &p, err) < 0) && bundle_write(&b, err) == 0 &&
	    bundle_dir_commit(&bd, err) == 0) {
		snprintf(json, jn, "%s/trace.json", bd.target);
		r = 0;
	}
	bundle_dir_abort(&bd);	/* what is left of the temporary folder */
	save_release(&b, &p);
	free(t.mod_used);
	return r;
}

int dbg_save_bundle(struct dbg *d, const char *dir_arg, int compact, int force,
		    char *json, size_t jn, struct ptdb_err *err)
{
	int nth, r;
	struct trace_swc_thread **ths = dbg_trace_list(d, &nth);

	r = save_bundle(d, ths, nth, dir_arg, compact, force, json, jn, err);
	free(ths);
	return r;
}
