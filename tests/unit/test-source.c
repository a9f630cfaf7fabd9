/* tests/unit/test-source.c: the session's sources (core/tracing/dbg_source.c) —
 * with no trace, a loaded bundle, and the traces of a process that exited
 * while traced — answer the same questions the same way the modes did:
 * traces, threads and their numbers, the technology, memory from files,
 * selectable threads; and the trace session ends them cleanly. */
#include "tests/unit/test.h"
#include "core/session/dbg.h"
#include "core/tracing/dbg_trace_int.h"
#include "trace/swc.h"

#include <stdlib.h>

static struct trace_swc_thread *loaded_thread(pid_t tid, unsigned index)
{
	struct trace_swc_thread *th = dbg_traced_new();	/* as the session allocates them */
	uint8_t *data = xmalloc(16);

	memset(data, 0, 16);
	trace_swc_init_loaded(th, tid, index, data, 16);
	return th;
}

TEST(source_without_trace)
{
	struct dbg d;
	struct target_thread_info ti[4];
	struct trace_swc_thread *all[4];

	dbg_init(&d);
	CHECK_STR(dbg_trace_technology(&d), "software");
	CHECK_INT(dbg_trace_loaded(&d), 0);
	CHECK_INT(dbg_live_state(&d), 1);
	CHECK(dbg_trace_thread(&d, 100) == NULL);
	CHECK_INT(dbg_trace_all(&d, all, 4), 0);
	CHECK(dbg_trace_cpu(&d) == NULL);
	CHECK_INT(dbg_threads(&d, ti, 4), 0);
	CHECK_INT(dbg_thread_index(&d, 100), 0);
	CHECK_INT(dbg_source(&d)->files_only(&d), 0);
	CHECK_INT(dbg_select_thread(&d, 100), -1);
	dbg_release(&d);
}

TEST(source_loaded_bundle)
{
	struct dbg d;
	struct target_thread_info ti[4];
	struct trace_swc_thread *all[4];
	struct ptdb_err err;
	char vendor[32];
	int family, model, stepping;
	uint8_t b;

	dbg_init(&d);
	d.tr.pm = xcalloc(1, sizeof(*d.tr.pm));
	d.tr.pm->pid = 100;
	d.tr.pm->nth = 2;
	d.tr.pm->th = xcalloc(2, sizeof(*d.tr.pm->th));
	d.tr.pm->th[0] = (struct dbg_pm_thread){ .tid = 100, .index = 1, .th = loaded_thread(100, 1) };
	d.tr.pm->th[1] = (struct dbg_pm_thread){ .tid = 101, .index = 2, .th = NULL };
	snprintf(d.tr.pm->vendor, sizeof(d.tr.pm->vendor), "GenuineIntel");
	d.tr.pm->family = 6;
	d.tr.pm->model = 85;
	d.tr.pm->stepping = 4;

	CHECK_STR(dbg_trace_technology(&d), "intel-pt");
	CHECK_INT(dbg_trace_loaded(&d), 1);
	CHECK_INT(dbg_live_state(&d), 0);
	CHECK_INT(dbg_tracing(&d), 0);
	CHECK_INT(dbg_trace_kept(&d), 0);
	/* both threads listed, only one traced */
	CHECK_INT(dbg_threads(&d, ti, 4), 2);
	CHECK_INT(ti[0].tid, 100);
	CHECK_INT(ti[1].index, 2);
	CHECK_INT(dbg_thread_index(&d, 101), 2);
	CHECK_INT(dbg_thread_index(&d, 102), 0);
	CHECK(dbg_trace_thread(&d, 100) == d.tr.pm->th[0].th);
	CHECK(dbg_trace_thread(&d, 101) == NULL);
	CHECK_INT(dbg_trace_all(&d, all, 4), 1);
	CHECK(all[0] == d.tr.pm->th[0].th);
	CHECK_INT(dbg_thread_exited(&d, 100), 0);
	/* a listed thread is selectable, another is not */
	CHECK_INT(dbg_select_thread(&d, 101), 0);
	CHECK_INT(d.sel_tid, 101);
	CHECK_INT(dbg_select_thread(&d, 102), -1);
	/* memory: the modules' files only (there are none here) */
	CHECK_INT(dbg_source(&d)->files_only(&d), 1);
	CHECK_INT(dbg_read(&d, 0x10, &b, 1, &err), -1);
	CHECK_STR(err.msg, "memory at 0x10 is not in the loaded trace's modules (only their code "
			   "and data files are)");
	CHECK_INT(dbg_trace_cpu_info(&d, vendor, sizeof(vendor), &family, &model, &stepping), 0);
	CHECK_STR(vendor, "GenuineIntel");
	CHECK_INT(family * 10000 + model * 10 + stepping, 60854);
	dbg_release(&d);
	CHECK(d.tr.pm == NULL);
}

/* A process that exited while traced by the software collector: its
 * traces stay, its threads are the traced ones in thread order, memory is
 * the module files'; ending the session frees them. */
TEST(source_exited_software_trace)
{
	struct dbg d;
	struct target_thread_info ti[4];
	struct trace_swc_thread *all[4];
	struct ptdb_err err;
	char vendor[32];
	int family, model, stepping;
	uint8_t b;

	dbg_init(&d);
	d.tr.trace = xcalloc(1, sizeof(*d.tr.trace));
	d.tr.trace->nth = 2;
	d.tr.trace->th = xcalloc(2, sizeof(*d.tr.trace->th));
	d.tr.trace->th[0] = loaded_thread(201, 2);
	d.tr.trace->th[1] = loaded_thread(200, 1);

	CHECK_STR(dbg_trace_technology(&d), "software");
	CHECK(dbg_trace_collector(d.tr.trace) == &dbg_swc_collector);
	CHECK_INT(dbg_tracing(&d), 1);
	CHECK_INT(dbg_trace_kept(&d), 1);
	CHECK_INT(dbg_trace_loaded(&d), 0);
	CHECK_INT(dbg_live_state(&d), 1);
	CHECK_INT(dbg_trace_all(&d, all, 4), 2);
	CHECK_INT(all[0]->tid, 200);	/* thread order */
	CHECK_INT(dbg_threads(&d, ti, 4), 2);
	CHECK_INT(ti[0].tid, 200);
	CHECK_INT(ti[1].index, 2);
	CHECK_INT(dbg_thread_index(&d, 201), 2);
	CHECK(dbg_trace_thread(&d, 201) == d.tr.trace->th[0]);
	CHECK_INT(dbg_thread_exited(&d, 201), 1);
	CHECK_INT(dbg_select_thread(&d, 200), -1);	/* no process */
	CHECK_INT(dbg_source(&d)->files_only(&d), 1);
	CHECK_INT(dbg_read(&d, 0x10, &b, 1, &err), -1);
	CHECK_STR(err.msg, "memory at 0x10 is not in the exited process's module files");
	/* the software collector knows no CPU model */
	CHECK_INT(dbg_trace_cpu_info(&d, vendor, sizeof(vendor), &family, &model, &stepping), -1);
	/* stopping needs a process; ending does not */
	CHECK_INT(dbg_trace_stop(&d, NULL, 0, 1, &err), -1);
	CHECK_STR(err.msg, "Process is not being traced");
	dbg_trace_end(&d);
	CHECK(d.tr.trace == NULL);
	CHECK_INT(dbg_tracing(&d), 0);
	dbg_release(&d);
}

TEST_MAIN(source_without_trace, source_loaded_bundle, source_exited_software_trace)
