/* tests/unit/test-debugreg.c: the x86 debug registers of target/
 * (target_debugreg.c): DR7's encoding, DR0-DR3/DR7 programmed on every
 * thread including those created afterwards (read back with
 * PTRACE_PEEKUSER), errors, and the trap probe. */
#include "target/target.h"
#include "tests/unit/test.h"

#include <stdio.h>
#include <stdlib.h>

#define THREADS "tests/programs/tgt_threads"

TEST(dr7_encoding)
{
	struct target_dr_slot s[4] = {
		{ 1, 0x1000, 4, 1 },	/* write, 4 bytes: L0, R/W0 01, LEN0 11 */
		{ 1, 0x2000, 8, 3 },	/* read/write, 8 bytes: L1, R/W1 11, LEN1 10 */
		{ 0, 0x3000, 2, 1 },	/* disabled: nothing */
		{ 1, 0x4001, 1, 1 },	/* write, 1 byte: L3, R/W3 01, LEN3 00 */
	};
	struct target_dr_slot none[4] = { { 0, 0, 0, 0 } };
	struct target_dr_slot two[4] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 1, 0x10, 2, 3 } };

	CHECK_INT(target_dr7_encode(s), 0x1 | 0x10000 | 0xc0000 | 0x4 | 0x300000 | 0x800000 |
				       0x40 | 0x10000000);
	CHECK_INT(target_dr7_encode(none), 0);
	/* slot 2, 2 bytes, read/write: L2 (bit 4), R/W2 11 (24-25), LEN2 01 (26-27) */
	CHECK_INT(target_dr7_encode(two), 0x10 | 0x3000000 | 0x4000000);
}

/* Set at the exec stop (one thread); the two workers created later get
 * the registers at their first stop. */
TEST(every_thread_including_new)
{
	struct target_launch_opts o = { .path = THREADS, .disable_aslr = 1 };
	struct target_proc *p = NULL;
	struct target_thread_info ti[8];
	struct target_stop st;
	struct ptdb_err err;
	/* code nobody writes: the watch never fires, wherever traps arrive */
	uint64_t addr = test_nm(THREADS, "hit_me");
	struct target_dr_slot s[4] = { { 1, addr, 1, 1 } };
	uint64_t v;
	int n;

	CHECK(addr);
	CHECK_INT(target_launch(&o, &p, &err), 0);
	CHECK_INT(target_dr_set(p, s, &err), 0);
	CHECK_INT(target_dr_get(p, target_pid(p), 0, &v, &err), 0);
	CHECK_INT(v, addr);
	CHECK_INT(target_bp_insert(p, test_nm(THREADS, "threads_ready"), &err), 0);
	CHECK_INT(target_resume(p, &err), 0);
	CHECK_INT(target_wait(p, &st, &err), 0);
	CHECK_INT(st.kind, TARGET_STOP_BREAKPOINT);
	n = target_threads(p, ti, 8);
	CHECK_INT(n, 3);
	for (int i = 0; i < n; i++) {
		CHECK_INT(target_dr_get(p, ti[i].tid, 0, &v, &err), 0);
		CHECK_INT(v, addr);
		CHECK_INT(target_dr_get(p, ti[i].tid, 7, &v, &err), 0);
		CHECK_INT(v & 0xffff000f, target_dr7_encode(s));
	}
	/* cleared everywhere */
	memset(s, 0, sizeof(s));
	CHECK_INT(target_dr_set(p, s, &err), 0);
	for (int i = 0; i < n; i++) {
		CHECK_INT(target_dr_get(p, ti[i].tid, 7, &v, &err), 0);
		CHECK_INT(v & 0xffff000f, 0);
	}
	CHECK_INT(target_resume(p, &err), 0);
	CHECK_INT(target_wait(p, &st, &err), 0);
	CHECK_INT(st.kind, TARGET_STOP_EXITED);
	CHECK_INT(target_dr_set(p, s, &err), -1);
	target_free(p);
}

TEST(probe_runs)
{
	int r = target_dr_probe();

	printf("# debug-register traps %s on this machine\n",
	       r == 1 ? "are delivered" : r == 0 ? "are not delivered" : "could not be probed");
	CHECK(r == 0 || r == 1);
}

TEST_MAIN(dr7_encoding, every_thread_including_new, probe_runs)
