/* tests/unit/test-ipt-perf.c: trace/ipt_perf.c, the intel-pt backend's
 * kernel-facing layer, against the real kernel with the one event of the
 * backend that needs no Intel PT: the per-CPU context-switch event
 * (trace_ipt_attr_switch).  It is opened on a CPU this test pins itself
 * to, enabled, fed a few switches (sleeps), disabled, and its data ring
 * read through trace_ipt_event_read_data; the records must parse with the
 * software backend's parser (trace/cpusplit) and show this thread.  Where
 * perf_event_paranoid forbids a CPU-wide event, the refusal must carry the
 * paranoid advice instead (that is the backend's error path). */
#include "tests/unit/test.h"
#include "trace/cpusplit.h"
#include "trace/ipt.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int pin_to(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

static void switches(void)
{
	for (int i = 0; i < 5; i++) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
}

/* The test's ring: 16 times the backend's (16,384 records).  Under a
 * loaded machine (ptrace-heavy processes beside it switch the CPU
 * hundreds of thousands of times a second) the backend's 1,024 records
 * can fill while this thread waits to run again, and a full ring drops
 * what comes next: such a sample is taken again. */
#define SAMPLE_BYTES (16 * TRACE_IPT_SWITCH_BYTES)

struct sample {
	size_t n;
	int in, out, disorder, full, refused;
};

/* One sample of CPU cpu's switches around a few sleeps (refused: the
 * event cannot be opened here, err says why). */
static void sample(int cpu, struct sample *s, struct ptdb_err *err)
{
	struct perf_event_attr a;
	struct trace_ipt_event e;
	struct trace_switch *sw;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n, pages = SAMPLE_BYTES / (size_t)sysconf(_SC_PAGESIZE);
	pid_t tid = (pid_t)syscall(SYS_gettid);
	uint64_t last = 0;

	memset(s, 0, sizeof(*s));
	trace_ipt_attr_switch(&a);
	if (trace_ipt_event_open(&e, &a, -1, cpu, -1, 0, pages, 0, "perf_event_open (context "
				 "switches) for CPU 0", err) < 0) {
		s->refused = 1;
		return;
	}
	CHECK(!e.enabled);	/* created disabled */
	CHECK_INT(e.data_size, SAMPLE_BYTES);
	CHECK_INT(trace_ipt_event_enable(&e, err), 0);
	CHECK(e.enabled);
	switches();
	CHECK_INT(trace_ipt_event_disable(&e, err), 0);
	CHECK_INT(trace_ipt_event_read_data(&e, &buf, &len, &cap, err), 0);
	/* nothing new after disabling: a second read appends nothing */
	n = len;
	CHECK_INT(trace_ipt_event_read_data(&e, &buf, &len, &cap, err), 0);
	CHECK_INT(len, n);
	s->full = e.data_lost > 0 || len + 256 > SAMPLE_BYTES;
	trace_ipt_event_close(&e);
	CHECK_INT(e.fd, -1);
	CHECK_INT(trace_switch_parse(buf, len, &sw, &n, err), 0);
	free(buf);
	for (size_t i = 0; i < n; i++) {
		if (sw[i].tid == tid)
			sw[i].out ? s->out++ : s->in++;
		s->disorder += sw[i].time < last;	/* one CPU's records are in time order */
		last = sw[i].time;
	}
	free(sw);
	s->n = n;
}

TEST(context_switch_ring_from_the_kernel)
{
	struct ptdb_err err;
	struct sample s;
	int cpu = sched_getcpu(), tries = 0;

	CHECK(cpu >= 0);
	CHECK_INT(pin_to(cpu), 0);
	do {
		sample(cpu, &s, &err);
		if (test_failed_)
			return;
	} while (!s.refused && s.full && ++tries < 5);
	if (s.refused) {
		printf("# cannot open a CPU-wide event here: %s\n", err.msg);
		/* any refusal but a permission one is a bug */
		CHECK(strstr(err.msg, strerror(EACCES)) || strstr(err.msg, strerror(EPERM)));
		CHECK(strstr(err.msg, "/proc/sys/kernel/perf_event_paranoid"));
		return;
	}
	printf("# %zu switch records on CPU %d, this thread in %d, out %d (%d full rings)\n",
	       s.n, cpu, s.in, s.out, tries);
	CHECK(!s.full);
	CHECK(s.n >= 2);
	CHECK(s.out >= 1);	/* it slept */
	CHECK(s.in >= 1);	/* and came back */
	CHECK_INT(s.disorder, 0);
}

/* An unprivileged user under perf_event_paranoid >= 1 may not open a
 * CPU-wide event: the error must say what to do. */
TEST(permission_refusal_names_paranoid)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int paranoid = 2, st;
	pid_t p;

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	p = fork();
	CHECK(p >= 0);
	if (p == 0) {
		struct perf_event_attr a;
		struct trace_ipt_event e;
		struct ptdb_err err;

		if (geteuid() == 0 && setuid(65534) < 0)
			_exit(3);
		trace_ipt_attr_switch(&a);
		if (trace_ipt_event_open(&e, &a, -1, 0, -1, 0, 0, 0, "perf_event_open for CPU 0",
					 &err) == 0) {
			trace_ipt_event_close(&e);
			_exit(2);	/* allowed (paranoid <= 0) */
		}
		_exit(strstr(err.msg, "perf_event_open for CPU 0: ") &&
		      strstr(err.msg, "You might need to rerun as sudo or to set "
				      "/proc/sys/kernel/perf_event_paranoid to a value of 0 or -1.") ? 0 : 1);
	}
	CHECK_INT(waitpid(p, &st, 0), p);
	CHECK(WIFEXITED(st));
	printf("# perf_event_paranoid %d: unprivileged CPU-wide open %s\n", paranoid,
	       WEXITSTATUS(st) == 2 ? "allowed" : "refused");
	if (paranoid <= 0)
		CHECK(WEXITSTATUS(st) == 2 || WEXITSTATUS(st) == 0);
	else
		CHECK_INT(WEXITSTATUS(st), 0);
}

TEST(aux_read_refuses_an_event_without_aux)
{
	struct trace_ipt_event e = { .fd = -1 };
	struct ptdb_err err;
	uint8_t *buf;
	size_t len;

	CHECK_INT(trace_ipt_event_read_aux(&e, &buf, &len, &err), -1);
	CHECK_STR(err.msg, "the event has no aux buffer");
}

TEST(limits_of_this_process)
{
	struct trace_ipt_limits l;

	char line[256];
	unsigned long long capeff = 0;
	int paranoid = 2;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &capeff) == 1)
			break;
	if (f)
		fclose(f);
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	CHECK_INT(trace_ipt_limits_get(&l, NULL), 0);
	CHECK(l.ncpus >= 1);
	/* the kernel's perf_mmap: CAP_IPC_LOCK or paranoid -1 lift the limits */
	CHECK_INT(l.privileged, (capeff & (1ull << 14)) || paranoid == -1);
}

TEST_MAIN(context_switch_ring_from_the_kernel, permission_refusal_names_paranoid, aux_read_refuses_an_event_without_aux,
	  limits_of_this_process)
