/* cmd/report.c: stop, thread and frame reports in LLDB's layout. */
#include "cmd/trace-loss.h"
#include "cmd/report.h"
#include "cmd/dis-comment.h"
#include "cmd/tty-relay.h"
#include "core/session/session.h"
#include "core/symbols/source.h"
#include "core/tracing/trace_info.h"
#include "core/data/value.h"
#include "core/session/watch.h"
#include "disasm/disasm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *report_reason(struct dbg *d, pid_t tid, char *buf, size_t n)
{
	const struct dbg_stop *s = &d->last;

	buf[0] = 0;
	if (s->reason == DBG_R_BREAKPOINT && dbg_bp_stop_of(d, tid)) {
		/* every location there, as lldb-16 ("breakpoint 1.1 2.1"),
		 * in each thread whose hit came with the stop */
		snprintf(buf, n, "breakpoint %s", dbg_bp_stop_of(d, tid)->where);
		return buf;
	}
	if (s->tid != tid)
		return buf;
	switch (s->reason) {
	case DBG_R_BREAKPOINT:
		snprintf(buf, n, "breakpoint %u.%u", s->bp_id, s->loc_id);
		break;
	case DBG_R_STEP_OVER:
		snprintf(buf, n, "step over");
		break;
	case DBG_R_UNTIL:
		snprintf(buf, n, "step until");
		break;
	case DBG_R_STEP_IN:
		snprintf(buf, n, "step in");
		break;
	case DBG_R_STEP_OUT:
		snprintf(buf, n, "step out");
		break;
	case DBG_R_ISTEP:
		snprintf(buf, n, "instruction step into");
		break;
	case DBG_R_ISTEP_OVER:
		snprintf(buf, n, "instruction step over");
		break;
	case DBG_R_SIGNAL: {
		const char *name = target_signal_name(s->signo);
		const char *desc = target_signal_description(s->signo, s->si_code);

		if (name && strcmp(name, desc))
			snprintf(buf, n, "signal %s: %s", name, desc);
		else if (name)
			snprintf(buf, n, "signal %s", name);
		else
			snprintf(buf, n, "signal %d", s->signo);
		break;
	}
	case DBG_R_INTERRUPT:
		snprintf(buf, n, "signal SIGSTOP");
		break;
	case DBG_R_EXEC:
		snprintf(buf, n, s->trace_ended ? "exec (tracing ended: the traced program was replaced)" : "exec");
		break;
	case DBG_R_TRACE_LIMIT:
		snprintf(buf, n, "Thread %d can't be traced as the process trace size limit has "
			 "been reached. Consider retracing with a higher limit.", (int)s->tid);
		break;
	case DBG_R_WATCH:
		snprintf(buf, n, "watchpoint %u", s->bp_id);
		break;
	case DBG_R_REPLAY: {
		int k = snprintf(buf, n, "replaying: instruction %" PRIu64 " of %" PRIu64,
				 s->replay_id, s->replay_total);

		if (k > 0 && (size_t)k < n && s->bp_id)
			k += snprintf(buf + k, n - (size_t)k, ", breakpoint %u.%u", s->bp_id, s->loc_id);
		if (k > 0 && (size_t)k < n && s->replay_edge == 1)
			k += snprintf(buf + k, n - (size_t)k, " (no more reverse-execution history: the trace begins here)");
		else if (k > 0 && (size_t)k < n && s->replay_edge == 2)
			k += snprintf(buf + k, n - (size_t)k, " (the end of the trace)");
		if (k > 0 && (size_t)k < n && s->replay_gap)
			snprintf(buf + k, n - (size_t)k, " (a gap in the trace follows)");
		break;
	}
	case DBG_R_NONE:
	case DBG_R_EXITED:
		break;
	}
	return buf;
}

void report_frame_line(FILE *out, struct dbg *d, const struct dbg_frame *f,
		       unsigned index)
{
	report_frame_line_tid(out, d, d->sel_tid, f, index);
}

void report_frame_line_tid(FILE *out, struct dbg *d, pid_t tid,
			   const struct dbg_frame *f, unsigned index)
{
	char loc[8192];

	if (f->untraced) {
		fprintf(out, "frame #%u: <untraced caller>\n", index);
		return;
	}
	frame_format(d, tid, index, f, loc, sizeof(loc));
	fprintf(out, "frame #%u: 0x%016" PRIx64 " %s%s\n", index, f->pc, loc,
		f->replaying ? " (replaying)" : "");
}

/* No line information: a few instructions from pc, LLDB style. */
static void frame_disasm(FILE *out, struct dbg *d, uint64_t pc)
{
	struct dbg_module *m = dbg_module_for(d, pc);
	struct disasm *ds;
	struct ptdb_err err;
	struct sym_loc loc;
	uint8_t buf[64];
	size_t got = 0;
	uint64_t a = pc;
	char cm[512], name[1024];

	ds = disasm_new(&err);
	if (!ds)
		return;
	/* the code as it ran: a loaded trace's kept pages, a replay's version */
	if (dbg_trace_loaded(d) || dbg_trace_kept(d))
		got = dbg_trace_code_read(d, pc, buf, sizeof(buf));
	if (!got) {
		got = sizeof(buf);
		while (got && dbg_read(d, pc, buf, got, NULL) < 0)
			got /= 2;
		dbg_trace_code_overlay(d, pc, buf, got);
	}
	if (m && sym_lookup_addr(m->sym, pc, &loc) == 0 && loc.func)
		fprintf(out, "%s`%s:\n", sym_module_name(m->sym),
			loc.func_whole ? loc.func : cmd_dis_func_name(loc.func, name, sizeof(name)));
	else
		loc.func = NULL;
	/* the offsets padded to the widest, as lldb-16 aligns them
	 * ("<+4>:  " above "<+13>: ") */
	struct disasm_insn in[4];
	int n = 0, offw = 0;
	char off[32];

	for (; n < 4 && a - pc < got; n++) {
		if (disasm_insn(ds, buf + (a - pc), got - (a - pc), a, &in[n], &err) < 0)
			break;
		if (loc.func) {
			int w = snprintf(off, sizeof(off), "<+%" PRIu64 ">:", a - loc.func_addr);

			if (w > offw)
				offw = w;
		}
		a += in[n].len;
	}
	for (int i = 0; i < n; i++) {
		const char *mark = in[i].addr == pc ? "->  " : "    ";

		cmd_dis_comment(d, &in[i], loc.func ? loc.func_addr : 0, cm, sizeof(cm));
		snprintf(off, sizeof(off), "<+%" PRIu64 ">:", in[i].addr - loc.func_addr);
		if (loc.func && cm[0])
			fprintf(out, "%s0x%" PRIx64 " %-*s %-6s %-25s %s\n", mark, in[i].addr, offw,
				off, in[i].mnemonic, in[i].operands, cm);
		else if (loc.func)
			fprintf(out, "%s0x%" PRIx64 " %-*s %-6s %s\n", mark, in[i].addr, offw, off,
				in[i].mnemonic, in[i].operands);
		else
			fprintf(out, "%s0x%" PRIx64 ": %-6s %s\n", mark, in[i].addr,
				in[i].mnemonic, in[i].operands);
	}
	disasm_free(ds);
}

static struct {
	char file[4096];
	unsigned first, count, line;
	unsigned long seq;
} shown;

unsigned long report_source_from_line(unsigned long before)
{
	if (shown.seq != before)
		shown.first = shown.line;
	return shown.seq;
}

unsigned long report_source_shown(const char **file, unsigned *first, unsigned *count)
{
	*file = shown.file;
	*first = shown.first;
	*count = shown.count;
	return shown.seq;
}

void report_frame_source(FILE *out, struct dbg *d, const struct dbg_frame *f,
			 unsigned index)
{
	const char *file;
	unsigned line, col;
	struct ptdb_err err;
	char mapped[4096];

	if (dbg_frame_line(d, f, index > 0, &file, &line, &col) == 0) {
		const char *dwarf = file;

		file = dbg_source_path(d, file, mapped, sizeof(mapped));
		/* a line whose file is not here: lldb-16 shows nothing more */
		if (source_list(out, file, line, col, &err) == 0) {
			snprintf(shown.file, sizeof(shown.file), "%s", dwarf);
			shown.first = line > 3 ? line - 3 : 1;	/* source_list's 7 */
			shown.line = line;
			shown.count = 7;
			shown.seq++;
		}
		return;
	}
	/* no line: a few instructions from the pc, in any frame (lldb-16
	 * shows them after 'up' too) */
	frame_disasm(out, d, f->pc);
}

void report_thread_line(FILE *out, struct dbg *d, pid_t tid)
{
	char why[160];
	int n;
	struct target_thread_info *ti = dbg_thread_list(d, 0, &n);
	char name[sizeof(ti->name)] = "";
	unsigned idx = dbg_thread_index(d, tid);

	for (int i = 0; i < n; i++)
		if (ti[i].tid == tid)
			snprintf(name, sizeof(name), "%s", ti[i].name);
	free(ti);
	report_reason(d, tid, why, sizeof(why));
	if (dbg_trace_loaded(d))	/* a loaded trace: no names, no stops */
		fprintf(out, "%s thread #%u: tid = %d", tid == d->sel_tid ? "*" : " ", idx, (int)tid);
	else
		fprintf(out, "%s thread #%u, name = '%s'", tid == d->sel_tid ? "*" : " ", idx, name);
	if (why[0])
		fprintf(out, ", stop reason = %s", why);
	fputc('\n', out);
}

void report_thread_frame(FILE *out, struct dbg *d, pid_t tid, unsigned frame)
{
	struct dbg_frame fr[DBG_MAX_FRAMES];
	struct ptdb_err err;
	int n;

	report_thread_line(out, d, tid);
	if (d->stop_note && tid == d->sel_tid) {
		fprintf(out, "%s\n", d->stop_note);
		free(d->stop_note);
		d->stop_note = NULL;
	}
	n = dbg_frames(d, tid, fr, frame < DBG_MAX_FRAMES ? (int)frame + 1 : DBG_MAX_FRAMES, &err);
	if (n <= 0)
		return;
	if ((int)frame >= n)
		frame = (unsigned)n - 1;
	fputs("    ", out);
	report_frame_line_tid(out, d, tid, &fr[frame], frame);
	report_frame_source(out, d, &fr[frame], frame);
}

void report_exit(FILE *out, struct dbg *d, const struct dbg_stop *stop)
{
	int st = stop->signaled ? stop->signo : stop->exit_status;

	fflush(out);
	cmd_relay_drain();	/* the program's last words come first */

	if (stop->signaled && target_signal_name(stop->signo))
		fprintf(out, "Process %d exited with status = %d (0x%08x) (signal %s)\n",
			(int)d->pid, st, (unsigned)st, target_signal_name(stop->signo));
	else
		fprintf(out, "Process %d exited with status = %d (0x%08x)\n",
			(int)d->pid, st, (unsigned)st);
}

void report_stop(FILE *out, struct dbg *d, const struct dbg_stop *stop)
{
	fflush(out);
	cmd_relay_drain();	/* what the program wrote before it stopped */
	for (int i = 0; i < d->nbps; i++) {
		/* a pending breakpoint resolved in a library loaded meanwhile,
		 * as lldb-16 tells it */
		struct dbg_bp *bp = &d->bps[i];

		if (bp->nlocs > bp->told)
			fprintf(out, "%d location%s added to breakpoint %u\n", bp->nlocs - bp->told,
				bp->nlocs - bp->told == 1 ? "" : "s", bp->id);
		bp->told = bp->nlocs;
	}
	for (int i = 0; i < d->nnotes; i++) {
		const char *sig = target_signal_name(d->notes[i].signo);

		/* threads count from 1; one ptdb never numbered shows its tid */
		if (d->notes[i].index)
			fprintf(out, "Process %d stopped and restarted: thread %u received signal: %s\n",
				(int)d->pid, d->notes[i].index, sig ? sig : "?");
		else
			fprintf(out, "Process %d stopped and restarted: thread with tid %d received "
				"signal: %s\n", (int)d->pid, (int)d->notes[i].tid, sig ? sig : "?");
	}
	if (d->notes_lost)
		fprintf(out, "(%d more signals)\n", d->notes_lost);
	d->nnotes = d->notes_lost = 0;
	if (stop->reason == DBG_R_EXITED) {
		report_exit(out, d, stop);
		cmd_trace_kept_note(out, d);
		return;
	}
	if (stop->reason == DBG_R_WATCH)
		report_watch_hit(out, d, stop->bp_id);	/* cmd/cmd-watch.c */
	fprintf(out, "Process %d stopped\n", (int)d->pid);
	if (stop->reason == DBG_R_BREAKPOINT && d->nbp_stops > 1) {
		/* every thread at a breakpoint, by index, as lldb-16 */
		struct dbg_bp_stop bs[DBG_MAX_BP_STOPS];
		int n = d->nbp_stops;

		memcpy(bs, d->bp_stops, sizeof(bs[0]) * (size_t)n);
		for (int i = 1; i < n; i++)
			for (int j = i; j > 0 && dbg_thread_index(d, bs[j].tid) <
					       dbg_thread_index(d, bs[j - 1].tid); j--) {
				struct dbg_bp_stop t = bs[j];

				bs[j] = bs[j - 1];
				bs[j - 1] = t;
			}
		for (int i = 0; i < n; i++)
			report_thread_frame(out, d, bs[i].tid, bs[i].tid == d->sel_tid ? d->sel_frame : 0);
	} else {
		report_thread_frame(out, d, d->sel_tid, d->sel_frame);
	}
	cmd_trace_loss_notice(out, d);
}

int cmd_parse_signal(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s && !*end)
		return v > 0 && v < 65 ? (int)v : -1;
	if (!strcasecmp(s, "SIGIOT") || !strcasecmp(s, "IOT"))	/* LLDB's aliases */
		return 6;
	if (!strcasecmp(s, "SIGPOLL") || !strcasecmp(s, "POLL"))
		return 29;
	for (int i = 1; i < 65; i++) {
		const char *n = target_signal_name(i);

		if (n && (!strcasecmp(n, s) || !strcasecmp(n + 3, s)))
			return i;
	}
	return -1;
}

void report_watch_hit(FILE *out, struct dbg *d, unsigned id)
{
	struct dbg_watchpoint *w = dbg_watch_find(d, id);
	char o[256], n[256];

	if (!w)
		return;
	dbg_watch_format(d, w, w->old, o, sizeof(o));
	dbg_watch_format(d, w, w->now, n, sizeof(n));
	fprintf(out, "\nWatchpoint %u hit:\nold value: %s\nnew value: %s\n", id, o, n);
}
