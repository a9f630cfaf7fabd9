/* decodebench.c: decode throughput.  Traces prog between bench_begin and
 * bench_end with the software backend (through ptdb's library), then times
 * ptdb's decoder (trace_decode: libipt block decoder + compact storage)
 * against a bare libipt block-decoder loop over the same buffer and image.
 * Prints: instructions, ptdb seconds, bare seconds (best of 5 each). */
#include "core/session/dbg.h"
#include "trace/decode.h"
#include "trace/ring.h"
#include "trace/swc.h"
#include "tests/bench/progs/bench_decode.h"

#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The loop a bare libipt user writes: sync, drain events, next block. */
static uint64_t bare(const uint8_t *buf, size_t len, struct trace_image *img)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	return bare_count(&cfg, img->image);
}

int main(int argc, char **argv)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = 256u << 20 };
	char *args[] = { argc > 1 ? argv[1] : "", NULL };
	struct trace_swc_thread *th;
	struct trace_image img;
	uint8_t *buf;
	size_t len;
	double tp = 1e9, tb = 1e9;
	uint64_t ni = 0, nb = 0;

	if (argc < 2)
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
	if (!th || trace_ring_snapshot(&th->ring, &buf, &len, &err) < 0 ||
	    dbg_trace_build_image(&d, &img, &err) < 0)
		goto fail;
	for (int i = 0; i < 5; i++) {
		struct trace_decoded *dec;
		double t0 = now(), t1;

		if (trace_decode(buf, len, &img, &dec, &err) < 0)
			goto fail;
		t1 = now();
		ni = trace_decoded_insn_count(dec);
		trace_decoded_free(dec);
		if (t1 - t0 < tp)
			tp = t1 - t0;
		t0 = now();
		nb = bare(buf, len, &img);
		t1 = now();
		if (t1 - t0 < tb)
			tb = t1 - t0;
	}
	printf("%llu %llu %.6f %.6f\n", (unsigned long long)ni, (unsigned long long)nb, tp, tb);
	free(buf);
	trace_image_release(&img);
	dbg_release(&d);
	return 0;
fail:
	fprintf(stderr, "decodebench: %s\n", err.msg);
	dbg_release(&d);
	return 1;
}
