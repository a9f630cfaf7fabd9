/* cmd/cmd-trace-cache.c: the software engine's lines of "thread trace dump
 * info -v": which engine recorded, and the cache engine's counters. */
#include "cmd/cmd-trace.h"
#include "core/session/dbg.h"

#include <inttypes.h>
#include <string.h>

void cmd_trace_cache_info(struct dbg *d, FILE *out)
{
	struct dbg_cache_stats st;

	fprintf(out, "    Engine: %s\n", dbg_trace_engine(d));
	if (strcmp(dbg_trace_engine(d), "cache"))
		return;
	dbg_trace_cache_stats(d, &st);
	fprintf(out, "    Cache engine: %" PRIu64 " blocks translated, %" PRIu64 " bytes of code "
		"(largest cache %" PRIu64 " bytes)\n", st.blocks, st.code_bytes, st.peak_cache);
	fprintf(out, "    Cache engine: %" PRIu64 " block records, %" PRIu64 " entries into the cache\n",
		st.records, st.entries);
	fprintf(out, "    Cache engine: %" PRIu64 " records copied from the shared ring, %" PRIu64
		" read through the process\n", st.records_mapped, st.records - st.records_mapped);
	fprintf(out, "    Cache engine: %" PRIu64 " traps (%" PRIu64 " exits linked, %" PRIu64
		" lookup misses, %" PRIu64 " full buffers), %" PRIu64 " flushes\n", st.traps, st.links, st.misses,
		st.drains, st.flushes);
	fprintf(out, "    Cache engine: %" PRIu64 " exits linked while threads ran, %" PRIu64
		" once every thread stopped\n", st.links_live, st.links_late);
	fprintf(out, "    Cache engine: %" PRIu64 " misses served without a stop (%.6f s serving)\n", st.served,
		(double)st.serve_ns / 1e9);
	fprintf(out, "    Cache engine: %" PRIu64 " record ring requests served without a stop (%" PRIu64
		" waited for records to be read)\n", st.ring_served, st.ring_full);
	fprintf(out, "    Cache engine: %" PRIu64 " threads with slots of their own (gs base), %" PRIu64
		" runs with threads in parallel\n", st.slot_pages, st.crew_runs);
	fprintf(out, "    Cache engine: %.6f s running (%.6f s of it translating, %.6f s writing packets, "
		"%.6f s waiting for the thread)\n", (double)st.run_ns / 1e9, (double)st.translate_ns / 1e9,
		(double)st.packet_ns / 1e9, (double)st.wait_ns / 1e9);
	fprintf(out, "    Cache engine: CPU time %.6f s in ptdb, %.6f s in the traced thread\n",
		(double)st.cpu_ns / 1e9, (double)st.thread_cpu_ns / 1e9);
	fprintf(out, "    Ptrace engine fallback: %" PRIu64 " instructions (system calls, code the cache "
		"does not run)\n", st.fallback);
}
