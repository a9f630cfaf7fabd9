/* cmd/progress.h: long commands (decoding, dumping, exports): Ctrl-C asks
 * them to stop without ending the session, and after about a second a
 * progress line ("Decoding thread #1: 42%") is rewritten in place on
 * stderr when stderr is a terminal, then cleared. */
#ifndef PTDB_CMD_PROGRESS_H
#define PTDB_CMD_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "core/session/dbg.h"

/* A long command starts: from now Ctrl-C sets d->interrupt_requested
 * (d->busy) instead of doing nothing at the prompt. */
void cmd_busy_begin(struct dbg *d);
/* It ends; returns 1 if Ctrl-C came meanwhile (and forgets it). */
int cmd_busy_end(struct dbg *d);
/* 1 once Ctrl-C asked the running command to stop. */
int cmd_interrupted(const struct dbg *d);

struct cmd_progress {
	struct dbg *d;
	int told, told_pct;	/* the listener was told it began, at pct */
	FILE *tty;		/* the context's stderr if a terminal, else NULL */
	char label[64];
	double t0;		/* CLOCK_MONOTONIC seconds at the start */
	int shown;		/* the line is on screen (its length) */
	int pct;		/* the percentage shown */
};

void cmd_progress_init(struct cmd_progress *p, struct cmd_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* done of total: shows the percentage once the work took a second.
 * Returns 1 if Ctrl-C asked to stop. */
int cmd_progress_update(struct cmd_progress *p, uint64_t done, uint64_t total);
/* Clears the line if it was shown. */
void cmd_progress_done(struct cmd_progress *p);
/* A front end that shows every long command's progress its own way (the
 * DAP's progress events): told when one begins (its label), when its
 * percentage changes and when it ends; fn NULL: none. */
enum cmd_progress_phase { CMD_PROGRESS_BEGIN, CMD_PROGRESS_UPDATE, CMD_PROGRESS_END };
void cmd_progress_listen(void (*fn)(void *ctx, enum cmd_progress_phase phase, const char *label,
				    int pct),
			 void *ctx);

/* dbg_trace_decode_progress's progress over a struct cmd_progress (ctx). */
int cmd_progress_hook(void *ctx, uint64_t done, uint64_t total);

#endif
