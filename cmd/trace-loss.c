/* cmd/trace-loss.c: a wrapped trace buffer never goes unsaid: the dump
 * header and dump info show bytes written against the buffer size, and
 * a thread traced with the default size gets one notice at the next stop
 * after its buffer wrapped. */
#include "cmd/trace-loss.h"
#include "core/session/session.h"
#include "core/session/size.h"
#include "core/tracing/trace_info.h"

#include <stdlib.h>

#include <json.h>

int cmd_trace_wrapped(const struct trace_swc_thread *th, unsigned long long *written,
		      unsigned long long *size)
{
	return dbg_trace_wrapped(th, written, size);
}

/* Bytes written: a hardware ring in overwrite mode knows it wrapped, not
 * how much went round (written <= size then): "more than" its size. */
static const char *written_text(unsigned long long w, unsigned long long sz, char *b, size_t n)
{
	char s[64];

	if (w > sz)
		return size_format(w, b, n);
	snprintf(b, n, "more than %s", size_format(sz, s, sizeof(s)));
	return b;
}

void cmd_trace_loss_line(FILE *out, const struct trace_swc_thread *th)
{
	unsigned long long w, sz;
	char b1[80], b2[64];

	if (!cmd_trace_wrapped(th, &w, &sz))
		return;
	fprintf(out, "  (trace buffer wrapped: %s written into %s; the oldest part of the "
		"history is lost)\n", written_text(w, sz, b1, sizeof(b1)),
		size_format(sz, b2, sizeof(b2)));
}

void cmd_trace_loss_info(FILE *out, const struct trace_swc_thread *th)
{
	unsigned long long w, sz;
	char b1[80], b2[64], b3[64];

	if (!cmd_trace_wrapped(th, &w, &sz))
		return;
	if (w <= sz) {
		fprintf(out, "    Trace buffer wrapped: %s written into %s, the oldest part is lost\n",
			written_text(w, sz, b1, sizeof(b1)), size_format(sz, b2, sizeof(b2)));
		return;
	}
	fprintf(out, "    Trace buffer wrapped: %s written into %s, the oldest %s are lost\n",
		size_format(w, b1, sizeof(b1)), size_format(sz, b2, sizeof(b2)),
		size_format(w - sz, b3, sizeof(b3)));
}

void cmd_trace_loss_json(struct dbg *d, const struct trace_swc_thread *th, struct json_object *m)
{
	struct dbg_trace_figures f;
	unsigned long long w, sz;
	int wrapped;

	dbg_trace_figures(d, th, &f);
	w = f.written;
	wrapped = cmd_trace_wrapped(th, &w, &sz);

	json_object_object_add(m, "bytesWritten", json_object_new_uint64(w));
	json_object_object_add(m, "wrapped", json_object_new_boolean(wrapped));
}

void cmd_trace_loss_notice(FILE *out, struct dbg *d)
{
	int n;
	struct dbg_trace_loss *l = dbg_trace_take_loss_notices(d, &n);

	for (int i = 0; i < n; i++) {
		char b1[80], b2[64];

		fprintf(out, "warning: thread #%d's trace buffer wrapped (%s written into %s): the "
			"oldest history is lost; 'thread trace start -s <size>' keeps more\n",
			(int)dbg_thread_index(d, l[i].tid), written_text(l[i].written, l[i].size, b1, sizeof(b1)),
			size_format(l[i].size, b2, sizeof(b2)));
	}
	free(l);
}

void cmd_trace_loss_loaded(FILE *out, unsigned index, const struct trace_swc_thread *th)
{
	unsigned long long w, sz;
	char b1[80], b2[64];

	if (!cmd_trace_wrapped(th, &w, &sz))
		return;
	fprintf(out, "warning: thread #%u's trace buffer wrapped (%s written into %s): the "
		"oldest history is lost\n", index, written_text(w, sz, b1, sizeof(b1)),
		size_format(sz, b2, sizeof(b2)));
}

void cmd_trace_kept_note(FILE *out, struct dbg *d)
{
	int n;

	if (!dbg_trace_kept(d) || (n = dbg_trace_count(d)) <= 0)
		return;
	fprintf(out, "The trace of %d thread%s stays readable until the next run "
		"(thread trace dump, trace save).\n", n, n == 1 ? "" : "s");
}
