/* tests/unit/test-ipt.c: trace/ipt, the intel-pt backend's pure logic:
 * format bits and caps from sysfs fixture trees written to a temp dir, the
 * attrs of the per-thread, per-CPU and context-switch events, aux sizes,
 * the aux and data ring copies, locked-memory and total-size limits,
 * CPU lists, /proc/cpuinfo, cgroup paths, the TSC conversion of a perf
 * page, and the error texts. */
#include "tests/unit/test.h"
#include "trace/cpusplit.h"
#include "trace/ipt.h"
#include "trace/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A fixture intel_pt directory as a Skylake's kernel shows it. */
static const char *fixture(int with_caps)
{
	char p[512];

	snprintf(root, sizeof(root), "/tmp/ptdb-test-ipt.XXXXXX");
	if (!mkdtemp(root))
		return NULL;
	snprintf(p, sizeof(p), "%s/format", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/caps", root);
	mkdir(p, 0700);
	put("type", "8\n");
	put("format/tsc", "config:10\n");
	put("format/psb_period", "config:24-27\n");
	put("format/cyc", "config:1\n");
	if (with_caps) {
		put("caps/psb_cyc", "1\n");
		put("caps/psb_periods", "3f\n");	/* pt_cap_show: %x */
	}
	return root;
}

static void cleanup(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
}

TEST(format_fields_parse)
{
	struct trace_ipt_field f;

	CHECK_INT(trace_ipt_format_parse("config:10\n", &f), 0);
	CHECK_INT(f.word, 0);
	CHECK_INT(f.lo, 10);
	CHECK_INT(f.hi, 10);
	CHECK_INT(trace_ipt_format_parse("config:24-27", &f), 0);
	CHECK_INT(f.lo, 24);
	CHECK_INT(f.hi, 27);
	CHECK_INT(trace_ipt_format_parse("config1:0-31\n", &f), 0);
	CHECK_INT(f.word, 1);
	CHECK_INT(f.hi, 31);
	CHECK_INT(trace_ipt_format_parse("config2:3", &f), 0);
	CHECK_INT(f.word, 2);
	CHECK_INT(trace_ipt_format_parse("config:27-24", &f), -1);
	CHECK_INT(trace_ipt_format_parse("config:64", &f), -1);
	CHECK_INT(trace_ipt_format_parse("config:", &f), -1);
	CHECK_INT(trace_ipt_format_parse("cfg:1", &f), -1);
	CHECK_INT(trace_ipt_format_parse("config:1x", &f), -1);
	CHECK(!f.valid);
}

TEST(field_set_places_and_bounds)
{
	struct trace_ipt_field f = { 1, 0, 24, 27 }, none = { 0, 0, 0, 0 };
	uint64_t cfg[3] = { 0xff, 0, 0 };
	struct ptdb_err err;

	CHECK_INT(trace_ipt_field_set(cfg, &f, 5, "psb", &err), 0);
	CHECK_INT(cfg[0], 0xff | (5ull << 24));
	CHECK_INT(trace_ipt_field_set(cfg, &f, 3, "psb", &err), 0);	/* replaces */
	CHECK_INT(cfg[0], 0xff | (3ull << 24));
	CHECK_INT(trace_ipt_field_set(cfg, &f, 16, "psb", &err), -1);
	CHECK(strstr(err.msg, "4-bit field"));
	CHECK_INT(trace_ipt_field_set(cfg, &none, 1, "TSC (--tsc)", &err), -1);
	CHECK(strstr(err.msg, "no TSC (--tsc) setting"));
}

TEST(pmu_read_fixture_tree)
{
	struct trace_ipt_pmu p;
	struct ptdb_err err;

	CHECK(fixture(1));
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), 0);
	cleanup();
	CHECK_INT(p.type, 8);
	CHECK(p.tsc.valid);
	CHECK_INT(p.tsc.lo, 10);
	CHECK(p.psb_period.valid);
	CHECK_INT(p.psb_period.lo, 24);
	CHECK_INT(p.psb_period.hi, 27);
	CHECK_INT(p.psb_cyc, 1);
	CHECK_INT(p.psb_periods, 0x3f);
}

TEST(pmu_missing_is_the_exact_error)
{
	struct trace_ipt_pmu p;
	struct ptdb_err err;
	char want[600];

	snprintf(root, sizeof(root), "/tmp/ptdb-test-ipt-none-%d", (int)getpid());
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), -1);
	snprintf(want, sizeof(want), "Intel PT is not available on this machine: cannot read "
		 "%s/type (%s). Use --backend software.", root, strerror(ENOENT));
	CHECK_STR(err.msg, want);
	/* and a malformed type file */
	CHECK(fixture(0));
	put("type", "intel\n");
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), -1);
	cleanup();
	CHECK(strstr(err.msg, "not a PMU type"));
}

TEST(attr_per_thread)
{
	struct trace_ipt_pmu p;
	struct trace_ipt_opts o = { .perf_config = 0x2001, .tsc = 1, .psb_period = 8192 };
	struct perf_event_attr a;
	struct ptdb_err err;

	CHECK(fixture(1));
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), 0);
	cleanup();
	CHECK_INT(trace_ipt_attr_pt(&a, &p, &o, 0, &err), 0);
	CHECK_INT(a.type, 8);
	CHECK_INT(a.size, sizeof(a));
	CHECK_INT(a.exclude_kernel, 1);
	CHECK_INT(a.exclude_hv, 1);
	CHECK_INT(a.disabled, 1);
	CHECK_INT(a.context_switch, 0);
	/* --perf-config passed through, tsc bit 10, psb 8 KiB = 2^(2+11): N 2 */
	CHECK_INT(a.config, 0x2001 | (1ull << 10) | (2ull << 24));
	o.tsc = 0;
	o.psb_period = 0;
	CHECK_INT(trace_ipt_attr_pt(&a, &p, &o, 0, &err), 0);
	CHECK_INT(a.config, 0x2001);
}

TEST(attr_per_cpu_forces_tsc_and_switch_event)
{
	struct trace_ipt_pmu p;
	struct trace_ipt_opts o = { 0 };
	struct perf_event_attr a;
	struct ptdb_err err;

	CHECK(fixture(1));
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), 0);
	cleanup();
	CHECK_INT(trace_ipt_attr_pt(&a, &p, &o, 1, &err), 0);
	CHECK_INT(a.config, 1ull << 10);
	CHECK_INT(a.disabled, 1);
	trace_ipt_attr_switch(&a);
	CHECK_INT(a.type, PERF_TYPE_SOFTWARE);
	CHECK_INT(a.config, PERF_COUNT_SW_DUMMY);
	CHECK_INT(a.context_switch, 1);
	CHECK_INT(a.sample_type, PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	CHECK_INT(a.sample_id_all, 1);
	CHECK_INT(a.exclude_kernel, 1);
	CHECK_INT(a.disabled, 1);
}

TEST(psb_period_checked_against_caps)
{
	struct trace_ipt_pmu p;
	struct trace_ipt_opts o = { .psb_period = 2048 };
	struct perf_event_attr a;
	struct ptdb_err err;
	unsigned n;

	CHECK(fixture(0));
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), 0);
	CHECK_INT(trace_ipt_attr_pt(&a, &p, &o, 0, &err), -1);
	CHECK(strstr(err.msg, "cannot configure the PSB period"));
	put("caps/psb_cyc", "1\n");
	put("caps/psb_periods", "5\n");	/* 2 KiB and 8 KiB */
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), 0);
	cleanup();
	CHECK_INT(trace_ipt_psb_exponent(&p, 2048, &n, &err), 0);
	CHECK_INT(n, 0);
	CHECK_INT(trace_ipt_psb_exponent(&p, 8192, &n, &err), 0);
	CHECK_INT(n, 2);
	CHECK_INT(trace_ipt_psb_exponent(&p, 4096, &n, &err), -1);
	CHECK(strstr(err.msg, "allows: 2048, 8192 bytes"));
	CHECK_INT(trace_ipt_psb_exponent(&p, 3000, &n, &err), -1);
	CHECK(strstr(err.msg, "power of two"));
	/* no tsc format file: --tsc is refused, not ignored */
	p.tsc.valid = 0;
	o.psb_period = 0;
	o.tsc = 1;
	CHECK_INT(trace_ipt_attr_pt(&a, &p, &o, 0, &err), -1);
}

TEST(cpulist_parse)
{
	int *c, n;
	struct ptdb_err err;

	CHECK_INT(trace_ipt_cpulist_parse("0-3,6,8-9\n", &c, &n, &err), 0);
	CHECK_INT(n, 7);
	CHECK_INT(c[0], 0);
	CHECK_INT(c[3], 3);
	CHECK_INT(c[4], 6);
	CHECK_INT(c[6], 9);
	free(c);
	CHECK_INT(trace_ipt_cpulist_parse("0\n", &c, &n, &err), 0);
	CHECK_INT(n, 1);
	free(c);
	CHECK_INT(trace_ipt_cpulist_parse("", &c, &n, &err), -1);
	CHECK_INT(trace_ipt_cpulist_parse("3-1", &c, &n, &err), -1);
	CHECK_INT(trace_ipt_cpulist_parse("0,", &c, &n, &err), -1);
	CHECK_INT(trace_ipt_cpulist_parse("0-", &c, &n, &err), -1);
	CHECK_INT(trace_ipt_cpulist_parse("a", &c, &n, &err), -1);
	CHECK(strstr(err.msg, "malformed CPU list"));
	/* this machine's own list parses */
	CHECK_INT(trace_ipt_cpus_online(NULL, &c, &n, &err), 0);
	CHECK(n >= 1);
	free(c);
}

static const char cpuinfo[] =
	"processor\t: 0\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 85\n"
	"model name\t: Intel(R) Xeon(R) Platinum 8175M CPU @ 2.50GHz\n"
	"stepping\t: 4\n"
	"flags\t\t: fpu vme intel_pt\n"
	"\n"
	"processor\t: 1\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 99\n"
	"stepping\t: 7\n";

TEST(cpuinfo_parse)
{
	struct trace_ipt_cpuinfo ci;
	struct ptdb_err err;

	CHECK_INT(trace_ipt_cpuinfo_parse(cpuinfo, &ci, &err), 0);
	CHECK_STR(ci.vendor, "GenuineIntel");
	CHECK_INT(ci.family, 6);
	CHECK_INT(ci.model, 85);	/* not "model name", not the 2nd CPU */
	CHECK_INT(ci.stepping, 4);
	CHECK_INT(trace_ipt_cpuinfo_parse("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
					  "cpu family\t: 25\nmodel\t\t: 1\n", &ci, &err), -1);
	CHECK_STR(err.msg, "/proc/cpuinfo: no stepping line");
	CHECK_INT(trace_ipt_cpuinfo_read(NULL, &ci, &err), 0);	/* this machine's */
	CHECK(ci.vendor[0]);
}

TEST(aux_size_rounding)
{
	size_t s, pages;
	struct ptdb_err err;

	CHECK_INT(trace_ipt_aux_size(1, 4096, &s, &pages, &err), 0);
	CHECK_INT(s, 4096);
	CHECK_INT(pages, 1);
	CHECK_INT(trace_ipt_aux_size(4097, 4096, &s, &pages, &err), 0);
	CHECK_INT(s, 8192);
	CHECK_INT(trace_ipt_aux_size(5 << 20, 4096, &s, &pages, &err), 0);
	CHECK_INT(s, 8 << 20);
	CHECK_INT(pages, 2048);
	CHECK_INT(trace_ipt_aux_size(4096, 3000, &s, &pages, &err), -1);
	CHECK_INT(trace_ipt_aux_size((size_t)-1, 4096, &s, &pages, &err), -1);
}

TEST(aux_copy_before_and_after_wrap)
{
	uint8_t aux[16], out[16];

	for (int i = 0; i < 16; i++)
		aux[i] = (uint8_t)i;
	/* before the first wrap: [0, head) */
	CHECK_INT(trace_cyclic_copy(aux, 16, 5, out), 5);
	CHECK_INT(out[0], 0);
	CHECK_INT(out[4], 4);
	/* after: oldest at head % size */
	CHECK_INT(trace_cyclic_copy(aux, 16, 16 + 6, out), 16);
	CHECK_INT(out[0], 6);
	CHECK_INT(out[9], 15);
	CHECK_INT(out[10], 0);
	CHECK_INT(out[15], 5);
	CHECK_INT(trace_cyclic_copy(aux, 16, 32, out), 16);
	CHECK_INT(out[0], 0);
	/* not a power of two: refused */
	CHECK_INT(trace_cyclic_copy(aux, 12, 5, out), -1);
	CHECK_INT(trace_cyclic_copy(aux, 0, 5, out), -1);
}

TEST(data_ring_take_with_wrap_and_loss)
{
	uint8_t ring[16], *buf = NULL;
	size_t len = 0, cap = 0;
	struct ptdb_err err;

	for (int i = 0; i < 16; i++)
		ring[i] = (uint8_t)(0x10 + i);
	CHECK_INT(trace_ipt_data_take(ring, 16, 0, 4, &buf, &len, &cap, &err), 0);
	CHECK_INT(len, 4);
	CHECK_INT(buf[3], 0x13);
	/* tail 12, head 20: bytes 12..15 then 0..3 */
	CHECK_INT(trace_ipt_data_take(ring, 16, 12, 20, &buf, &len, &cap, &err), 0);
	CHECK_INT(len, 12);
	CHECK_INT(buf[4], 0x1c);
	CHECK_INT(buf[7], 0x1f);
	CHECK_INT(buf[8], 0x10);
	CHECK_INT(buf[11], 0x13);
	CHECK_INT(trace_ipt_data_take(ring, 16, 0, 17, &buf, &len, &cap, &err), -1);
	CHECK(strstr(err.msg, "lost"));
	CHECK_INT(trace_ipt_data_take(ring, 12, 0, 1, &buf, &len, &cap, &err), -1);
	free(buf);
}

/* The hardware context-switch ring feeds the same parser as the software
 * backend's records: what the kernel writes is what cpusplit reads. */
TEST(data_ring_records_parse_with_cpusplit)
{
	uint8_t *rec = NULL, ring[64], *buf = NULL;
	size_t rlen = 0, rcap = 0, len = 0, cap = 0, n;
	struct trace_switch s = { 1000, 42, 43, 0 }, *out;
	struct ptdb_err err;

	trace_switch_append(&rec, &rlen, &rcap, &s, 7, 8);
	s.out = 1;
	s.time = 2000;
	trace_switch_append(&rec, &rlen, &rcap, &s, 7, 8);
	CHECK_INT(rlen, 64);
	/* the ring wrapped in the middle of the first record */
	memcpy(ring + 48, rec, 16);
	memcpy(ring, rec + 16, 48);
	CHECK_INT(trace_ipt_data_take(ring, 64, 48, 48 + 64, &buf, &len, &cap, &err), 0);
	CHECK_INT(trace_switch_parse(buf, len, &out, &n, &err), 0);
	CHECK_INT(n, 2);
	CHECK_INT(out[0].time, 1000);
	CHECK_INT(out[0].tid, 43);
	CHECK_INT(out[0].out, 0);
	CHECK_INT(out[1].out, 1);
	free(out);
	free(buf);
	free(rec);
}

TEST(mlock_limit_names_it)
{
	struct trace_ipt_limits l = { .mlock_kb = 516, .has_mlock = 1, .memlock = 8 << 20,
				      .ncpus = 1 };
	struct ptdb_err err;

	/* 516 KiB + 8 MiB: one 4 MiB buffer fits, one 16 MiB does not */
	CHECK_INT(trace_ipt_check_mlock(&l, 4 << 20, 4096, 0, 1, &err), 0);
	CHECK_INT(trace_ipt_check_mlock(&l, 16 << 20, 4096, 0, 1, &err), -1);
	CHECK(strstr(err.msg, "/proc/sys/kernel/perf_event_mlock_kb"));
	CHECK(strstr(err.msg, "RLIMIT_MEMLOCK (8192 KiB)"));
	/* every buffer counts: three of 4 MiB do not fit */
	CHECK_INT(trace_ipt_check_mlock(&l, 4 << 20, 4096, 0, 3, &err), -1);
	CHECK(strstr(err.msg, "3 trace buffers of 4096 KiB"));
	l.ncpus = 8;	/* the mlock allowance is per online CPU */
	CHECK_INT(trace_ipt_check_mlock(&l, 2 << 20, 4096, 8, 5, &err), 0);
	l.privileged = 1;
	CHECK_INT(trace_ipt_check_mlock(&l, 1 << 30, 4096, 0, 64, &err), 0);
	/* the file's value */
	CHECK(fixture(0));
	put("mlock", "516\n");
	snprintf(root + strlen(root), sizeof(root) - strlen(root), "/mlock");
	memset(&l, 0, sizeof(l));
	CHECK_INT(trace_ipt_mlock_read(root, &l, &err), 0);
	*strrchr(root, '/') = 0;
	cleanup();
	CHECK_INT(l.mlock_kb, 516);
	CHECK_INT(l.has_mlock, 1);
}

TEST(total_limit_counts_every_cpu_buffer)
{
	struct ptdb_err err;

	CHECK_INT(trace_ipt_check_total(1 << 20, 4, 4 << 20, 0, &err), 0);
	CHECK_INT(trace_ipt_check_total(1 << 20, 5, 4 << 20, 0, &err), -1);
	CHECK_STR(err.msg, "The process can't be traced because the process trace size limit "
		  "has been reached. Consider retracing with a higher limit.");
	CHECK_INT(err.code, PTDB_E_LIMIT);
	CHECK_INT(trace_ipt_check_total(1 << 20, 500, 0, 0, &err), 0);
	/* per thread: the buffers so far plus the new one */
	CHECK_INT(trace_ipt_check_total((3 << 20) + 4096, 1, 3 << 20, 77, &err), -1);
	CHECK_STR(err.msg, "Thread 77 can't be traced as the process trace size limit has been "
		  "reached. Consider retracing with a higher limit.");
}

TEST(permission_errors_mention_paranoid)
{
	struct ptdb_err err;

	CHECK_INT(trace_ipt_open_error(&err, "perf_event_open for CPU 3", EACCES), -1);
	CHECK(strstr(err.msg, "perf_event_open for CPU 3: Permission denied"));
	CHECK(strstr(err.msg, "You might need to rerun as sudo or to set "
			      "/proc/sys/kernel/perf_event_paranoid to a value of 0 or -1."));
	CHECK_INT(trace_ipt_open_error(&err, "x", EPERM), -1);
	CHECK(strstr(err.msg, "perf_event_paranoid"));
	CHECK_INT(trace_ipt_open_error(&err, "x", ENOENT), -1);
	CHECK(!strstr(err.msg, "perf_event_paranoid"));
}

TEST(cgroup_v2_path)
{
	char p[64];

	CHECK_INT(trace_ipt_cgroup_parse("12:cpu:/x\n0::/user.slice/a.scope\n", p, sizeof(p)), 0);
	CHECK_STR(p, "/user.slice/a.scope");
	CHECK_INT(trace_ipt_cgroup_parse("0::/\n", p, sizeof(p)), 0);
	CHECK_STR(p, "/");
	CHECK_INT(trace_ipt_cgroup_parse("4:memory:/a\n", p, sizeof(p)), -1);
	CHECK_INT(trace_ipt_cgroup_parse("0::/a-long-path-that-does-not-fit\n", p, 8), -1);
}

TEST(tsc_from_a_perf_page_as_the_backend_reads_it)
{
	static struct perf_event_mmap_page pg;
	struct trace_tsc_conv c = { 0 };
	char why[160];

	pg.cap_user_time_zero = 1;
	pg.time_mult = 1u << 31;		/* 2 GHz TSC */
	pg.time_shift = 32;
	pg.time_zero = 1000;
	CHECK_INT(trace_tsc_from_perf_page(&c, &pg, why, sizeof(why)), 0);
	CHECK_INT(trace_tsc_to_ns(&c, 0), 1000);
	CHECK_INT(trace_tsc_to_ns(&c, 2000000000ull), 1000 + 1000000000ull);
	pg.cap_user_time_zero = 0;
	CHECK_INT(trace_tsc_from_perf_page(&c, &pg, why, sizeof(why)), -1);
}

TEST_MAIN(format_fields_parse, field_set_places_and_bounds, pmu_read_fixture_tree,
	  pmu_missing_is_the_exact_error, attr_per_thread, attr_per_cpu_forces_tsc_and_switch_event,
	  psb_period_checked_against_caps, cpulist_parse, cpuinfo_parse, aux_size_rounding,
	  aux_copy_before_and_after_wrap, data_ring_take_with_wrap_and_loss,
	  data_ring_records_parse_with_cpusplit, mlock_limit_names_it,
	  total_limit_counts_every_cpu_buffer, permission_errors_mention_paranoid, cgroup_v2_path,
	  tsc_from_a_perf_page_as_the_backend_reads_it)
