/* cmd/trace-progress.c: while a traced 'continue' runs on a terminal,
 * "Tracing: 1234567 instructions, 0.85 M/s, buffer 37% full" is rewritten
 * in place on stderr (from the second second on) and cleared before the
 * stop is reported, so a long traced run is not a blank screen. */
#include "cmd/trace-progress.h"
#include "core/session/dbg.h"

#include <unistd.h>

#define SHOW_AFTER 1.0	/* seconds: short runs show nothing */

struct line {
	FILE *tty;
	int shown;	/* length on screen, 0: none */
};

static struct line the_line;	/* one terminal, one line */

static void show(void *ctx, const struct dbg_progress_info *in)
{
	struct line *l = ctx;
	char fill[32];
	int n;

	if (!l->tty || in->seconds < SHOW_AFTER)
		return;
	if (in->fill_pct >= 100 || in->wrapped)
		snprintf(fill, sizeof(fill), "buffer wrapped");
	else
		snprintf(fill, sizeof(fill), "buffer %u%% full", in->fill_pct);
	n = fprintf(l->tty, "\rTracing: %llu instructions, %.2f M/s, %s",
		    (unsigned long long)in->insns, in->rate / 1e6, fill);
	if (n > 0 && n - 1 < l->shown)
		fprintf(l->tty, "%*s", l->shown - (n - 1), "");	/* rest of a longer line */
	if (n > 0 && n - 1 > l->shown)
		l->shown = n - 1;
	fflush(l->tty);
}

void cmd_trace_progress_install(struct dbg *d, FILE *tty)
{
	the_line.tty = tty && isatty(fileno(tty)) ? tty : NULL;
	the_line.shown = 0;
	d->progress.fn = the_line.tty ? show : NULL;
	d->progress.ctx = &the_line;
}

void cmd_trace_progress_clear(struct dbg *d)
{
	/* another front end (ptdb --dap) may own the progress callback */
	struct line *l = d->progress.fn == show ? d->progress.ctx : NULL;

	if (!l || !l->tty || !l->shown)
		return;
	fprintf(l->tty, "\r%*s\r", l->shown, "");
	fflush(l->tty);
	l->shown = 0;
}
