/* trace/ipt_perf.c: the intel-pt backend's kernel-facing layer, kept thin:
 * perf_event_open, the mmap of the metadata page, data ring and aux ring,
 * the enable/disable ioctls, and the few process facts (RLIMIT_MEMLOCK,
 * euid, cgroup directory) the pure logic in ipt.c decides with. */
#include "trace/ipt.h"
#include "trace/ring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <unistd.h>

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

int trace_ipt_event_open(struct trace_ipt_event *e, struct perf_event_attr *a, pid_t pid,
			 int cpu, int group_fd, unsigned long flags, size_t data_pages,
			 size_t aux_pages, const char *what, struct ptdb_err *err)
{
	size_t pg = page_size();
	struct perf_event_mmap_page *mp;

	memset(e, 0, sizeof(*e));
	e->fd = -1;
	e->fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, group_fd,
			     flags | PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0)
		return trace_ipt_open_error(err, what, errno);
	e->base_len = (1 + data_pages) * pg;
	/* the aux ring's offset is set in the metadata page: writable then */
	e->base = mmap(NULL, e->base_len, PROT_READ | (aux_pages || TRACE_IPT_DATA_WRITABLE ? PROT_WRITE : 0),
		       MAP_SHARED, e->fd, 0);
	if (e->base == MAP_FAILED) {
		int x = errno;
		char w[256];

		snprintf(w, sizeof(w), "%s: mmap of the %zu KiB perf buffer (locked memory: %s, "
			 "RLIMIT_MEMLOCK)", what, e->base_len >> 10, TRACE_IPT_MLOCK_KB);
		e->base = NULL;
		trace_ipt_event_close(e);
		return trace_ipt_open_error(err, w, x);
	}
	e->data_size = data_pages * pg;
	e->enabled = !a->disabled;
	e->backward = a->write_backward;
	if (!aux_pages)
		return 0;
	mp = e->base;
	mp->aux_offset = e->base_len;
	mp->aux_size = aux_pages * pg;
	e->aux = mmap(NULL, mp->aux_size, PROT_READ | (TRACE_IPT_AUX_WRITABLE ? PROT_WRITE : 0),
		      MAP_SHARED, e->fd, (off_t)mp->aux_offset);
	if (e->aux == MAP_FAILED) {
		int x = errno;
		char w[256];

		e->aux = NULL;
		trace_ipt_event_close(e);
		snprintf(w, sizeof(w), "%s: mmap of the %zu KiB aux buffer (locked memory: "
			 "%s, RLIMIT_MEMLOCK)", what, aux_pages * pg >> 10, TRACE_IPT_MLOCK_KB);
		return trace_ipt_open_error(err, w, x);
	}
	e->aux_size = aux_pages * pg;
	return 0;
}

void trace_ipt_event_close(struct trace_ipt_event *e)
{
	if (e->aux)
		munmap(e->aux, e->aux_size);
	if (e->base)
		munmap(e->base, e->base_len);
	if (e->fd >= 0)
		close(e->fd);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

int trace_ipt_event_enable(struct trace_ipt_event *e, struct ptdb_err *err)
{
	if (e->enabled)
		return 0;
	if (ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return ptdb_err_errno(err, "PERF_EVENT_IOC_ENABLE");
	e->enabled = 1;
	return 0;
}

int trace_ipt_event_disable(struct trace_ipt_event *e, struct ptdb_err *err)
{
	if (!e->enabled)
		return 0;
	if (ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0) < 0)
		return ptdb_err_errno(err, "PERF_EVENT_IOC_DISABLE");
	e->enabled = 0;
	return 0;
}

int trace_ipt_event_read_aux(struct trace_ipt_event *e, uint8_t **buf, size_t *len,
			     struct ptdb_err *err)
{
	int was = e->enabled;
	struct perf_event_mmap_page *mp = e->base;
	uint64_t head;
	long n;
	uint8_t *b;

	if (!e->aux)
		return ptdb_err_set(err, "the event has no aux buffer");
	/* disabling makes the CPU flush its internal buffers to the aux ring */
	if (trace_ipt_event_disable(e, err) < 0)
		return -1;
	head = __atomic_load_n(&mp->aux_head, __ATOMIC_ACQUIRE);
	b = xmalloc(e->aux_size + TRACE_RING_SLACK);
	/* overwrite mode: aux_head is an offset in the buffer (see ring.h) */
	n = TRACE_IPT_AUX_WRITABLE ? trace_cyclic_copy(e->aux, e->aux_size, head, b)
				   : trace_aux_copy_overwrite(e->aux, e->aux_size, head, b);
	if (n < 0) {
		free(b);
		return ptdb_err_set(err, "aux buffer of %zu bytes is not a power of two", e->aux_size);
	}
	memset(b + n, 0, TRACE_RING_SLACK);
	e->aux_wrapped = TRACE_IPT_AUX_WRITABLE ? head > e->aux_size
						: trace_aux_overwrite_wrapped(e->aux, e->aux_size, head);
	*buf = b;
	*len = (size_t)n;
	if (was && trace_ipt_event_enable(e, err) < 0)
		return -1;
	return 0;
}

int trace_ipt_event_read_data(struct trace_ipt_event *e, uint8_t **buf, size_t *len,
			      size_t *cap, struct ptdb_err *err)
{
	struct perf_event_mmap_page *mp = e->base;
	uint64_t head;
	int r;

	if (!e->data_size)
		return ptdb_err_set(err, "the event has no data ring");
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	if (e->backward) {
		/* read-only (overwrite mode): the kernel ignores data_tail;
		 * e->data_tail keeps data_head of the last read, where the
		 * new records end */
		r = trace_ipt_data_take_backward((const uint8_t *)e->base + page_size(), e->data_size,
						 e->data_tail, head, buf, len, cap, &e->data_lost, err);
		e->data_tail = head;
		return r;
	}
	r = trace_ipt_data_take((const uint8_t *)e->base + page_size(), e->data_size, e->data_tail,
				head, buf, len, cap, err);
	/* consumed (or, when lost, skipped): the kernel may reuse the room
	 * (a read-only ring cannot be told, nor does the kernel look) */
	e->data_tail = head;
	if (TRACE_IPT_DATA_WRITABLE)
		__atomic_store_n(&mp->data_tail, e->data_tail, __ATOMIC_RELEASE);
	return r;
}

int trace_ipt_event_tsc(const struct trace_ipt_event *e, struct trace_tsc_conv *c,
			struct ptdb_err *err)
{
	char why[160];

	if (trace_tsc_from_perf_page(c, e->base, why, sizeof(why)) < 0)
		return ptdb_err_set(err, "no TSC conversion from the perf page: %s", why);
	return 0;
}

/* CAP_IPC_LOCK or perf_event_paranoid -1: perf_mmap's limits do not bind */
static int mlock_exempt(void)
{
	char status[8192], par[32];
	const char *files[2] = { "/proc/self/status", TRACE_IPT_PARANOID };
	char *bufs[2] = { status, par };
	size_t lens[2] = { sizeof(status), sizeof(par) };
	int ok[2];

	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");
		size_t got = 0;

		ok[i] = f != NULL;
		if (f) {
			got = fread(bufs[i], 1, lens[i] - 1, f);
			fclose(f);
		}
		bufs[i][got] = 0;
	}
	return trace_ipt_mlock_exempt(ok[0] ? status : NULL, ok[1] ? par : NULL);
}

int trace_ipt_limits_get(struct trace_ipt_limits *l, struct ptdb_err *err)
{
	struct rlimit rl;
	int *cpus, n;

	memset(l, 0, sizeof(*l));
	l->privileged = mlock_exempt();
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		l->memlock_infinite = rl.rlim_cur == RLIM_INFINITY;
		l->memlock = l->memlock_infinite ? 0 : (uint64_t)rl.rlim_cur;
	}
	if (trace_ipt_cpus_online(NULL, &cpus, &n, NULL) == 0) {
		l->ncpus = n;
		free(cpus);
	}
	/* without the file the kernel's own check decides (and its EPERM
	 * names the limits) */
	trace_ipt_mlock_read(NULL, l, err);
	return 0;
}

int trace_ipt_cgroup_open(pid_t pid)
{
	char path[4096], rel[3800], text[8192];
	FILE *f;
	size_t got;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	got = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[got] = 0;
	if (trace_ipt_cgroup_parse(text, rel, sizeof(rel)) < 0)
		return -1;
	/* the v2 hierarchy: /sys/fs/cgroup, or .../unified on hybrid
	 * systems (a v1 directory is not what PERF_FLAG_PID_CGROUP takes) */
	for (int i = 0; i < 2; i++) {
		struct statfs sf;
		int fd;

		snprintf(path, sizeof(path), "/sys/fs/cgroup%s%s", i ? "/unified" : "", rel);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstatfs(fd, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
			return fd;
		close(fd);
	}
	return -1;
}
