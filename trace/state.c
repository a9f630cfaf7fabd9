/* trace/state.c: LLDB's jLLDBTraceGetState response, built with json-c. */
#include "trace/state.h"

#include "base/err.h"

#include <json-c/json.h>

static struct json_object *datum(const char *kind, uint64_t size)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "size", json_object_new_uint64(size));
	return o;
}

char *trace_state_json(const struct trace_state *s, int pretty)
{
	struct json_object *root = json_object_new_object();
	struct json_object *threads = json_object_new_array();
	struct json_object *proc = json_object_new_array();
	char *text;

	for (size_t i = 0; i < s->nthreads; i++) {
		struct json_object *t = json_object_new_object();
		struct json_object *data = json_object_new_array();

		json_object_object_add(t, "tid", json_object_new_int64(s->threads[i].tid));
		if (s->threads[i].has_ipt)
			json_object_array_add(data, datum("iptTrace", s->threads[i].ipt_bytes));
		json_object_object_add(t, "binaryData", data);
		json_object_array_add(threads, t);
	}
	json_object_object_add(root, "tracedThreads", threads);
	json_object_array_add(proc, datum("procfsCpuInfo", s->cpuinfo_bytes));
	json_object_object_add(root, "processBinaryData", proc);
	if (s->ncpus) {
		struct json_object *cpus = json_object_new_array();

		for (size_t i = 0; i < s->ncpus; i++) {
			struct json_object *c = json_object_new_object();
			struct json_object *data = json_object_new_array();

			json_object_object_add(c, "id", json_object_new_int(s->cpus[i].id));
			json_object_array_add(data, datum("iptTrace", s->cpus[i].ipt_bytes));
			json_object_array_add(data, datum("perfContextSwitchTrace", s->cpus[i].switch_bytes));
			json_object_object_add(c, "binaryData", data);
			json_object_array_add(cpus, c);
		}
		json_object_object_add(root, "cpus", cpus);
	}
	if (s->nwarnings) {
		struct json_object *w = json_object_new_array();

		for (size_t i = 0; i < s->nwarnings; i++)
			json_object_array_add(w, json_object_new_string(s->warnings[i]));
		json_object_object_add(root, "warnings", w);
	}
	if (s->tsc && s->tsc->valid) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "timeMult", json_object_new_uint64(s->tsc->mult));
		json_object_object_add(c, "timeShift", json_object_new_uint64(s->tsc->shift));
		json_object_object_add(c, "timeZero", json_object_new_uint64(s->tsc->zero));
		json_object_object_add(root, "tscPerfZeroConversion", c);
	}
	if (s->cgroup_filtering >= 0)
		json_object_object_add(root, "usingCgroupFiltering",
				       json_object_new_boolean(s->cgroup_filtering));
	text = xstrdup(json_object_to_json_string_ext(root, (pretty ? JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN) |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return text;
}
