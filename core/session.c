/* core/session.c: session set-up and tear-down. */
#include "core/session.h"

#include <string.h>

void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	settings_init(&s->settings);
}

void session_release(struct session *s)
{
	settings_release(&s->settings);
}
