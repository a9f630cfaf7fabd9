/* indexbench.c: a trace of billions of instructions read through the
 * decoded trace's index (issue 33).  Traces bigloop ITERS between
 * bench_begin and bench_end with the software backend's cache engine
 * (through ptdb's library), then measures: the first decode as `thread
 * trace dump info` makes it (dbg_trace_decode: the indexing pass), a bare
 * libipt block-decoder pass over the same bytes, the memory the decode
 * adds at its peak (VmHWM, reset before it, less VmRSS before it), and
 * seeks to random instruction ids that dump 20 instructions each (cursor
 * seek, 20 steps, each instruction disassembled).  Prints one line:
 * insns trace_bytes chunks index_s bare_s peak_extra_bytes seek_max_s
 * seek_median_s bare_insns threads index_cpu_s bare_cpu_s bare_flags_cpu_s
 * (CPU seconds, all threads: what the indexing pass does beyond libipt's
 * own work, whatever else the machine runs; the last the bare pass with
 * blocks ending at jumps and calls, as ptdb's decoder asks). */
#include "core/session/dbg.h"
#include "core/tracing/cursor.h"
#include "trace/decode.h"
#include "trace/ring.h"
#include "trace/swc.h"
#include "tests/bench/progs/bench_decode.h"

#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static long status_kb(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key) + 1);
	if (f)
		fclose(f);
	return v;
}

/* flags: ptdb's decoder's configuration: blocks end at jumps and calls
 * (libipt 2.0.5 recurses once per instruction through a loop of direct
 * jumps), the CPU's errata. */
static uint64_t bare(const uint8_t *buf, size_t len, struct trace_image *img, int flags)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	cfg.flags.variant.block.end_on_jump = (uint32_t)flags;
	cfg.flags.variant.block.end_on_call = (uint32_t)flags;
	if (flags && img->cpu.intel) {	/* and the CPU's errata, as ptdb's */
		cfg.cpu.vendor = pcv_intel;
		cfg.cpu.family = img->cpu.family;
		cfg.cpu.model = img->cpu.model;
		cfg.cpu.stepping = img->cpu.stepping;
		pt_cpu_errata(&cfg.errata, &cfg.cpu);
	}
	return bare_count(&cfg, img->image);
}

/* CPU seconds of the process, all its threads. */
static double cpu(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = (size_t)1 << 30, .engine = DBG_ENGINE_CACHE };
	char *args[] = { argc > 1 ? argv[1] : "", argc > 2 ? argv[2] : "1000000", NULL };
	struct trace_swc_thread *th;
	struct trace_decoded *dec;
	struct trace_image img;
	struct dbg_cursor *c;
	uint8_t *buf;
	size_t len;
	double t0, t_index, t_bare, seeks[20], c0, c_index, c_bare, c_flags;
	uint64_t ni, nb, chunks, decodes;
	long rss0, hwm;
	FILE *f;

	if (argc < 3)
		return 2;
	dbg_init(&d);
	if (dbg_set_exe(&d, argv[1], &err) < 0)
		goto fail;
	dbg_bp_add(&d, DBG_BP_NAME, "bench_begin", NULL, 0, 0);
	dbg_bp_add(&d, DBG_BP_NAME, "bench_end", NULL, 0, 0);
	if (dbg_launch(&d, args, 1, &err) < 0 || dbg_continue(&d, &st, &err) < 0 ||
	    dbg_trace_start(&d, &d.sel_tid, 1, 0, 0, &o, &err) < 0 ||
	    dbg_continue(&d, &st, &err) < 0)
		goto fail;
	th = dbg_trace_thread(&d, d.sel_tid);
	if (!th)
		goto fail;
	rss0 = status_kb("VmRSS");
	if ((f = fopen("/proc/self/clear_refs", "w"))) {	/* VmHWM := VmRSS */
		fputs("5", f);
		fclose(f);
	}
	t0 = now();
	c0 = cpu();
	if (dbg_trace_decode(&d, th, &dec, &err) < 0)
		goto fail;
	t_index = now() - t0;
	c_index = cpu() - c0;
	ni = trace_decoded_insn_count(dec);
	trace_decoded_chunk_stats(dec, &chunks, &decodes);
	c = dbg_cursor_new(&d, dec);
	srand(33);
	for (int k = 0; k < 20; k++) {
		uint64_t id = ((uint64_t)rand() << 31 ^ (uint64_t)rand()) % (ni - 20);

		t0 = now();
		dbg_cursor_seek_insn(c, id);
		for (int i = 0; i < 20; i++) {
			dbg_cursor_insn(c);
			dbg_cursor_next(c);
		}
		seeks[k] = now() - t0;
	}
	dbg_cursor_free(c);
	hwm = status_kb("VmHWM");	/* (dec stays cached in d) */
	if (trace_ring_snapshot(&th->ring, &buf, &len, &err) < 0 ||
	    dbg_trace_build_image(&d, &img, &err) < 0)
		goto fail;
	t0 = now();
	c0 = cpu();
	nb = bare(buf, len, &img, 0);
	t_bare = now() - t0;
	c_bare = cpu() - c0;
	c0 = cpu();
	bare(buf, len, &img, 1);
	c_flags = cpu() - c0;
	qsort(seeks, 20, sizeof(seeks[0]), cmp_d);
	printf("%llu %zu %llu %.3f %.3f %ld %.6f %.6f %llu %d %.3f %.3f %.3f\n", (unsigned long long)ni,
	       len, (unsigned long long)chunks, t_index, t_bare, (hwm - rss0) * 1024L, seeks[19],
	       seeks[10], (unsigned long long)nb, trace_decoded_index_threads(dec), c_index, c_bare,
	       c_flags);
	free(buf);
	trace_image_release(&img);
	dbg_release(&d);
	return 0;
fail:
	fprintf(stderr, "indexbench: %s\n", err.msg);
	dbg_release(&d);
	return 1;
}
