/* core/session/dbg.c: the executable and the process of a debugging
 * session (see dbg.h): launch, attach, detach, kill, reading its memory,
 * interrupts, symbolized addresses and concrete frames; its modules live
 * in dbg_module.c, breakpoints in dbg_bp.c, stepping in dbg_step.c. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "trace/swc.h"

#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dbg_alive(const struct dbg *d)
{
	return d->proc && target_is_alive(d->proc);
}

/* path made absolute as lldb-16 makes it: from the working directory,
 * "." and ".." taken away by name, links kept. */
static void lexical_abs(const char *path, char *out, size_t n)
{
	char buf[PATH_MAX * 2], cwd[PATH_MAX];
	size_t len = 0;
	char *save = NULL;

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(buf, sizeof(buf), "%s/%s", cwd, path);
	else
		snprintf(buf, sizeof(buf), "%s", path);
	out[0] = 0;
	for (char *w = strtok_r(buf, "/", &save); w; w = strtok_r(NULL, "/", &save)) {
		if (!strcmp(w, "."))
			continue;
		if (!strcmp(w, "..")) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = 0;
			continue;
		}
		len += (size_t)snprintf(out + len, n > len ? n - len : 0, "/%s", w);
		if (len >= n) {
			snprintf(out, n, "%s", path);
			return;
		}
	}
	if (!out[0])
		snprintf(out, n, "/");
}

/* The executable's file read (shown: its path in the error), or NULL.  A
 * truncated one is refused, as in a bundle: loaded, it would be a module
 * whose code and symbols are partly missing, without a word. */
static struct sym_module *exe_open(struct dbg *d, const char *file, const char *shown,
				   struct ptdb_err *err)
{
	struct sym_module *m = sym_module_open_debug(file, d->debug_dirs, err);

	if (m && sym_module_truncated(m)) {
		sym_module_free(m);
		ptdb_err_set(err, "'%s' is truncated: its loadable segments reach past the end of the file",
			     shown);
		return NULL;
	}
	return m;
}

/* The executable read from file (its path as shown: abs; the name the
 * user gave it: user, or NULL for abs). */
static int set_exe_from(struct dbg *d, const char *file, const char *abs, const char *user_name,
			struct ptdb_err *err)
{
	struct sym_module *m = exe_open(d, file, abs, err);
	char user[PATH_MAX];

	snprintf(user, sizeof(user), "%s", user_name ? user_name : abs);
	if (!m)
		return -1;
	if (strcmp(file, abs)) {
		sym_module_set_name(m, abs);	/* its path, then its short name */
		sym_module_set_display_name(m, abs);
	}
	dbg_drop_process(d);
	dbg_drop_modules(d, 0);
	dbg_unload_bundle(d);
	/* Locations (and so their hits) belonged to the old executable. */
	for (int i = 0; i < d->nbps; i++)
		d->bps[i].nlocs = d->bps[i].hits = 0;
	/* the name the user gave (a symlink's: the program runs as it, as
	 * lldb-16 runs it) */
	if (strcmp(user, abs) && access(user, X_OK) == 0)
		sym_module_set_path(m, user);
	else
		snprintf(user, sizeof(user), "%s", abs);
	free(d->exe_path);
	d->exe_path = xstrdup(user);
	dbg_add_module(d, m, user)->is_exe = 1;
	dbg_resolve_all(d);
	for (int i = 0; i < d->nbps; i++)
		d->bps[i].told = d->bps[i].nlocs;
	return 0;
}

int dbg_set_exe(struct dbg *d, const char *path, struct ptdb_err *err)
{
	char abs[PATH_MAX], user[PATH_MAX];

	if (!realpath(path, abs))
		return ptdb_err_errno(err, "unable to find executable '%s'", path);
	lexical_abs(path, user, sizeof(user));
	return set_exe_from(d, abs, abs, user, err);
}

/* ---- process lifecycle ---- */

static void after_start(struct dbg *d)
{
	struct target_thread_info ti;
	struct {
		int n;
		struct dbg_bp_loc locs[DBG_MAX_LOCS];
	} *old;

	d->pid = target_pid(d->proc);
	target_threads(d->proc, &ti, 1);
	d->sel_tid = ti.tid;
	d->sel_frame = 0;
	d->load_bp = 0;
	/* re-resolved against this process's load addresses; a location at
	 * the same address as before keeps its hit count and enabled state,
	 * so the breakpoint's count stays the sum of its locations' */
	old = xcalloc((size_t)d->nbps + 1, sizeof(*old));
	for (int i = 0; i < d->nbps; i++) {
		old[i].n = d->bps[i].nlocs;
		memcpy(old[i].locs, d->bps[i].locs, sizeof(old[i].locs));
		d->bps[i].nlocs = 0;
	}
	d->maps_sig = 0;
	dbg_refresh_modules(d);
	for (int i = 0; i < d->nbps; i++) {
		struct dbg_bp *bp = &d->bps[i];

		bp->hits = 0;
		for (int k = 0; k < bp->nlocs; k++) {
			for (int j = 0; j < old[i].n; j++)
				if (old[i].locs[j].addr == bp->locs[k].addr) {
					bp->locs[k].hits = old[i].locs[j].hits;
					if (!old[i].locs[j].enabled)
						dbg_bp_enable(d, bp, k + 1, 0, NULL);
				}
			bp->hits += bp->locs[k].hits;
		}
	}
	free(old);
}

/* 1 if the executable's file is not the one read (rebuilt, replaced). */
static int exe_changed(struct dbg *d)
{
	struct stat now, read;

	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];

		if (!m->is_exe || !m->sym)
			continue;
		if (stat(d->exe_path, &now) < 0 || fstat(sym_module_fd(m->sym), &read) < 0)
			return 0;	/* gone: the launch says so */
		return now.st_dev != read.st_dev || now.st_ino != read.st_ino ||
		       now.st_size != read.st_size || now.st_mtim.tv_sec != read.st_mtim.tv_sec ||
		       now.st_mtim.tv_nsec != read.st_mtim.tv_nsec;
	}
	return 0;
}

/* The executable read again (its path kept: argv[0] may be it); the
 * breakpoints resolve against it at the launch. */
static int reread_exe(struct dbg *d, struct ptdb_err *err)
{
	struct sym_module *m = exe_open(d, d->exe_path, d->exe_path, err);

	if (!m)
		return -1;
	dbg_drop_modules(d, 0);
	dbg_add_module(d, m, d->exe_path)->is_exe = 1;
	d->exe_reread++;
	return 0;
}

int dbg_launch(struct dbg *d, char *const *argv, int disable_aslr,
	       struct ptdb_err *err)
{
	return dbg_launch_io(d, argv, disable_aslr, NULL, err);
}

int dbg_launch_io(struct dbg *d, char *const *argv, int disable_aslr,
		  const int *fds, struct ptdb_err *err)
{
	struct target_launch_opts o = { 0 };

	dbg_plans_clear(d);

	if (!d->exe_path)
		return ptdb_err_set(err, "no executable; use 'file' to set one");
	if (dbg_source(d)->loaded)
		return ptdb_err_set(err, "a loaded trace cannot run; use 'file' to choose the program to launch");
	if (dbg_alive(d))
		return ptdb_err_set(err, "a process is already being debugged");
	dbg_drop_process(d);
	/* rebuilt since it was read: read again, as gdb and lldb do (no
	 * location of the old file is planted into the new code) */
	if (exe_changed(d) && reread_exe(d, err) < 0)
		return -1;
	dbg_drop_modules(d, 1);
	o.path = d->exe_path;
	o.argv = argv;
	o.disable_aslr = disable_aslr;
	if (fds) {
		o.stdio = 1;
		memcpy(o.fds, fds, sizeof(o.fds));
	}
	if (target_launch(&o, &d->proc, err) < 0) {
		d->proc = NULL;
		return -1;
	}
	after_start(d);
	return 0;
}

int dbg_attach(struct dbg *d, pid_t pid, struct ptdb_err *err)
{
	char exe[64], abs[PATH_MAX];
	ssize_t len;

	if (dbg_alive(d))
		return ptdb_err_set(err, "a process is already being debugged");
	dbg_unload_bundle(d);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	len = readlink(exe, abs, sizeof(abs) - 1);
	dbg_drop_process(d);
	if (target_attach(pid, &d->proc, err) < 0) {
		d->proc = NULL;
		return -1;
	}
	if (len > 0) {
		int deleted;

		abs[len] = 0;
		/* a program deleted since it started: read through the
		 * process's own link to it, shown by its path */
		deleted = dbg_path_undelete(abs);
		if (!d->exe_path || strcmp(d->exe_path, abs) || deleted) {
			struct ptdb_err e2;
			struct target_proc *keep = d->proc;

			d->proc = NULL;
			if ((deleted ? set_exe_from(d, exe, abs, NULL, &e2) : dbg_set_exe(d, abs, &e2)) < 0)
				dbg_drop_modules(d, 0);
			d->proc = keep;
		} else {
			dbg_drop_modules(d, 1);
		}
	}
	after_start(d);
	memset(&d->last, 0, sizeof(d->last));
	d->last.reason = DBG_R_INTERRUPT;
	d->last.tid = d->sel_tid;
	return 0;
}

void dbg_park(struct dbg *d)
{
	if (dbg_alive(d))
		target_park(d->proc);
}

int dbg_detach(struct dbg *d, struct ptdb_err *err)
{
	dbg_replay_leave(d);
	if (!dbg_alive(d))
		return ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched.");
	/* the trace ends while the process is still ours: the collector's
	 * breakpoints and the cache engine's mappings leave with it (after
	 * the detach nothing could take them out) */
	dbg_trace_end(d);
	for (int i = 0; i < d->nbps; i++)
		for (int k = 0; k < d->bps[i].nlocs; k++)
			if (d->bps[i].locs[k].planted) {
				target_bp_remove(d->proc, d->bps[i].locs[k].addr, err);
				d->bps[i].locs[k].planted = 0;
			}
	d->maps_sig = 0;
	if (d->load_bp)
		target_bp_remove(d->proc, d->load_bp, err);
	d->load_bp = 0;
	if (target_detach(d->proc, err) < 0)
		return -1;
	dbg_drop_process(d);
	return 0;
}

int dbg_kill(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err)
{
	dbg_replay_leave(d);
	if (!dbg_alive(d))
		return ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched.");
	dbg_trace_end(d);
	target_kill(d->proc);
	memset(stop, 0, sizeof(*stop));
	stop->reason = DBG_R_EXITED;
	stop->signaled = 1;
	stop->signo = SIGKILL;
	d->last = *stop;
	return 0;
}

int dbg_select_thread(struct dbg *d, pid_t tid)
{
	if (!dbg_source(d)->selectable(d, tid))
		return -1;
	if (d->sel_tid != tid)
		d->sel_frame = 0;
	d->sel_tid = tid;
	return 0;
}

/* The modules' files (one segment at a time): a loaded trace's memory, and
 * the code of a process killed while stopped (its trace is still dumped). */
static size_t files_read(struct dbg *d, uint64_t addr, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		uint64_t a = addr + got;
		size_t k = 0;

		for (int i = 0; i < d->nmods && !k; i++)
			if (d->mods[i].sym && a >= d->mods[i].start && a < d->mods[i].end)
				k = sym_module_read(d->mods[i].sym, a, (uint8_t *)buf + got, n - got);
		if (!k)
			break;
		got += k;
	}
	return got;
}

size_t dbg_read_some(struct dbg *d, uint64_t addr, void *buf, size_t n)
{
	size_t got = 0;

	if (dbg_source(d)->files_only(d))
		return files_read(d, addr, buf, n);
	if (!dbg_alive(d))
		return 0;
	if (target_read_mem(d->proc, addr, buf, n, NULL) == 0)
		return n;
	if (!target_alive_now(d->proc))
		return files_read(d, addr, buf, n);
	while (got < n) {	/* page by page up to the first unreadable one */
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);

		if (chunk > n - got)
			chunk = n - got;
		if (target_read_mem(d->proc, a, (uint8_t *)buf + got, chunk, NULL) < 0)
			break;
		got += chunk;
	}
	return got;
}

int dbg_read(struct dbg *d, uint64_t addr, void *buf, size_t n,
	     struct ptdb_err *err)
{
	if (dbg_source(d)->files_only(d)) {
		if (dbg_read_some(d, addr, buf, n) == n)
			return 0;
		return ptdb_err_set(err, dbg_source(d)->files_error, addr);
	}
	if (!dbg_alive(d))
		return ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched.");
	if (target_read_mem(d->proc, addr, buf, n, err) == 0)
		return 0;
	if (!target_alive_now(d->proc) && files_read(d, addr, buf, n) == n)
		return 0;
	return -1;
}

void dbg_request_interrupt(struct dbg *d, int from_tty)
{
	int own_sigint = from_tty && d->proc && target_was_launched(d->proc);

	if (d->busy) {
		d->interrupt_requested = 1;	/* polled */
		return;
	}
	if (!d->running) {
		/* about to resume: the resume sees the flag before it waits
		 * (a launched inferior has the terminal's SIGINT queued, which
		 * stops it; a SIGSTOP besides would stop it a second time) */
		if (d->interrupt_armed && !own_sigint)
			d->interrupt_requested = 1;
		return;	/* at the prompt nothing runs: a stray SIGSTOP would linger */
	}
	d->interrupt_requested = 1;
	if (d->proc && !own_sigint)
		target_interrupt(d->proc);
}

void dbg_interrupt_arm(struct dbg *d)
{
	if (d->interrupt_armed)
		return;
	d->interrupt_requested = 0;
	d->interrupt_armed = 1;
}

void dbg_interrupt_disarm(struct dbg *d)
{
	d->interrupt_armed = 0;
}

/* ---- symbolization and frames ---- */

char *dbg_format_addr(struct dbg *d, uint64_t addr, char *buf, size_t n)
{
	struct dbg_module *m = dbg_module_for(d, addr);

	if (!m)
		snprintf(buf, n, "0x%016" PRIx64, addr);
	else
		sym_format_loc(m->sym, addr, buf, n);
	return buf;
}

char *dbg_format_frame(struct dbg *d, const struct dbg_frame *f, int caller,
		       char *buf, size_t n)
{
	uint64_t look = caller && f->pc ? f->pc - 1 : f->pc;
	struct dbg_module *m = f->mod ? f->mod : dbg_module_for(d, f->pc);
	struct sym_loc loc;
	const char *base;

	if (!m) {
		snprintf(buf, n, "0x%016" PRIx64, f->pc);
		return buf;
	}
	if (f->look)
		look = f->look;
	if (sym_lookup_addr(m->sym, look, &loc) < 0 || !loc.func) {
		snprintf(buf, n, "%s`0x%" PRIx64, sym_module_name(m->sym), f->pc);
		return buf;
	}
	if (f->ninl && f->look)
		return dbg_format_inlined(m, f, &loc, buf, n);
	if (!loc.file || !loc.line) {
		if (f->pc == loc.func_addr)	/* LLDB: no "+ 0" */
			snprintf(buf, n, "%s`%s", sym_module_name(m->sym), loc.func);
		else
			snprintf(buf, n, "%s`%s + %" PRIu64, sym_module_name(m->sym), loc.func,
				 f->pc - loc.func_addr);
		return buf;
	}
	base = strrchr(loc.file, '/');
	base = base ? base + 1 : loc.file;
	if (loc.column)
		snprintf(buf, n, "%s`%s at %s:%u:%u", sym_module_name(m->sym), loc.func,
			 base, loc.line, loc.column);
	else
		snprintf(buf, n, "%s`%s at %s:%u", sym_module_name(m->sym), loc.func,
			 base, loc.line);
	return buf;
}

int dbg_addr_line(struct dbg *d, uint64_t addr, const char **file,
		  unsigned *line, unsigned *column)
{
	struct dbg_module *m = dbg_module_for(d, addr);
	struct sym_loc loc;

	if (!m || sym_lookup_addr(m->sym, addr, &loc) < 0 || !loc.file || !loc.line)
		return -1;
	*file = loc.file;
	*line = loc.line;
	*column = loc.column;
	return 0;
}

int dbg_frames_concrete(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
			struct ptdb_err *err)
{
	struct user_regs_struct r;
	int n = 0;

	if (!dbg_alive(d))
		return ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched.");
	if (target_get_regs(d->proc, tid, &r, err) < 0)
		return -1;
	memset(out, 0, sizeof(*out) * (size_t)(max > 0 ? max : 0));
	out[0].pc = r.rip;
	out[0].rsp = r.rsp;
	out[0].rbp = r.rbp;
	out[0].mod = dbg_module_for(d, r.rip);
	n = 1;
	while (n < max) {
		struct dbg_frame *f = &out[n - 1];
		uint64_t pc, sp, bp;
		/* caller frames unwind from the call instruction, except the
		 * frame a signal interrupted (its pc had not run yet) */
		uint64_t look = n > 1 && !f->trap ? f->pc - 1 : f->pc;
		struct sym_loc loc;

		if (dbg_unwind_step(d, f->pc, look, f->rsp, f->rbp, n == 1, &pc, &sp, &bp) < 0)
			break;
		if (!pc || sp <= f->rsp)
			break;
		out[n].pc = pc;
		out[n].rsp = sp;
		out[n].rbp = bp;
		/* the signal trampoline (the handler "returns" to its first
		 * byte) and the frame the signal interrupted are looked up at
		 * their pc, not as return addresses */
		out[n].mod = dbg_module_for(d, pc);
		out[n].sigtramp = out[n].mod && sym_lookup_addr(out[n].mod->sym, pc, &loc) == 0 &&
				  loc.func && !strcmp(loc.func, "__restore_rt");
		out[n].trap = out[n].sigtramp || f->sigtramp;
		if (!out[n].trap)
			out[n].mod = dbg_module_for(d, pc - 1);
		n++;
		/* stop after the entry point's frame */
		if (out[n - 1].mod) {
			struct sym_loc loc;

			if (sym_lookup_addr(out[n - 1].mod->sym, pc - 1, &loc) == 0 &&
			    loc.func && !strcmp(loc.func, "_start"))
				break;
		}
	}
	return n;
}

int dbg_insn_at(struct dbg *d, uint64_t pc, struct disasm_insn *in)
{
	uint8_t buf[16];
	struct disasm *ds = dbg_disasm(d);
	size_t n = sizeof(buf);

	if (dbg_source(d)->files_only(d))
		n = dbg_read_some(d, pc, buf, n);
	else if (target_read_mem(d->proc, pc, buf, n, NULL) < 0)
		n = dbg_read_some(d, pc, buf, n);	/* up to a page end; files when gone */
	if (!ds || !n || disasm_insn(ds, buf, n, pc, in, NULL) < 0)
		return -1;
	return 0;
}

int dbg_signal_stop(struct dbg *d, const struct target_stop *ts, struct dbg_stop *stop)
{
	int known = ts->signo > 0 && ts->signo < 65;

	if (known && !d->sig[ts->signo].pass)
		target_set_pending_signal(d->proc, ts->tid, 0);
	if (!known || d->sig[ts->signo].stop) {
		stop->reason = DBG_R_SIGNAL;
		stop->tid = ts->tid;
		stop->signo = ts->signo;
		stop->si_code = ts->si_code;
		stop->addr = ts->addr;
		return 1;
	}
	dbg_note_signal(d, ts->tid, ts->signo);
	return 0;
}

int dbg_end_stop(struct dbg *d, const struct target_stop *ts, struct dbg_stop *stop)
{
	switch (ts->kind) {
	case TARGET_STOP_EXITED:
	case TARGET_STOP_SIGNALED:
		dbg_exit_stop(stop, ts);
		return 1;
	case TARGET_STOP_EXEC:
		stop->reason = DBG_R_EXEC;
		return 1;
	case TARGET_STOP_INTERRUPT:
		if (!d->interrupt_requested)
			return 0;
		stop->reason = DBG_R_INTERRUPT;
		return 1;
	default:
		return 0;
	}
}

struct disasm *dbg_disasm(struct dbg *d)
{
	struct ptdb_err err;

	if (!d->dis)
		d->dis = disasm_new(&err);
	return d->dis;
}

void dbg_note_signal(struct dbg *d, pid_t tid, int signo)
{
	if (signo <= 0 || signo >= 65 || !d->sig[signo].notify)
		return;
	if (d->nnotes == (int)(sizeof(d->notes) / sizeof(d->notes[0]))) {
		d->notes_lost++;
		return;
	}
	d->notes[d->nnotes].tid = tid;
	d->notes[d->nnotes].index = d->proc ? target_thread_index(d->proc, tid) : 0;
	d->notes[d->nnotes++].signo = signo;
}
