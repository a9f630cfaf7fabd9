/* cmd/cmd-trace-items.c: how trace items read, shared by the dump and
 * info commands: LLDB's event names, errors, timestamps (nanoseconds since
 * tracing started, interpolated between the trace's timing points, as LLDB
 * shows them), and dump info's Timestamps, Events and Errors sections. */
#include "cmd/cmd-trace.h"
#include "core/tracing/cursor.h"
#include "core/tracing/trace_info.h"

#include <json-c/json.h>

#include <inttypes.h>
#include <string.h>

/* ---- timestamps ---- */

void cmd_trace_clock_init(struct cmd_trace_clock *c, struct dbg *d, struct trace_decoded *dec)
{
	uint64_t ev[DBG_EV_NKINDS], lo = 0, hi = 0;
	int have = 0;

	struct dbg_tsc_figures f;

	c->dec = dec;
	c->d = d;
	c->conv = dbg_tsc_known(d, &f);
	c->has_start = c->conv && f.has_start;
	c->base_ns = 0;
	if (!c->conv)
		return;
	if (f.has_start) {
		c->base_ns = dbg_tsc_to_ns(d, f.start_tsc);
		return;
	}
	dbg_decoded_summary(dec, ev, DBG_EV_NKINDS, &lo, &hi, &have);
	if (have)
		c->base_ns = dbg_tsc_to_ns(d, lo);
}

static double rel_ns(const struct cmd_trace_clock *c, uint64_t tsc)
{
	return (double)(int64_t)(dbg_tsc_to_ns(c->d, tsc) - c->base_ns);
}

/* The time of item index: 0 if the trace has none there; else 1 with the
 * TSC in force (*tsc) and, when converted, *ns since the base, interpolated
 * linearly between the timing points around the item. */
static int clock_at(const struct cmd_trace_clock *c, uint64_t index, double *ns, uint64_t *tsc)
{
	struct dbg_time_span s;

	dbg_decoded_time_span(c->dec, index, &s);
	if (!s.has_lo)
		return 0;
	*tsc = s.lo_tsc;
	if (!c->conv)
		return 1;
	*ns = rel_ns(c, s.lo_tsc);
	if (s.has_hi && s.hi_index > s.lo_index) {
		double hi = rel_ns(c, s.hi_tsc);

		if (hi > *ns)
			*ns += (hi - *ns) * (double)(index - s.lo_index) /
			       (double)(s.hi_index - s.lo_index);
	}
	return 1;
}

/* LLDB's "[19691630.226 ns]" or "[unavailable]"; without a conversion the
 * raw counter in a form that cannot be mistaken for it: "[tsc=N]". */
const char *cmd_trace_clock_text(const struct cmd_trace_clock *c, uint64_t index, char *buf,
				 size_t n)
{
	double ns = 0;
	uint64_t tsc;

	if (!clock_at(c, index, &ns, &tsc))
		snprintf(buf, n, "[unavailable]");
	else if (c->conv)
		snprintf(buf, n, "[%.3f ns]", ns);
	else
		snprintf(buf, n, "[tsc=%" PRIu64 "]", tsc);
	return buf;
}

/* "timestamp_ns" (LLDB: a decimal string, null when unknown) with -t, and
 * ptdb's "tsc" (the counter in force) whenever known. */
void cmd_trace_clock_json(const struct cmd_trace_clock *c, uint64_t index, int times,
			  struct json_object *o)
{
	double ns = 0;
	uint64_t tsc;
	int have = clock_at(c, index, &ns, &tsc);

	if (times) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%.3f", ns);
		json_object_object_add(o, "timestamp_ns", have && c->conv ? json_object_new_string(buf) : NULL);
	}
	if (have)
		json_object_object_add(o, "tsc", json_object_new_uint64(tsc));
}

/* The same members as text, for a streamed item: ',"timestamp_ns":...'
 * and ',"tsc":N' as json-c writes them plainly (buf of 96 bytes). */
size_t cmd_trace_clock_json_text(const struct cmd_trace_clock *c, uint64_t index, int times,
				 char *buf, size_t n)
{
	double ns = 0;
	uint64_t tsc;
	int have = clock_at(c, index, &ns, &tsc);
	size_t k = 0;

	if (times) {
		if (have && c->conv)
			k += (size_t)snprintf(buf + k, n - k, ",\"timestamp_ns\":\"%.3f\"", ns);
		else
			k += (size_t)snprintf(buf + k, n - k, ",\"timestamp_ns\":null");
	}
	if (have && k < n)
		k += (size_t)snprintf(buf + k, n - k, ",\"tsc\":%" PRIu64, tsc);
	return k < n ? k : n - 1;
}

/* ---- item wording ---- */

int cmd_trace_is_error(const struct dbg_item *it)
{
	return it->kind == DBG_ITEM_GAP ||
	       (it->kind == DBG_ITEM_EVENT && it->event == DBG_EV_OVERFLOW);
}

/* LLDB's names; ptdb's enabled events are named after the disable they
 * end (LLDB has none). */
const char *cmd_trace_event_name(const struct dbg_item *it)
{
	switch (it->event) {
	case DBG_EV_ENABLED:
		return it->hw ? "hardware enabled tracing" : "software enabled tracing";
	case DBG_EV_DISABLED:
		return "hardware disabled tracing";
	case DBG_EV_ASYNC_DISABLED:
		return "software disabled tracing";
	case DBG_EV_TICK:
		return "HW clock tick";
	case DBG_EV_SYNC:
		return "trace synchronization point";
	case DBG_EV_OVERFLOW:
		return "overflow";
	case DBG_EV_CPU:
		return "CPU core changed";
	default:
		return "other trace event";
	}
}

const char *cmd_trace_item_text(const struct dbg_item *it, char *buf, size_t n)
{
	int k;

	if (cmd_trace_is_error(it)) {
		k = snprintf(buf, n, "(error) %s", it->error ? it->error : "decoding error");
		if (it->ip && k >= 0 && (size_t)k < n)
			k += snprintf(buf + k, n - (size_t)k, ": 0x%016" PRIx64, it->ip);
		if (it->kind == DBG_ITEM_GAP && k >= 0 && (size_t)k < n)
			snprintf(buf + k, n - (size_t)k, " (trace offset 0x%" PRIx64 ")", it->offset);
		return buf;
	}
	if (it->event == DBG_EV_TICK)
		snprintf(buf, n, "(event) %s [%" PRIu64 "]", cmd_trace_event_name(it), it->tsc);
	else if (it->event == DBG_EV_SYNC)
		snprintf(buf, n, "(event) %s [offset = 0x%" PRIx64 "]", cmd_trace_event_name(it),
			 it->offset);
	else if (it->event == DBG_EV_CPU)
		snprintf(buf, n, "(event) %s [new CPU=%d]", cmd_trace_event_name(it), it->cpu);
	else if (it->event == DBG_EV_OTHER)
		snprintf(buf, n, "(event) %s [libipt event type %d]", cmd_trace_event_name(it),
			 it->libipt_type);
	else
		snprintf(buf, n, "(event) %s", cmd_trace_event_name(it));
	return buf;
}

/* ---- dump info: timestamps, events, errors ---- */

/* Display order of the event counts: LLDB's kinds first. */
enum { EC_SW_DIS, EC_HW_DIS, EC_SW_EN, EC_HW_EN, EC_TICK, EC_CPU, EC_SYNC, EC_OTHER, EC_N };

static void count_events(struct trace_decoded *dec, uint64_t *c, const char **names)
{
	uint64_t n = dbg_decoded_side_count(dec), index;
	struct dbg_item it;

	memset(c, 0, EC_N * sizeof(*c));
	for (uint64_t k = 0; k < n; k++) {
		int e;

		dbg_decoded_side(dec, k, &index, &it);
		if (it.kind != DBG_ITEM_EVENT || cmd_trace_is_error(&it))
			continue;
		switch (it.event) {
		case DBG_EV_ASYNC_DISABLED: e = EC_SW_DIS; break;
		case DBG_EV_DISABLED: e = EC_HW_DIS; break;
		case DBG_EV_ENABLED: e = it.hw ? EC_HW_EN : EC_SW_EN; break;
		case DBG_EV_TICK: e = EC_TICK; break;
		case DBG_EV_SYNC: e = EC_SYNC; break;
		case DBG_EV_CPU: e = EC_CPU; break;
		default: e = EC_OTHER; break;
		}
		c[e]++;
		names[e] = cmd_trace_event_name(&it);
	}
}

static const char *conv_text(const struct dbg_tsc_figures *c, char *buf, size_t n)
{
	if (c->source == DBG_TSC_CALIBRATED)
		snprintf(buf, n, "calibrated: rdtsc against CLOCK_MONOTONIC, %.3f MHz (%s)",
			 c->hz / 1e6, c->note[0] ? c->note : "no perf conversion");
	else
		snprintf(buf, n, "%s: time_mult %" PRIu32 ", time_shift %u, time_zero %" PRIu64 " (%.3f MHz)",
			 c->source == DBG_TSC_PERF ? "the kernel's perf clock" : "given with the trace",
			 c->mult, c->shift, c->zero, c->hz / 1e6);
	return buf;
}

void cmd_trace_info_sections(struct dbg *d, struct trace_decoded *dec, FILE *out)
{
	uint64_t ec[EC_N], ev[DBG_EV_NKINDS], lo = 0, hi = 0, total = 0, errs = 0;
	const char *names[EC_N] = { 0 }, *texts[16];
	uint64_t counts[16];
	int have = 0, nk;
	char buf[320];

	dbg_decoded_summary(dec, ev, DBG_EV_NKINDS, &lo, &hi, &have);
	fprintf(out, "\n  Timestamps:\n");
	if (!have) {
		fprintf(out, "    none (trace without --tsc)\n");
	} else {
		struct cmd_trace_clock c;
		struct dbg_tsc_figures f;

		fprintf(out, "    TSC: %" PRIu64 " to %" PRIu64 "\n", lo, hi);
		cmd_trace_clock_init(&c, d, dec);
		if (c.conv && dbg_tsc_known(d, &f)) {
			fprintf(out, "    Time: %.3f ns to %.3f ns after %s\n", rel_ns(&c, lo), rel_ns(&c, hi),
				c.has_start ? "tracing started" : "the first timestamp");
			fprintf(out, "    Clock: %" PRIu64 " ns to %" PRIu64 " ns\n",
				dbg_tsc_to_ns(d, lo), dbg_tsc_to_ns(d, hi));
			fprintf(out, "    TSC conversion: %s\n", conv_text(&f, buf, sizeof(buf)));
		} else {
			fprintf(out, "    TSC conversion: none known (times are shown as raw TSC)\n");
		}
	}
	count_events(dec, ec, names);
	for (int k = 0; k < EC_N; k++)
		total += ec[k];
	fprintf(out, "\n  Events:\n    Number of individual events: %" PRIu64 "\n", total);
	for (int k = 0; k < EC_N; k++)
		if (ec[k])
			fprintf(out, "      %s: %" PRIu64 "\n", names[k], ec[k]);
	nk = dbg_decoded_error_kinds(dec, texts, counts, 16);
	for (int k = 0; k < nk; k++)
		errs += counts[k];
	/* LLDB's lines; every error of a decode is libipt's, counted by
	 * kind (LLDB counts them as "other") */
	fprintf(out, "\n  Errors:\n    Number of individual errors: %" PRIu64 "\n", errs);
	fprintf(out, "      Number of fatal errors: 0\n");
	for (int k = 0; k < nk; k++)
		fprintf(out, "      Number of libipt errors of kind [%s]: %" PRIu64 "\n", texts[k], counts[k]);
	fprintf(out, "      Number of other errors: 0\n");
	fprintf(out, "    Number of decoding gaps: %" PRIu64 "\n", dbg_decoded_gap_count(dec));
}

void cmd_trace_info_json(struct dbg *d, struct trace_decoded *dec, struct json_object *stats)
{
	uint64_t ec[EC_N], ev[DBG_EV_NKINDS], lo = 0, hi = 0, total = 0, errs = 0;
	const char *names[EC_N] = { 0 }, *texts[16];
	uint64_t counts[16];
	struct json_object *o, *ind;
	int have = 0, nk;

	count_events(dec, ec, names);
	o = json_object_new_object();
	ind = json_object_new_object();
	for (int k = 0; k < EC_N; k++)
		if (ec[k]) {
			total += ec[k];
			json_object_object_add(ind, names[k], json_object_new_uint64(ec[k]));
		}
	json_object_object_add(o, "totalCount", json_object_new_uint64(total));
	json_object_object_add(o, "individualCounts", ind);
	json_object_object_add(stats, "events", o);
	nk = dbg_decoded_error_kinds(dec, texts, counts, 16);
	o = json_object_new_object();
	ind = json_object_new_object();
	for (int k = 0; k < nk; k++) {
		errs += counts[k];
		json_object_object_add(ind, texts[k], json_object_new_uint64(counts[k]));
	}
	json_object_object_add(o, "totalCount", json_object_new_uint64(errs));
	json_object_object_add(o, "libiptErrors", ind);
	json_object_object_add(o, "fatalErrors", json_object_new_uint64(0));
	json_object_object_add(o, "otherErrors", json_object_new_uint64(0));
	json_object_object_add(stats, "errors", o);
	dbg_decoded_summary(dec, ev, DBG_EV_NKINDS, &lo, &hi, &have);
	if (!have)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "firstTsc", json_object_new_uint64(lo));
	json_object_object_add(o, "lastTsc", json_object_new_uint64(hi));
	struct dbg_tsc_figures f;

	if (dbg_tsc_known(d, &f)) {
		struct json_object *cv = json_object_new_object();
		struct cmd_trace_clock c;

		cmd_trace_clock_init(&c, d, dec);
		json_object_object_add(o, "firstNs", json_object_new_double(rel_ns(&c, lo)));
		json_object_object_add(o, "lastNs", json_object_new_double(rel_ns(&c, hi)));
		json_object_object_add(o, "relativeTo", json_object_new_string(
			c.has_start ? "tracing started" : "the first timestamp"));
		json_object_object_add(cv, "source", json_object_new_string(f.source_name));
		json_object_object_add(cv, "timeMult", json_object_new_uint64(f.mult));
		json_object_object_add(cv, "timeShift", json_object_new_uint64(f.shift));
		json_object_object_add(cv, "timeZero", json_object_new_uint64(f.zero));
		if (f.note[0])
			json_object_object_add(cv, "note", json_object_new_string(f.note));
		json_object_object_add(o, "tscPerfZeroConversion", cv);
	}
	json_object_object_add(stats, "timestamps", o);
}
