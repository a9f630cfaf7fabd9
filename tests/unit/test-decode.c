/* tests/unit/test-decode.c: trace/decode against streams written by
 * trace/ptw for a hand-assembled program at 0x400000 (decode_sim.h): exact
 * instruction sequences, events, decoding from every PSB, ring wrap,
 * corruption gaps, and memory per instruction; time in test-decode-time.c. */
#include "tests/unit/test.h"
#include "tests/unit/decode_sim.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The events of d but ticks and sync points, at most max: how many. */
static int events_of(struct trace_decoded *d, struct trace_item *ev, int max)
{
	struct trace_item it;
	int n = 0;

	for (uint64_t i = 0; i < trace_decoded_item_count(d) && n < max; i++) {
		if (trace_decoded_item(d, i, &it, next_ip, NULL) < 0)
			return -1;
		if (it.kind == TRACE_ITEM_EVENT && it.event != TRACE_EV_TICK &&
		    it.event != TRACE_EV_SYNC)
			ev[n++] = it;
	}
	return n;
}

/* Decodes buf and stores the instruction IPs; returns the decoded. */
static struct trace_decoded *dec_ips(const uint8_t *buf, size_t len, struct trace_image *img,
				     uint64_t **ips, size_t *n)
{
	struct trace_decoded *d = NULL;
	struct trace_item it;
	uint64_t cnt;

	*ips = NULL;
	*n = 0;
	if (decode_both(buf, len, img, &d) < 0)
		return NULL;
	cnt = trace_decoded_item_count(d);
	*ips = malloc((cnt + 1) * sizeof(**ips));
	*n = 0;
	for (uint64_t i = 0; i < cnt; i++) {
		if (trace_decoded_item(d, i, &it, next_ip, NULL) < 0)
			break;
		if (it.kind == TRACE_ITEM_INSN)
			(*ips)[(*n)++] = it.ip;
	}
	return d;
}

static int is_tail(const uint64_t *full, size_t nf, const uint64_t *t, size_t nt)
{
	return nt <= nf && !memcmp(full + (nf - nt), t, nt * sizeof(*t));
}

static int run_exact(unsigned iters, int other_ret, size_t period)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	uint8_t *buf;
	size_t len, n;
	uint64_t *ips;
	int ok;

	sim_init(&s, 1 << 20, period);
	program(&s, iters, other_ret);
	program(&s, iters, !other_ret);
	if (make_image(&img) < 0)
		return 0;
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	d = dec_ips(buf, len, &img, &ips, &n);
	ok = d && n == s.n && !memcmp(ips, s.exp, n * sizeof(*ips)) &&
	     trace_decoded_gap_count(d) == 0 && trace_decoded_insn_count(d) == n;
	if (!ok && d)
		printf("#   decoded %zu insns, expected %zu, gaps %llu\n", n, s.n,
		       (unsigned long long)trace_decoded_gap_count(d));
	trace_decoded_free(d);
	free(ips);
	free(buf);
	free_image(&img);
	sim_free(&s);
	return ok;
}

/* §7.1 d8: after a SYSCALL's TIP.PGD the thread comes back somewhere else
 * (a signal handler at 0x18 that returns to the syscall's NLIP 0x13). */
TEST(decode_syscall_returns_elsewhere)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	uint8_t *buf;
	size_t len, n;
	uint64_t *ips;

	sim_init(&s, 1 << 20, 4096);
	trace_ptw_enable(&s.w, BASE + 0x10);
	I(&s, 0x10); P(&s, 0x11);
	I(&s, 0x11); trace_ptw_syscall(&s.w);
	trace_ptw_enable(&s.w, BASE + 0x18);	/* the handler */
	I(&s, 0x18); P(&s, 0x19);
	I(&s, 0x19); trace_ptw_ret(&s.w, BASE + 0x13); P(&s, 0x13);
	I(&s, 0x13); P(&s, 0x14);
	trace_ptw_disable_async(&s.w, BASE + 0x14);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	d = dec_ips(buf, len, &img, &ips, &n);
	if (d && (n != s.n || memcmp(ips, s.exp, n * sizeof(*ips))))
		printf("#   decoded %zu insns, expected %zu\n", n, s.n);
	CHECK(d && n == s.n && !memcmp(ips, s.exp, n * sizeof(*ips)));
	trace_decoded_free(d);
	free(ips);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

TEST(decode_small_loop)      { CHECK(run_exact(4, 0, 4096)); }
TEST(decode_long_loop)       { CHECK(run_exact(1000, 0, 4096)); }
TEST(decode_ret_other)       { CHECK(run_exact(3, 1, 4096)); }
TEST(decode_psb_64)          { CHECK(run_exact(300, 0, 64)); }

TEST(decode_events)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	struct trace_item ev[32];
	uint8_t *buf;
	size_t len;

	sim_init(&s, 1 << 16, 4096);
	program(&s, 2, 0);
	trace_ptw_enable(&s.w, BASE);
	trace_ptw_disable_async(&s.w, BASE);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	CHECK_INT(decode_both(buf, len, &img, &d), 0);
	CHECK_INT(events_of(d, ev, 32), 8);
#define TSC(k) (ev[k].has_tsc ? ev[k].tsc : 0)
	CHECK_INT(ev[0].event, TRACE_EV_ENABLED);  CHECK_INT(ev[0].ip, BASE); CHECK_INT(TSC(0), 10);
	CHECK_INT(ev[1].event, TRACE_EV_DISABLED); CHECK_INT(TSC(1), 20);
	CHECK_INT(ev[2].event, TRACE_EV_ENABLED);  CHECK_INT(ev[2].ip, BASE + 0x13);
	CHECK_INT(ev[2].resumed, 1);               CHECK_INT(TSC(2), 30);
	CHECK_INT(ev[3].event, TRACE_EV_ASYNC_DISABLED); CHECK_INT(ev[3].ip, BASE + 0x15);
	CHECK_INT(ev[4].event, TRACE_EV_ENABLED);  CHECK_INT(ev[4].resumed, 1);
	CHECK_INT(ev[5].event, TRACE_EV_ASYNC_DISABLED); CHECK_INT(ev[5].ip, BASE + 0x16);
	CHECK_INT(ev[6].event, TRACE_EV_ENABLED);  CHECK_INT(ev[6].resumed, 0);
	CHECK_INT(ev[7].event, TRACE_EV_ASYNC_DISABLED); CHECK_INT(ev[7].ip, BASE);
#undef TSC
	trace_decoded_free(d);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

/* Who disabled tracing: the SYSCALL's disable and the return from it are
 * the hardware's; stops are not. */
TEST(decode_hw_flags)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	struct trace_item ev[32];
	uint8_t *buf;
	size_t len;

	sim_init(&s, 1 << 16, 4096);
	program(&s, 2, 0);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	CHECK_INT(decode_both(buf, len, &img, &d), 0);
	CHECK_INT(events_of(d, ev, 32), 6);
	CHECK_INT(ev[0].event, TRACE_EV_ENABLED);        CHECK_INT(ev[0].hw, 0);	/* start */
	CHECK_INT(ev[1].event, TRACE_EV_DISABLED);       CHECK_INT(ev[1].hw, 1);	/* syscall */
	CHECK_INT(ev[2].event, TRACE_EV_ENABLED);        CHECK_INT(ev[2].hw, 1);	/* its return */
	CHECK_INT(ev[3].event, TRACE_EV_ASYNC_DISABLED); CHECK_INT(ev[3].hw, 0);	/* a stop */
	CHECK_INT(ev[4].event, TRACE_EV_ENABLED);        CHECK_INT(ev[4].hw, 0);	/* resumed */
	CHECK_INT(ev[5].event, TRACE_EV_ASYNC_DISABLED); CHECK_INT(ev[5].hw, 0);
	trace_decoded_free(d);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

static size_t find_psbs(const uint8_t *b, size_t len, size_t *offs, size_t max)
{
	static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	size_t n = 0;

	for (size_t i = 0; i + 16 <= len && n < max; i++)
		if (!memcmp(b + i, psb, 16))
			offs[n++] = i;
	return n;
}

TEST(decode_from_every_psb)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	uint8_t *buf;
	size_t len, n, nt, npsb, offs[4096];
	uint64_t *ips, *t;

	sim_init(&s, 1 << 20, 64);
	for (int k = 0; k < 30; k++)
		program(&s, 60 + k * 7, k & 1);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	d = dec_ips(buf, len, &img, &ips, &n);
	CHECK(d && n == s.n);
	trace_decoded_free(d);
	npsb = find_psbs(buf, len, offs, 4096);
	CHECK(npsb > 20);
	for (size_t i = 0; i < npsb; i++) {
		d = dec_ips(buf + offs[i], len - offs[i], &img, &t, &nt);
		CHECK(d);
		CHECK_INT(trace_decoded_gap_count(d), 0);
		CHECK(is_tail(ips, n, t, nt));
		CHECK(i == 0 || nt < n);
		trace_decoded_free(d);
		free(t);
	}
	free(ips);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

/* One sync item per PSB, decoding through them, with the PSB's offset;
 * the side table agrees with the item walk. */
TEST(decode_sync_points)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	struct trace_item it, si;
	uint8_t *buf;
	size_t len, npsb, offs[4096], nsync = 0;
	uint64_t k = 0, insn = 0, idx;

	sim_init(&s, 1 << 20, 64);
	for (int r = 0; r < 10; r++)
		program(&s, 40 + r, r & 1);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	npsb = find_psbs(buf, len, offs, 4096);
	CHECK(npsb > 20);
	CHECK_INT(decode_both(buf, len, &img, &d), 0);
	CHECK_INT(trace_decoded_gap_count(d), 0);
	for (uint64_t i = 0; i < trace_decoded_item_count(d); i++) {
		CHECK_INT(trace_decoded_item(d, i, &it, next_ip, NULL), 0);
		CHECK_INT(trace_decoded_side_before(d, i), k);
		CHECK_INT(i - k, insn);
		if (it.kind == TRACE_ITEM_INSN) {
			insn++;
			continue;
		}
		CHECK_INT(trace_decoded_side(d, k, &idx, &si), 0);
		CHECK_INT(idx, i);
		CHECK_INT(si.kind, it.kind);
		CHECK_INT(si.event, it.event);
		k++;
		if (it.kind == TRACE_ITEM_EVENT && it.event == TRACE_EV_SYNC) {
			CHECK(nsync < npsb);
			CHECK_INT(it.offset, offs[nsync]);
			nsync++;
		}
	}
	CHECK_INT(k, trace_decoded_side_count(d));
	CHECK_INT(trace_decoded_side(d, k, &idx, &si), -1);
	CHECK_INT(nsync, npsb);
	trace_decoded_free(d);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

static int hook_calls, hook_cancel_at;
static uint64_t hook_last, hook_total;

static int hook_fn(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	if (done < hook_last || done > total)
		hook_last = UINT64_MAX;	/* flags a bad call */
	else
		hook_last = done;
	hook_total = total;
	return ++hook_calls == hook_cancel_at;
}

/* The progress hook sees growing offsets; returning nonzero cancels and
 * nothing is returned. */
TEST(decode_hook_progress_and_cancel)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d = NULL, *ref = NULL;
	struct trace_decode_hook hook = { hook_fn, NULL };
	struct ptdb_err err;
	uint8_t *buf;
	size_t len;

	sim_init(&s, 1 << 20, 4096);
	program(&s, 40000, 0);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	hook_calls = hook_cancel_at = 0;
	hook_last = 0;
	CHECK_INT(trace_decode_hooked(buf, len, &img, &hook, &d, &err), 0);
	CHECK(hook_calls >= 5);
	CHECK(hook_last != UINT64_MAX && hook_last > 0);
	CHECK_INT(hook_total, len);
	CHECK_INT(trace_decode(buf, len, &img, &ref, NULL), 0);
	CHECK_INT(trace_decoded_item_count(d), trace_decoded_item_count(ref));
	trace_decoded_free(d);
	trace_decoded_free(ref);
	d = (struct trace_decoded *)&hook;	/* must be cleared */
	hook_calls = 0;
	hook_cancel_at = 2;
	hook_last = 0;
	CHECK_INT(trace_decode_hooked(buf, len, &img, &hook, &d, &err), TRACE_DECODE_CANCELLED);
	CHECK(d == NULL);
	CHECK_STR(err.msg, "interrupted");
	CHECK_INT(err.code, PTDB_E_CANCELLED);
	CHECK_INT(hook_calls, 2);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

/* Without an image the first block cannot be read: the gap says where. */
TEST(decode_gap_ip_and_error_kinds)
{
	struct sim s;
	struct trace_decoded *d;
	struct trace_item it;
	const char *texts[4];
	uint64_t counts[4], idx;
	uint8_t *buf;
	size_t len;
	int n, found = 0;

	sim_init(&s, 1 << 16, 4096);
	program(&s, 3, 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	CHECK(decoded_same(buf, len, NULL, next_ip, NULL));
	CHECK_INT(trace_decode(buf, len, NULL, &d, NULL), 0);
	CHECK(trace_decoded_gap_count(d) >= 1);
	for (uint64_t k = 0; k < trace_decoded_side_count(d) && !found; k++) {
		CHECK_INT(trace_decoded_side(d, k, &idx, &it), 0);
		if (it.kind == TRACE_ITEM_GAP) {
			found = 1;
			CHECK_INT(it.ip, BASE);
			CHECK(strstr(it.error, "no memory mapped"));
		}
	}
	CHECK(found);
	n = trace_decoded_error_kinds(d, texts, counts, 4);
	CHECK(n >= 1);
	{
		uint64_t sum = 0;

		for (int i = 0; i < n; i++)
			sum += counts[i];
		CHECK_INT(sum, trace_decoded_gap_count(d));
	}
	CHECK_INT(trace_decoded_error_kinds(d, texts, counts, 0), 0);
	trace_decoded_free(d);
	free(buf);
	sim_free(&s);
}

TEST(decode_ring_wrap)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	uint8_t *buf;
	size_t len, n;
	uint64_t *ips;

	sim_init(&s, 4096, 256);
	for (int k = 0; k < 40; k++)
		program(&s, 50 + k, k & 1);
	CHECK(s.ring.wrapped);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	CHECK_INT(len, 4096);
	d = dec_ips(buf, len, &img, &ips, &n);
	CHECK(d);
	CHECK_INT(trace_decoded_gap_count(d), 0);
	CHECK(n > 500 && n < s.n);
	CHECK(is_tail(s.exp, s.n, ips, n));
	trace_decoded_free(d);
	free(ips);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

TEST(decode_corrupt_gap)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	struct trace_item it;
	uint8_t *buf;
	size_t len, n, offs[512], npsb;
	uint64_t *ips, gap = 0, after = 0, last_sync = 0;
	int found = 0, sync_after_gap = 0;
	size_t nsync = 0;

	sim_init(&s, 1 << 16, 64);
	for (int k = 0; k < 30; k++)
		program(&s, 100, 0);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	npsb = find_psbs(buf, len, offs, 512);
	CHECK(npsb > 6);
	buf[offs[3] + 40] = 0x02;     /* extended opcode prefix ... */
	buf[offs[3] + 41] = 0xff;     /* ... with an undefined opcode */
	d = dec_ips(buf, len, &img, &ips, &n);
	CHECK(d);
	CHECK(trace_decoded_gap_count(d) >= 1);
	for (uint64_t i = 0; i < trace_decoded_item_count(d); i++) {
		trace_decoded_item(d, i, &it, next_ip, NULL);
		if (it.kind == TRACE_ITEM_GAP && !found) {
			found = 1;
			gap = i;
			CHECK(it.error && *it.error);
			CHECK(it.offset >= offs[3] && it.offset < offs[5]);
		} else if (found && it.kind == TRACE_ITEM_INSN) {
			after++;
		} else if (it.kind == TRACE_ITEM_EVENT && it.event == TRACE_EV_SYNC) {
			/* sync points are PSBs, in order, the one after the
			 * corruption included */
			size_t k = 0;

			while (k < npsb && offs[k] != it.offset)
				k++;
			CHECK(k < npsb);
			CHECK(!nsync || it.offset > last_sync);
			last_sync = it.offset;
			nsync++;
			if (found)
				sync_after_gap = 1;
		}
	}
	CHECK(nsync > 6 && sync_after_gap);
	CHECK(found && gap > 0);
	CHECK(after > 100);
	CHECK(is_tail(s.exp, s.n, ips + (n - after), after));  /* resumed exactly */
	trace_decoded_free(d);
	free(ips);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

TEST(iterate_backward_and_random)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	struct trace_item a, b;
	uint8_t *buf;
	size_t len, n;
	uint64_t *ips, cnt;

	sim_init(&s, 1 << 16, 256);
	for (int k = 0; k < 4; k++)
		program(&s, 30 + k, k & 1);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	d = dec_ips(buf, len, &img, &ips, &n);
	CHECK(d && n == s.n);
	cnt = trace_decoded_item_count(d);
	CHECK(cnt > n);
	{
		size_t k = n;

		for (uint64_t i = cnt; i-- > 0;) {
			CHECK_INT(trace_decoded_item(d, i, &a, next_ip, NULL), 0);
			if (a.kind == TRACE_ITEM_INSN)
				CHECK_INT(a.ip, ips[--k]);
		}
		CHECK_INT(k, 0);
	}
	srand(7);
	for (int r = 0; r < 2000; r++) {
		uint64_t i = (uint64_t)rand() % cnt, j = (uint64_t)rand() % cnt;

		trace_decoded_item(d, i, &a, next_ip, NULL);
		trace_decoded_item(d, j, &b, next_ip, NULL);
		trace_decoded_item(d, i, &b, next_ip, NULL);
		CHECK_INT(a.kind, b.kind);
		CHECK_INT(a.ip, b.ip);
	}
	CHECK_INT(trace_decoded_item(d, cnt, &a, next_ip, NULL), -1);
	trace_decoded_free(d);
	free(ips);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

TEST(bytes_per_insn_long_loop)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	uint8_t *buf;
	size_t len;
	double bpi;

	sim_init(&s, 1 << 22, 4096);
	program(&s, 2000000, 0);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	CHECK_INT(trace_decode(buf, len, &img, &d, NULL), 0);
	CHECK_INT(trace_decoded_insn_count(d), s.n);
	bpi = (double)trace_decoded_mem_bytes(d) / (double)trace_decoded_insn_count(d);
	printf("# long loop: %llu insns, %llu blocks, %zu trace bytes (%.4f B/insn), "
	       "decoded %zu bytes = %.5f B/insn\n",
	       (unsigned long long)trace_decoded_insn_count(d),
	       (unsigned long long)trace_decoded_block_count(d), len,
	       (double)len / (double)s.n, trace_decoded_mem_bytes(d), bpi);
	CHECK(bpi < 2.0);
	trace_decoded_free(d);
	/* the index holds the counts and a chunk per sync point: a few bytes
	 * per PSB period, nothing per instruction */
	CHECK_INT(trace_decode_indexed(buf, len, &img, 0, NULL, &d, NULL), 0);
	CHECK_INT(trace_decoded_insn_count(d), s.n);
	{
		struct trace_item it;
		uint64_t chunks, decodes;

		CHECK_INT(trace_decoded_item(d, s.n / 2, &it, next_ip, NULL), 0);
		CHECK_INT(trace_decoded_item(d, s.n, &it, next_ip, NULL), 0);
		trace_decoded_chunk_stats(d, &chunks, &decodes);
		printf("# indexed: %llu chunks, %zu bytes held = %.6f B/insn\n",
		       (unsigned long long)chunks, trace_decoded_mem_bytes(d),
		       (double)trace_decoded_mem_bytes(d) / (double)s.n);
		CHECK(chunks > 1 && decodes == 2);
		CHECK(trace_decoded_mem_bytes(d) < len / 8);
	}
	trace_decoded_free(d);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

/* decoded_same's indexing passes on three threads did run on several
 * (segments cut at PSBs where tracing is on), and matched the full store. */
TEST(decode_parallel_index_ran)
{
	int before = same_parallel;

	CHECK(run_exact(300, 0, 64));
	CHECK(run_exact(1000, 1, 256));
	printf("# %d parallel indexing passes\n", same_parallel - before);
	CHECK(same_parallel - before >= 2);
}

TEST(decode_empty_and_no_psb)
{
	struct trace_decoded *d;
	uint8_t junk[64] = { 0 };

	CHECK_INT(trace_decode(junk, 0, NULL, &d, NULL), 0);
	CHECK_INT(trace_decoded_item_count(d), 0);
	trace_decoded_free(d);
	CHECK(decoded_same(junk, 0, NULL, next_ip, NULL));
	CHECK(decoded_same(junk, 48, NULL, next_ip, NULL));
	CHECK_INT(trace_decode(junk, 48, NULL, &d, NULL), 0);
	CHECK_INT(trace_decoded_insn_count(d), 0);
	trace_decoded_free(d);
}

TEST_MAIN(decode_syscall_returns_elsewhere, decode_small_loop, decode_long_loop, decode_ret_other, decode_psb_64, decode_events,
	  decode_hw_flags, decode_sync_points,
	  decode_hook_progress_and_cancel, decode_gap_ip_and_error_kinds,
	  decode_from_every_psb, decode_ring_wrap, decode_corrupt_gap, iterate_backward_and_random,
	  bytes_per_insn_long_loop, decode_empty_and_no_psb, decode_parallel_index_ran)
