/* tests/unit/test-trace-items.c: cmd's wording of trace items on a small
 * hand-written trace: LLDB's event names, timestamps interpolated between
 * timing points (LLDB's "[N.NNN ns]", "[tsc=N]" without a conversion,
 * "[unavailable]" before any), their JSON, and dump info's sections. */
#include "tests/unit/test.h"
#include "cmd/cmd-trace.h"
#include "core/tracing/items_int.h"
#include "trace/decode.h"
#include "trace/ptw.h"
#include "trace/ring.h"
#include "trace/tsc.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <unistd.h>

#define BASE 0x400000ull

static uint8_t nops[16] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
static char path[64];

static uint64_t next_ip(void *ctx, uint64_t ip)
{
	(void)ctx;
	return ip + 1;
}

/* Four nops between an enable at TSC 1000 and a stop at TSC 2000: items
 * 0 sync, 1 tick 1000, 2 enabled, 3..6 the nops, 7 tick 2000, 8 disabled. */
static struct trace_decoded *decoded(void)
{
	struct trace_ring ring;
	struct trace_ptw w;
	struct trace_ptw_config c = { 4096, 1 };
	struct trace_image img;
	struct trace_decoded *d = NULL;
	uint8_t *buf;
	size_t len;
	int fd;

	snprintf(path, sizeof(path), "/tmp/ptdb-test-items-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, nops, sizeof(nops)) != (ssize_t)sizeof(nops))
		return NULL;
	close(fd);
	trace_ring_init(&ring, 1 << 16, NULL);
	trace_ptw_init(&w, &ring, &c, NULL);
	trace_ptw_set_time(&w, 1000);
	trace_ptw_enable(&w, BASE);
	trace_ptw_set_time(&w, 2000);
	trace_ptw_disable_async(&w, BASE + 4);
	trace_ring_snapshot(&ring, &buf, &len, NULL);
	if (trace_image_init(&img, NULL) == 0 &&
	    trace_image_add_file(&img, path, 0, sizeof(nops), BASE, NULL) == 0)
		trace_decode(buf, len, &img, &d, NULL);
	trace_image_release(&img);
	free(buf);
	trace_ptw_release(&w);
	trace_ring_release(&ring);
	unlink(path);
	return d;
}

/* 1 GHz (ns = tsc), times relative to TSC 500. */
static void conv_1ghz(struct dbg *d)
{
	static struct trace_tsc_conv conv;

	memset(d, 0, sizeof(*d));
	memset(&conv, 0, sizeof(conv));
	d->tr.tsc_conv = &conv;
	trace_tsc_from_freq(d->tr.tsc_conv, 1000000000ull, 0, 0);
	d->tr.tsc_conv->start_tsc = 500;
	d->tr.tsc_conv->has_start = 1;
}

/* The cmd/ wording of a trace/ item (cmd/ reads core's items). */
static int is_error(const struct trace_item *it)
{
	struct dbg_item di;

	dbg_item_from(&di, it);
	return cmd_trace_is_error(&di);
}

static const char *event_name(const struct trace_item *it)
{
	struct dbg_item di;

	dbg_item_from(&di, it);
	return cmd_trace_event_name(&di);
}

static const char *item_text(const struct trace_item *it, char *buf, size_t n)
{
	struct dbg_item di;

	dbg_item_from(&di, it);
	return cmd_trace_item_text(&di, buf, n);
}

TEST(items_and_event_names)
{
	struct trace_decoded *dec = decoded();
	struct trace_item it;
	/* the PSB+'s time before its sync point, as LLDB lists them */
	static const char *const names[] = { "HW clock tick", "trace synchronization point",
		"software enabled tracing", NULL, NULL, NULL, NULL, "HW clock tick",
		"software disabled tracing" };

	CHECK(dec);
	CHECK_INT(trace_decoded_item_count(dec), 9);
	for (uint64_t i = 0; i < 9; i++) {
		CHECK_INT(trace_decoded_item(dec, i, &it, next_ip, NULL), 0);
		if (!names[i]) {
			CHECK_INT(it.kind, TRACE_ITEM_INSN);
			CHECK_INT(it.ip, BASE + i - 3);
			continue;
		}
		CHECK_INT(it.kind, TRACE_ITEM_EVENT);
		CHECK(!is_error(&it));
		CHECK_STR(event_name(&it), names[i]);
	}
	trace_decoded_free(dec);
}

TEST(clock_interpolates)
{
	struct trace_decoded *dec = decoded();
	struct cmd_trace_clock c;
	struct dbg d;
	char buf[64];
	static const char *const want[] = { "[500.000 ns]", "[500.000 ns]", "[500.000 ns]",
		"[700.000 ns]", "[900.000 ns]", "[1100.000 ns]", "[1300.000 ns]", "[1500.000 ns]",
		"[1500.000 ns]" };

	CHECK(dec);
	conv_1ghz(&d);
	cmd_trace_clock_init(&c, &d, dec);
	for (uint64_t i = 0; i < 9; i++)
		CHECK_STR(cmd_trace_clock_text(&c, i, buf, sizeof(buf)), want[i]);
	/* without a start, relative to the first timestamp */
	d.tr.tsc_conv->has_start = 0;
	cmd_trace_clock_init(&c, &d, dec);
	CHECK_STR(cmd_trace_clock_text(&c, 3, buf, sizeof(buf)), "[200.000 ns]");
	/* without a conversion: the counter in force, not interpolated */
	d.tr.tsc_conv->valid = 0;
	cmd_trace_clock_init(&c, &d, dec);
	CHECK_STR(cmd_trace_clock_text(&c, 5, buf, sizeof(buf)), "[tsc=1000]");
	CHECK_STR(cmd_trace_clock_text(&c, 8, buf, sizeof(buf)), "[tsc=2000]");
	CHECK_STR(cmd_trace_clock_text(&c, 0, buf, sizeof(buf)), "[tsc=1000]");
	trace_decoded_free(dec);
}

TEST(clock_json)
{
	struct trace_decoded *dec = decoded();
	struct cmd_trace_clock c;
	struct json_object *o = json_object_new_object();
	struct dbg d;

	CHECK(dec);
	conv_1ghz(&d);
	cmd_trace_clock_init(&c, &d, dec);
	cmd_trace_clock_json(&c, 4, 1, o);
	CHECK_STR(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		  "{\"timestamp_ns\":\"900.000\",\"tsc\":1000}");
	json_object_put(o);
	o = json_object_new_object();
	cmd_trace_clock_json(&c, 0, 1, o);		/* the first tick: the PSB+'s time */
	CHECK_STR(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		  "{\"timestamp_ns\":\"500.000\",\"tsc\":1000}");
	json_object_put(o);
	o = json_object_new_object();
	cmd_trace_clock_json(&c, 4, 0, o);		/* no -t: just the counter */
	CHECK_STR(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "{\"tsc\":1000}");
	json_object_put(o);
	trace_decoded_free(dec);
}

TEST(info_sections)
{
	struct trace_decoded *dec = decoded();
	struct dbg d;
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	CHECK(dec && f);
	conv_1ghz(&d);
	cmd_trace_info_sections(&d, dec, f);
	fclose(f);
	CHECK(strstr(text, "    TSC: 1000 to 2000\n"));
	CHECK(strstr(text, "    Time: 500.000 ns to 1500.000 ns after tracing started\n"));
	CHECK(strstr(text, "    Clock: 1000 ns to 2000 ns\n"));
	CHECK(strstr(text, "    TSC conversion: given with the trace: time_mult 2147483648, "
			   "time_shift 31, time_zero 0 (1000.000 MHz)\n"));
	CHECK(strstr(text, "  Events:\n    Number of individual events: 5\n"
			   "      software disabled tracing: 1\n      software enabled tracing: 1\n"
			   "      HW clock tick: 2\n      trace synchronization point: 1\n"));
	CHECK(strstr(text, "  Errors:\n    Number of individual errors: 0\n"));
	free(text);
	trace_decoded_free(dec);
}

TEST(item_texts)
{
	struct trace_decoded *dec = decoded();
	struct trace_item it;
	struct ptdb_err err;
	uint8_t *buf;
	size_t len;
	char t[256], got[256];

	CHECK(dec);
	trace_decoded_item(dec, 0, &it, next_ip, NULL);
	CHECK_STR(item_text(&it, t, sizeof(t)), "(event) HW clock tick [1000]");
	trace_decoded_item(dec, 1, &it, next_ip, NULL);
	CHECK_STR(item_text(&it, t, sizeof(t)), "(event) trace synchronization point [offset = 0x0]");
	trace_decoded_item(dec, 7, &it, next_ip, NULL);
	CHECK_STR(item_text(&it, t, sizeof(t)), "(event) HW clock tick [2000]");
	trace_decoded_item(dec, 8, &it, next_ip, NULL);
	CHECK_STR(item_text(&it, t, sizeof(t)), "(event) software disabled tracing");
	memset(&it, 0, sizeof(it));
	it.kind = TRACE_ITEM_EVENT;
	it.event = TRACE_EV_CPU;
	it.cpu = 51;
	CHECK_STR(item_text(&it, t, sizeof(t)), "(event) CPU core changed [new CPU=51]");
	trace_decoded_free(dec);
	/* the same trace without its code: a gap where the code is missing */
	{
		struct trace_ring ring;
		struct trace_ptw w;
		struct trace_ptw_config c = { 4096, 0 };

		trace_ring_init(&ring, 1 << 16, NULL);
		trace_ptw_init(&w, &ring, &c, NULL);
		trace_ptw_enable(&w, BASE);
		trace_ptw_disable_async(&w, BASE + 4);
		trace_ring_snapshot(&ring, &buf, &len, NULL);
		trace_ptw_release(&w);
		trace_ring_release(&ring);
	}
	CHECK_INT(trace_decode(buf, len, NULL, &dec, &err), 0);
	free(buf);
	CHECK_INT(trace_decoded_gap_count(dec), 1);
	for (uint64_t i = 0; i < trace_decoded_item_count(dec); i++) {
		trace_decoded_item(dec, i, &it, next_ip, NULL);
		if (it.kind != TRACE_ITEM_GAP)
			continue;
		CHECK(is_error(&it));
		snprintf(t, sizeof(t), "(error) no memory mapped at this address: 0x0000000000400000 "
			 "(trace offset 0x%llx)", (unsigned long long)it.offset);
		CHECK_STR(item_text(&it, got, sizeof(got)), t);
	}
	trace_decoded_free(dec);
}

TEST_MAIN(item_texts, items_and_event_names, clock_interpolates, clock_json, info_sections)
