/* trace/ipt.h: the intel-pt (hardware) backend.  Pure logic here (ipt.c):
 * the intel_pt PMU's sysfs description (type, format bits, caps) read
 * from an injectable root, the perf_event_attr of each event, sizes and
 * locked-memory limits, the online-CPU list, /proc/cpuinfo, the error
 * texts.  The kernel-facing part (perf_event_open, mmap, ioctl) is
 * ipt_perf.c and nothing else touches the kernel. */
#ifndef PTDB_TRACE_IPT_H
#define PTDB_TRACE_IPT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "base/err.h"
#include "trace/tsc.h"

#define TRACE_IPT_SYSFS "/sys/bus/event_source/devices/intel_pt"
#define TRACE_IPT_CPU_ONLINE "/sys/devices/system/cpu/online"
#define TRACE_IPT_MLOCK_KB "/proc/sys/kernel/perf_event_mlock_kb"
#define TRACE_IPT_PARANOID "/proc/sys/kernel/perf_event_paranoid"
/* The context-switch event's data ring (perf data pages, not aux): 32 KiB
 * holds about a second of switches at one every half millisecond (32-byte
 * records, in and out). */
#define TRACE_IPT_SWITCH_BYTES (32u << 10)

/* How the rings are mapped, which sets the kernel's mode for each
 * (perf_mmap): a ring mapped without PROT_WRITE is in overwrite mode — the
 * kernel keeps the newest data and never looks at the reader's tail; one
 * mapped with PROT_WRITE stops at the tail and drops (and counts) what does
 * not fit.  tests/unit/perf_model.h plays the kernel by these. */
#define TRACE_IPT_AUX_WRITABLE 0
#define TRACE_IPT_DATA_WRITABLE 0

/* A PMU format field: bits lo..hi of config (word 0), config1 or config2. */
struct trace_ipt_field {
	int valid;
	int word;
	int lo, hi;
};

struct trace_ipt_pmu {
	uint32_t type;
	struct trace_ipt_field tsc;		/* format/tsc */
	struct trace_ipt_field psb_period;	/* format/psb_period */
	int psb_cyc;				/* caps/psb_cyc (configurable PSB period) */
	uint32_t psb_periods;			/* caps/psb_periods: bit N = 2^(N+11) bytes */
};

/* What the user asked for (cmd/ options). */
struct trace_ipt_opts {
	uint64_t perf_config;	/* --perf-config, passed through */
	int tsc;		/* --tsc (forced on per CPU) */
	size_t psb_period;	/* --psb-period bytes, 0: the CPU's default */
};

/* "config:10", "config:24-27", "config1:0-31" (a trailing newline is
 * fine).  -1 on anything else. */
int trace_ipt_format_parse(const char *text, struct trace_ipt_field *f);
/* Puts v into the field's bits of cfg[word]; -1 (err says so, naming
 * what) when v does not fit or the field is unknown. */
int trace_ipt_field_set(uint64_t cfg[3], const struct trace_ipt_field *f, uint64_t v,
			const char *what, struct ptdb_err *err);

/* Reads root/type, root/format/{tsc,psb_period} and root/caps/{psb_cyc,
 * psb_periods} (root NULL: TRACE_IPT_SYSFS).  Without the type file:
 * "Intel PT is not available on this machine: cannot read <root>/type
 * (<strerror>). Use --backend software."  Missing format or caps files
 * leave the field invalid / 0 (checked when an option needs them). */
int trace_ipt_pmu_read(struct trace_ipt_pmu *p, const char *root, struct ptdb_err *err);

/* --psb-period bytes to the exponent N the PMU takes (bytes = 2^(N+11)),
 * checked against caps: -1 with a message when the period is not a power
 * of two, or the CPU cannot configure PSB periods or not that one. */
int trace_ipt_psb_exponent(const struct trace_ipt_pmu *p, size_t bytes, unsigned *n,
			   struct ptdb_err *err);

/* The intel_pt event: user space only, created disabled, config from
 * --perf-config with the tsc and psb_period bits set from the options
 * (per_cpu forces TSC on, which the split needs). */
int trace_ipt_attr_pt(struct perf_event_attr *a, const struct trace_ipt_pmu *p,
		      const struct trace_ipt_opts *o, int per_cpu, struct ptdb_err *err);
/* The per-CPU context-switch event (software dummy, context_switch,
 * PERF_SAMPLE_TID | PERF_SAMPLE_TIME, sample_id_all), created disabled. */
void trace_ipt_attr_switch(struct perf_event_attr *a);

/* A CPU list as in /sys/devices/system/cpu/online ("0-3,6,8-9\n"):
 * *cpus heap, ascending as written.  -1 when malformed or empty. */
int trace_ipt_cpulist_parse(const char *s, int **cpus, int *n, struct ptdb_err *err);
/* Reads and parses path (NULL: TRACE_IPT_CPU_ONLINE). */
int trace_ipt_cpus_online(const char *path, int **cpus, int *n, struct ptdb_err *err);

/* The first processor of /proc/cpuinfo: vendor_id, cpu family, model,
 * stepping (what libipt's errata need). */
struct trace_ipt_cpuinfo {
	char vendor[32];
	int family, model, stepping;
};
int trace_ipt_cpuinfo_parse(const char *text, struct trace_ipt_cpuinfo *ci, struct ptdb_err *err);
int trace_ipt_cpuinfo_read(const char *path, struct trace_ipt_cpuinfo *ci, struct ptdb_err *err);

/* The aux buffer for a requested size: trace_ring_round_size() bytes
 * (a power-of-two number of pages, at least one); *pages set.  -1 when
 * too large or not a multiple of page. */
int trace_ipt_aux_size(size_t bytes, size_t page, size_t *size, size_t *pages,
		       struct ptdb_err *err);

/* Locked-memory limits an unprivileged perf mmap counts against (the
 * kernel's perf_mmap: perf_event_mlock_kb per online CPU, then
 * RLIMIT_MEMLOCK). */
struct trace_ipt_limits {
	uint64_t mlock_kb;	/* /proc/sys/kernel/perf_event_mlock_kb */
	int has_mlock;
	uint64_t memlock;	/* RLIMIT_MEMLOCK soft limit, bytes */
	int memlock_infinite;
	int ncpus;		/* online CPUs */
	int privileged;		/* CAP_IPC_LOCK or paranoid -1: no limit applies */
};
/* Reads path (NULL: TRACE_IPT_MLOCK_KB) into l->mlock_kb. */
int trace_ipt_mlock_read(const char *path, struct trace_ipt_limits *l, struct ptdb_err *err);
/* Every buffer of bytes (nbuf of them, each mapped with one metadata
 * page and data_pages data pages) must fit what the limits allow; the
 * message names perf_event_mlock_kb and RLIMIT_MEMLOCK. */
int trace_ipt_check_mlock(const struct trace_ipt_limits *l, size_t bytes, size_t page,
			  size_t data_pages, unsigned nbuf, struct ptdb_err *err);
/* The process trace size limit (0: none) counts every buffer: nbuf of
 * bytes each, for thread tid (its wording) or per CPU (tid 0). */
int trace_ipt_check_total(size_t bytes, unsigned nbuf, size_t limit, pid_t tid,
			  struct ptdb_err *err);

/* err for a failed perf_event_open/mmap of what (errno e): EACCES and
 * EPERM add the perf_event_paranoid advice.  Returns -1. */
int trace_ipt_open_error(struct ptdb_err *err, const char *what, int e);

/* Bytes [tail, head) of a perf data ring (size a power of two) appended
 * in order to *buf (xrealloc'd; *len of *cap).  -1 when records were
 * lost (head - tail > size) or size is not a power of two. */
int trace_ipt_data_take(const uint8_t *ring, size_t size, uint64_t tail, uint64_t head,
			uint8_t **buf, size_t *len, size_t *cap, struct ptdb_err *err);

/* The records of a data ring written backward (attr.write_backward) in
 * overwrite mode: data_head counts down from 0 and the records from it on
 * lie newest first.  Those written since prev (data_head at the last read)
 * are appended to *buf oldest first.  When more than size bytes came, the
 * oldest are gone (and the oldest in the ring may be cut): *lost grows by
 * one for them, and by the count of any PERF_RECORD_LOST.  -1 when a
 * record is malformed or size is not a power of two. */
int trace_ipt_data_take_backward(const uint8_t *ring, size_t size, uint64_t prev, uint64_t head,
				 uint8_t **buf, size_t *len, size_t *cap, uint64_t *lost,
				 struct ptdb_err *err);

/* Whether locked-memory limits bind this process, as the kernel's
 * perf_mmap decides: not with CAP_IPC_LOCK (bit 14 of CapEff in
 * /proc/self/status text) or perf_event_paranoid -1 (the file's text;
 * NULL when unreadable).  1: exempt. */
int trace_ipt_mlock_exempt(const char *status, const char *paranoid);

/* The cgroup v2 path of a process from /proc/PID/cgroup text ("0::/a/b"):
 * into path (len bytes).  -1 when there is no v2 entry. */
int trace_ipt_cgroup_parse(const char *text, char *path, size_t len);

/* ---- the kernel-facing part (ipt_perf.c) ---- */

/* One perf event and its mappings. */
struct trace_ipt_event {
	int fd;
	void *base;		/* metadata page + data pages */
	size_t base_len;
	size_t data_size;	/* data ring bytes (0: none) */
	void *aux;		/* aux ring (read-only: overwrite mode) */
	size_t aux_size;
	int enabled;
	uint64_t data_tail;	/* consumed up to here */
	uint64_t data_lost;	/* records the kernel dropped or overwrote unread */
	int backward;		/* attr.write_backward: data_head counts down */
	int aux_wrapped;	/* the last aux read found the buffer had wrapped */
};

/* perf_event_open(a, pid, cpu, group_fd, flags) and mmap of one
 * metadata page, data_pages data pages and aux_pages aux pages (either
 * may be 0).  Errors name what and add the paranoid advice. */
int trace_ipt_event_open(struct trace_ipt_event *e, struct perf_event_attr *a, pid_t pid,
			 int cpu, int group_fd, unsigned long flags, size_t data_pages,
			 size_t aux_pages, const char *what, struct ptdb_err *err);
void trace_ipt_event_close(struct trace_ipt_event *e);
int trace_ipt_event_enable(struct trace_ipt_event *e, struct ptdb_err *err);
int trace_ipt_event_disable(struct trace_ipt_event *e, struct ptdb_err *err);
/* The aux buffer in chronological order (heap, TRACE_RING_SLACK zero
 * bytes after *len): disables the event (the CPU flushes its buffers),
 * copies from aux_head, restores the previous state. */
int trace_ipt_event_read_aux(struct trace_ipt_event *e, uint8_t **buf, size_t *len,
			     struct ptdb_err *err);
/* Appends the data ring's new records to *buf and frees their room. */
int trace_ipt_event_read_data(struct trace_ipt_event *e, uint8_t **buf, size_t *len,
			      size_t *cap, struct ptdb_err *err);
/* The TSC conversion the event's page publishes (cap_user_time_zero). */
int trace_ipt_event_tsc(const struct trace_ipt_event *e, struct trace_tsc_conv *c,
			struct ptdb_err *err);
/* RLIMIT_MEMLOCK, the mlock file, the online CPUs, euid 0. */
int trace_ipt_limits_get(struct trace_ipt_limits *l, struct ptdb_err *err);
/* An fd of the process's cgroup v2 directory (for PERF_FLAG_PID_CGROUP),
 * or -1 when there is none (cgroup v1, no cgroupfs). */
int trace_ipt_cgroup_open(pid_t pid);

#endif
