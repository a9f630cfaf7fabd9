/* tests/unit/test-state.c: trace/state: the trace state in LLDB's
 * jLLDBTraceGetState layout, read back with json-c — per thread, per CPU
 * (threads without their own buffer), the TSC conversion and cgroup flag
 * only when known, warnings. */
#include "tests/unit/test.h"
#include "trace/state.h"

#include <json-c/json.h>
#include <stdlib.h>

static struct json_object *at(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static struct json_object *idx(struct json_object *a, size_t i)
{
	return a && json_object_is_type(a, json_type_array) && i < json_object_array_length(a)
	       ? json_object_array_get_idx(a, i) : NULL;
}

static struct json_object *parse(const struct trace_state *s, int pretty)
{
	char *text = trace_state_json(s, pretty);
	struct json_object *o = json_tokener_parse(text);

	free(text);
	return o;
}

TEST(per_thread)
{
	struct trace_state_thread th[] = { { 100, 4096, 1 }, { 101, 84, 1 } };
	struct trace_tsc_conv none = { 0 };
	struct trace_state s = { .threads = th, .nthreads = 2, .cpuinfo_bytes = 2696, .tsc = &none,
				 .cgroup_filtering = -1 };
	struct json_object *o = parse(&s, 0), *d;

	CHECK(o);
	CHECK_INT(json_object_array_length(at(o, "tracedThreads")), 2);
	CHECK_INT(json_object_get_int64(at(idx(at(o, "tracedThreads"), 1), "tid")), 101);
	d = idx(at(idx(at(o, "tracedThreads"), 0), "binaryData"), 0);
	CHECK_STR(json_object_get_string(at(d, "kind")), "iptTrace");
	CHECK_INT(json_object_get_uint64(at(d, "size")), 4096);
	d = idx(at(o, "processBinaryData"), 0);
	CHECK_STR(json_object_get_string(at(d, "kind")), "procfsCpuInfo");
	CHECK_INT(json_object_get_uint64(at(d, "size")), 2696);
	/* nothing said that is not known */
	CHECK(!at(o, "cpus"));
	CHECK(!at(o, "tscPerfZeroConversion"));
	CHECK(!at(o, "usingCgroupFiltering"));
	CHECK(!at(o, "warnings"));
	json_object_put(o);
}

TEST(per_cpu)
{
	struct trace_state_thread th[] = { { 200, 0, 0 } };
	struct trace_state_cpu cpus[] = { { 0, 819, 96 }, { 3, 10, 32 } };
	struct trace_tsc_conv conv = { .mult = 1651911777, .shift = 32, .zero = 18446744073624800076ull,
				       .valid = 1 };
	const char *warn[] = { "cgroup v2 not mounted: tracing every task of each CPU" };
	struct trace_state s = { .threads = th, .nthreads = 1, .cpus = cpus, .ncpus = 2, .tsc = &conv,
				 .cgroup_filtering = 0, .warnings = warn, .nwarnings = 1 };
	struct json_object *o = parse(&s, 1), *c, *z;

	CHECK(o);
	/* a thread of a per-CPU trace has no buffer of its own */
	CHECK_INT(json_object_array_length(at(idx(at(o, "tracedThreads"), 0), "binaryData")), 0);
	CHECK_INT(json_object_array_length(at(o, "cpus")), 2);
	c = idx(at(o, "cpus"), 1);
	CHECK_INT(json_object_get_int(at(c, "id")), 3);
	CHECK_STR(json_object_get_string(at(idx(at(c, "binaryData"), 0), "kind")), "iptTrace");
	CHECK_INT(json_object_get_uint64(at(idx(at(c, "binaryData"), 0), "size")), 10);
	CHECK_STR(json_object_get_string(at(idx(at(c, "binaryData"), 1), "kind")), "perfContextSwitchTrace");
	CHECK_INT(json_object_get_uint64(at(idx(at(c, "binaryData"), 1), "size")), 32);
	z = at(o, "tscPerfZeroConversion");
	CHECK_INT(json_object_get_uint64(at(z, "timeMult")), 1651911777);
	CHECK_INT(json_object_get_uint64(at(z, "timeShift")), 32);
	CHECK(json_object_get_uint64(at(z, "timeZero")) == 18446744073624800076ull);
	CHECK(at(o, "usingCgroupFiltering"));
	CHECK(!json_object_get_boolean(at(o, "usingCgroupFiltering")));
	CHECK_STR(json_object_get_string(idx(at(o, "warnings"), 0)), warn[0]);
	json_object_put(o);
}

TEST_MAIN(per_thread, per_cpu)
