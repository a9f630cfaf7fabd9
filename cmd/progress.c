/* cmd/progress.c: Ctrl-C for long commands and their progress line
 * (see progress.h). */
#include "cmd/progress.h"
#include "core/session/session.h"

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_AFTER 1.0	/* seconds before the line appears */

void cmd_busy_begin(struct dbg *d)
{
	d->interrupt_requested = 0;
	d->busy = 1;
}

int cmd_busy_end(struct dbg *d)
{
	int was = d->interrupt_requested != 0;

	d->busy = 0;
	d->interrupt_requested = 0;
	return was;
}

int cmd_interrupted(const struct dbg *d)
{
	return d->busy && d->interrupt_requested;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void (*listener)(void *ctx, enum cmd_progress_phase phase, const char *label, int pct);
static void *listener_ctx;

void cmd_progress_listen(void (*fn)(void *ctx, enum cmd_progress_phase phase, const char *label,
				    int pct),
			 void *ctx)
{
	listener = fn;
	listener_ctx = ctx;
}

static void tell(struct cmd_progress *p, uint64_t done, uint64_t total)
{
	int pct = (int)(done >= total ? 100 : done * 100 / total);

	if (!p->told) {
		p->told = 1;
		p->told_pct = pct;
		listener(listener_ctx, CMD_PROGRESS_BEGIN, p->label, pct);
	} else if (pct != p->told_pct) {
		p->told_pct = pct;
		listener(listener_ctx, CMD_PROGRESS_UPDATE, p->label, pct);
	}
}

void cmd_progress_init(struct cmd_progress *p, struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	p->d = &ctx->s->dbg;
	p->tty = ctx->err && isatty(fileno(ctx->err)) ? ctx->err : NULL;
	va_start(ap, fmt);
	vsnprintf(p->label, sizeof(p->label), fmt, ap);
	va_end(ap);
	p->t0 = now_s();
	p->shown = 0;
	p->pct = -1;
	p->told = 0;
}

int cmd_progress_update(struct cmd_progress *p, uint64_t done, uint64_t total)
{
	int pct;

	if (cmd_interrupted(p->d))
		return 1;
	if (listener && total)
		tell(p, done, total);
	if (!p->tty || !total || now_s() - p->t0 < PROGRESS_AFTER)
		return 0;
	pct = (int)(done >= total ? 100 : done * 100 / total);
	if (pct != p->pct) {
		p->shown = fprintf(p->tty, "\r%s: %d%%", p->label, pct);
		fflush(p->tty);
		p->pct = pct;
	}
	return 0;
}

void cmd_progress_done(struct cmd_progress *p)
{
	if (p->told && listener)
		listener(listener_ctx, CMD_PROGRESS_END, p->label, 100);
	p->told = 0;
	if (!p->tty || p->shown <= 0)
		return;
	fprintf(p->tty, "\r%*s\r", p->shown, "");
	fflush(p->tty);
	p->shown = 0;
}

int cmd_progress_hook(void *ctx, uint64_t done, uint64_t total)
{
	return cmd_progress_update(ctx, done, total);
}
