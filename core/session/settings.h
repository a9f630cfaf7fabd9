/* core/session/settings.h: the session's settings ("settings set|show"), as a table. */
#ifndef PTDB_CORE_SETTINGS_H
#define PTDB_CORE_SETTINGS_H

#include <stdio.h>
#include "base/err.h"

enum setting_type { SETTING_BOOL, SETTING_ENUM, SETTING_STRING };

struct setting_def {
	const char *name;
	enum setting_type type;
	const char *defval;
	const char *values;	/* SETTING_ENUM: "att|intel" */
	const char *help;
};

enum setting_id {
	SETTING_STOP_ON_ERROR,
	SETTING_DISASSEMBLY_FLAVOR,
	SETTING_PROMPT,
	SETTING_RUN_ARGS,
	SETTING_DISABLE_ASLR,
	SETTING_TRACE_STEPPING,
	SETTING_FOLLOW_FORK,
	SETTING_DEBUG_FILE_PATHS,
	SETTING_SOURCE_MAP,
	SETTING_TRACE_ENGINE,
	SETTING_HW_WATCH,
	SETTING_BUNDLE_OUTSIDE,
	SETTING_STEP_AVOID,
	SETTING_DYNAMIC,
	SETTING_COUNT_
};

struct settings {
	char *values[SETTING_COUNT_];
};

/* The definitions, indexed by enum setting_id; count in *n. */
const struct setting_def *settings_defs(size_t *n);
void settings_init(struct settings *s);
void settings_release(struct settings *s);
/* Looks a name up (exact); returns its id or -1. */
int settings_find(const char *name);
/* Sets name to value after checking the type. */
int settings_set(struct settings *s, const char *name, const char *value, struct ptdb_err *err);
const char *settings_get(const struct settings *s, enum setting_id id);
int settings_get_bool(const struct settings *s, enum setting_id id);
/* Writes "name (type) = value" lines, all settings or the one named. */
int settings_show(const struct settings *s, const char *name, FILE *out, struct ptdb_err *err);

#endif
