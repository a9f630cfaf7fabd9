/* cmd/tty-relay.h: the launched program's own pseudo-terminal, when ptdb
 * runs at a terminal (as LLDB gives one): a thread relays what the
 * program writes to ptdb's stdout (around the progress line) and, while
 * a command runs, what is typed to the program. */
#ifndef CMD_TTY_RELAY_H
#define CMD_TTY_RELAY_H

#include <signal.h>
#include <stdio.h>

/* Set while the program runs in a session of its own (a pseudo-terminal,
 * --no-stdio, files): the terminal's Ctrl-C reaches ptdb only.  Read by
 * the SIGINT handlers. */
extern volatile sig_atomic_t cmd_relay_own_session;

/* Relays master (a pseudo-terminal's master, taken over) from now on, keys
 * forwarded only while *running; the
 * previous one, if any, is drained and closed. */
void cmd_relay_start(int master, const volatile sig_atomic_t *running);
/* Writes what the program has written so far (before a stop is reported). */
void cmd_relay_drain(void);
/* on: the terminal's keys go to the program (ptdb's terminal without
 * echo or line editing, the program's terminal does both); off: ptdb's
 * own again.  Without a relay, nothing. */
void cmd_relay_input(int on);
/* Asks question on out and reads the answer from ptdb's stdin (the
 * terminal its own meanwhile): 1 for yes (an empty line, y or Y). */
int cmd_ask_yes(FILE *out, const char *question);
/* Drains, stops the thread, closes the master (at exit). */
void cmd_relay_end(void);

#endif
