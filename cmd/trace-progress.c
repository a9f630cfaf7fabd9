/* cmd/trace-progress.c: while a traced 'continue' runs on a terminal,
 * "Tracing: 1234567 instructions, 0.85 M/s, buffer 37% full" is rewritten
 * in place on stderr (from the second second on) and cleared before the
 * stop is reported, so a long traced run is not a blank screen.  What the
 * program writes through its pseudo-terminal (tty-relay.c) comes through
 * cmd_trace_progress_output: the line is cleared before each chunk and
 * drawn again after it, so no progress text stays in the program's lines. */
#include "cmd/trace-progress.h"
#include "core/session/dbg.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define SHOW_AFTER 1.0	/* seconds: short runs show nothing */

struct line {
	FILE *tty;
	int shown;	/* length on screen, 0: none */
	int held;	/* the program's last chunk left its line open */
	char text[160];	/* the last line drawn, to draw again */
};

static struct line the_line;	/* one terminal, one line */
/* the relay's thread and the run's progress share the screen */
static pthread_mutex_t screen = PTHREAD_MUTEX_INITIALIZER;

static void draw(struct line *l)
{
	int n = fprintf(l->tty, "\r%s", l->text);

	if (n > 0 && n - 1 < l->shown)
		fprintf(l->tty, "%*s", l->shown - (n - 1), "");	/* rest of a longer line */
	if (n > 0 && n - 1 > l->shown)
		l->shown = n - 1;
	fflush(l->tty);
}

static void erase(struct line *l)
{
	if (!l->tty || !l->shown)
		return;
	fprintf(l->tty, "\r%*s\r", l->shown, "");
	fflush(l->tty);
	l->shown = 0;
}

static void show(void *ctx, const struct dbg_progress_info *in)
{
	struct line *l = ctx;
	char fill[32];

	if (!l->tty || in->seconds < SHOW_AFTER)
		return;
	if (in->fill_pct >= 100 || in->wrapped)
		snprintf(fill, sizeof(fill), "buffer wrapped");
	else
		snprintf(fill, sizeof(fill), "buffer %u%% full", in->fill_pct);
	pthread_mutex_lock(&screen);
	if (in->watching)	/* software watchpoints: no trace, a step at a time */
		snprintf(l->text, sizeof(l->text), "Checking watchpoints by single-stepping: "
			 "%llu instructions, %.0f/s (Ctrl-C stops)",
			 (unsigned long long)in->insns, in->rate);
	else
		snprintf(l->text, sizeof(l->text), "Tracing: %llu instructions, %.2f M/s, %s",
			 (unsigned long long)in->insns, in->rate / 1e6, fill);
	if (!l->held)
		draw(l);
	pthread_mutex_unlock(&screen);
}

void cmd_trace_progress_install(struct dbg *d, FILE *tty)
{
	the_line.tty = tty && isatty(fileno(tty)) ? tty : NULL;
	the_line.shown = 0;
	the_line.held = 0;
	the_line.text[0] = '\0';
	d->tr.progress.fn = the_line.tty ? show : NULL;
	d->tr.progress.ctx = &the_line;
}

void cmd_trace_progress_clear(struct dbg *d)
{
	/* another front end (ptdb --dap) may own the progress callback */
	struct line *l = d->tr.progress.fn == show ? d->tr.progress.ctx : NULL;

	if (!l)
		return;
	pthread_mutex_lock(&screen);
	erase(l);
	l->text[0] = '\0';
	l->held = 0;
	pthread_mutex_unlock(&screen);
}

void cmd_trace_progress_output(const char *buf, size_t n)
{
	struct line *l = &the_line;
	pthread_mutex_lock(&screen);
	erase(l);
	for (size_t off = 0; off < n;) {
		ssize_t w = write(STDOUT_FILENO, buf + off, n - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	/* a chunk that ends inside a line (a prompt): the progress waits
	 * for its newline instead of writing over it */
	l->held = n && buf[n - 1] != '\n';
	if (!l->held && l->tty && l->text[0])
		draw(l);
	pthread_mutex_unlock(&screen);
}
