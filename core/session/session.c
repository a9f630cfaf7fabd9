/* core/session/session.c: session set-up and tear-down. */
#include "core/session/session.h"

#include <string.h>

void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	settings_init(&s->settings);
	dbg_init(&s->dbg);
}

void session_release(struct session *s)
{
	dbg_release(&s->dbg);
	settings_release(&s->settings);
}
