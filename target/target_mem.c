/* target/target_mem.c: inferior memory access (/proc/PID/mem with a
 * PTRACE_PEEKDATA/POKEDATA fallback) and int3 software breakpoints with
 * original-byte bookkeeping; reads mask planted breakpoints. */
#include "target/target_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

struct target_bp *target_find_bp(const struct target_proc *p, uint64_t addr)
{
	for (int i = 0; i < p->nbps; i++)
		if (p->bps[i].addr == addr)
			return &p->bps[i];
	return NULL;
}

int target_bp_planted(const struct target_proc *p, uint64_t addr)
{
	struct target_bp *b = target_find_bp(p, addr);

	return b && !(p->stepover_active && p->stepover_addr == addr);
}

void target_park(struct target_proc *p)
{
	if (!p || !p->alive || p->running || p->parked)
		return;
	/* a SIGTRAP an int3 left queued would kill the process if ptdb
	 * died: taken now (queued as the breakpoint stop it is) */
	target_take_queued_traps(p, 0);
	if (!p->alive)
		return;
	for (int i = 0; i < p->nbps; i++)
		if (target_bp_planted(p, p->bps[i].addr))
			target_raw_write(p, p->bps[i].addr, &p->bps[i].orig, 1);
	p->parked = 1;
}

void target_unpark(struct target_proc *p)
{
	static const unsigned char cc = 0xCC;

	if (!p || !p->parked)
		return;
	p->parked = 0;
	for (int i = 0; i < p->nbps; i++) {
		struct target_bp *b = &p->bps[i];

		if (target_raw_read(p, b->addr, &b->orig, 1) < 0)
			continue;
		if (target_bp_planted(p, b->addr))
			target_raw_write(p, b->addr, &cc, 1);
	}
}

static pid_t mem_tid(const struct target_proc *p)
{
	for (int i = 0; i < p->nthreads; i++)
		if (p->threads[i].stopped)
			return p->threads[i].tid;
	return p->pid;
}

/* The bytes of [addr, addr + n) that /proc/PID/mem (fd) reads into rbuf,
 * or writes from wbuf (rbuf NULL), before its first failure: how many. */
static size_t memfd_io(int fd, uint64_t addr, void *rbuf, const void *wbuf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		off_t at = (off_t)(addr + done);
		ssize_t r = rbuf ? pread(fd, (unsigned char *)rbuf + done, n - done, at)
				 : pwrite(fd, (const unsigned char *)wbuf + done, n - done, at);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			break;
		}
		done += (size_t)r;
	}
	return done;
}

/* target_raw_read (into rbuf) or target_raw_write (from wbuf, rbuf
 * NULL): through /proc/PID/mem, the rest a word at a time with ptrace. */
static int raw_io(struct target_proc *p, uint64_t addr, void *rbuf, const void *wbuf, size_t n)
{
	unsigned char *out = rbuf;
	const unsigned char *in = wbuf;
	size_t done = 0;
	pid_t tid;

	if (p->memfd >= 0 && (done = memfd_io(p->memfd, addr, rbuf, wbuf, n)) == n)
		return 0;
	tid = mem_tid(p);
	while (done < n) {
		uint64_t a = addr + done, base = a & ~7ull;
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, tid, (void *)base, 0);
		if (errno)
			return -1;
		for (size_t k = a - base; k < 8 && done < n; k++, done++)
			if (out)
				out[done] = ((unsigned char *)&w)[k];
			else
				((unsigned char *)&w)[k] = in[done];
		if (!out && ptrace(PTRACE_POKEDATA, tid, (void *)base, (void *)w) < 0)
			return -1;
	}
	return 0;
}

int target_raw_read(struct target_proc *p, uint64_t addr, void *buf, size_t n)
{
	return raw_io(p, addr, buf, NULL, n);
}

int target_raw_write(struct target_proc *p, uint64_t addr, const void *buf, size_t n)
{
	return raw_io(p, addr, NULL, buf, n);
}

int target_read_mem(struct target_proc *p, uint64_t addr, void *buf, size_t n,
		    struct ptdb_err *err)
{
	unsigned char *out = buf;

	if (!p->alive)
		return target_nproc_err(p, err);
	if (n == 0)
		return 0;
	if (target_raw_read(p, addr, buf, n) < 0)
		return ptdb_err_set(err, "memory read failed for 0x%llx",
				    (unsigned long long)addr);
	for (int i = 0; i < p->nbps; i++) {
		uint64_t a = p->bps[i].addr;

		if (a >= addr && a - addr < n &&
		    target_bp_planted(p, a) && !p->parked)
			out[a - addr] = p->bps[i].orig;
	}
	return 0;
}

int target_write_mem(struct target_proc *p, uint64_t addr, const void *buf,
		     size_t n, struct ptdb_err *err)
{
	unsigned char *tmp;
	int rc;

	if (!p->alive)
		return target_nproc_err(p, err);
	if (n == 0)
		return 0;
	tmp = xmalloc(n);
	memcpy(tmp, buf, n);
	for (int i = 0; i < p->nbps; i++) {
		uint64_t a = p->bps[i].addr;

		if (a >= addr && a - addr < n && target_bp_planted(p, a) && !p->parked) {
			p->bps[i].orig = tmp[a - addr];
			tmp[a - addr] = 0xCC;
		}
	}
	rc = target_raw_write(p, addr, tmp, n);
	free(tmp);
	if (rc < 0)
		return ptdb_err_set(err, "memory write failed for 0x%llx",
				    (unsigned long long)addr);
	return 0;
}

int target_bp_insert(struct target_proc *p, uint64_t addr,
		     struct ptdb_err *err)
{
	struct target_bp *b;
	unsigned char orig, cc = 0xCC;

	if (!p->alive)
		return target_nproc_err(p, err);
	b = target_find_bp(p, addr);
	if (b) {
		b->refs++;
		return 0;
	}
	if (target_raw_read(p, addr, &orig, 1) < 0 ||
	    (!p->parked && target_raw_write(p, addr, &cc, 1) < 0))
		return ptdb_err_set(err, "failed to set breakpoint at 0x%llx: "
				    "memory not accessible",
				    (unsigned long long)addr);
	if (p->nbps == p->bpcap) {
		p->bpcap = p->bpcap ? p->bpcap * 2 : 16;
		p->bps = xrealloc(p->bps, p->bpcap * sizeof(*p->bps));
	}
	b = &p->bps[p->nbps++];
	b->addr = addr;
	b->orig = orig;
	b->refs = 1;
	return 0;
}

int target_bp_remove(struct target_proc *p, uint64_t addr,
		     struct ptdb_err *err)
{
	struct target_bp *b;
	int rc = 0;

	if (!p->alive)
		return target_nproc_err(p, err);
	b = target_find_bp(p, addr);
	if (!b)
		return ptdb_err_set(err, "no breakpoint at 0x%llx",
				    (unsigned long long)addr);
	if (--b->refs > 0)
		return 0;
	if (p->stepover_active && p->stepover_addr == addr)
		p->stepover_active = 0; /* already lifted; keep it lifted */
	else if (!p->parked && target_raw_write(p, addr, &b->orig, 1) < 0)
		rc = ptdb_err_set(err, "failed to remove breakpoint at 0x%llx",
				  (unsigned long long)addr);
	p->gone[p->ngone++ % TARGET_GONE] = addr;
	*b = p->bps[--p->nbps];
	return rc;
}

int target_bp_lift(struct target_proc *p, uint64_t addr, int lift)
{
	static const unsigned char cc = 0xCC;
	struct target_bp *b = target_find_bp(p, addr);

	if (!p->alive || p->parked || !b || !target_bp_planted(p, addr))
		return 0;
	return target_raw_write(p, addr, lift ? &b->orig : &cc, 1) < 0 ? -1 : 0;
}

int target_bp_refs(const struct target_proc *p, uint64_t addr)
{
	struct target_bp *b = target_find_bp(p, addr);

	return b ? b->refs : 0;
}

int target_bp_gone(const struct target_proc *p, uint64_t addr)
{
	unsigned n = p->ngone < TARGET_GONE ? p->ngone : TARGET_GONE;

	for (unsigned i = 0; i < n; i++)
		if (p->gone[i] == addr)
			return 1;
	return 0;
}

void target_unplant_all(struct target_proc *p)
{
	for (int i = 0; i < p->nbps; i++)
		if (target_bp_planted(p, p->bps[i].addr) && !p->parked)
			target_raw_write(p, p->bps[i].addr, &p->bps[i].orig, 1);
	p->nbps = 0;
	p->parked = 0;
	p->stepover_active = 0;
}
