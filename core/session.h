/* core/session.h: the debugger session, the one mutable object main()
 * creates: settings and (in later layers) targets and processes. */
#ifndef PTDB_CORE_SESSION_H
#define PTDB_CORE_SESSION_H

#include "core/settings.h"

struct session {
	struct settings settings;
	int batch;		/* -b: quit after the commands */
	int depth;		/* nesting of "command source" */
};

void session_init(struct session *s);
void session_release(struct session *s);

#endif
