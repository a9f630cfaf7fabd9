/* tests/fuzz/fuzz.h: what the fuzz harnesses share: a private scratch
 * directory for the files an input becomes, and running ptdb command lines
 * on a session with their output thrown away.  Each harness defines
 * LLVMFuzzerTestOneInput; libFuzzer (make fuzz) or tests/fuzz/replay.c
 * (make check, gcc) calls it. */
#ifndef PTDB_TESTS_FUZZ_H
#define PTDB_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "core/session/session.h"

#ifndef FUZZ_ROOT
#define FUZZ_ROOT "."
#endif

/* The scratch directory (created once, removed at exit). */
const char *fuzz_dir(void);
/* Writes n bytes to name inside fuzz_dir(); returns the full path (static
 * buffer of the last call). */
const char *fuzz_write(const char *name, const void *data, size_t n);
/* Runs line on s, output to /dev/null; returns the cmd_status. */
int fuzz_run(struct session *s, const char *line);
/* On a fresh batch session: first, then, if it succeeded, each line of
 * then (NULL-terminated); the session is released. */
void fuzz_session(const char *first, const char *const *then);
/* data as a NUL-terminated heap string (free it). */
char *fuzz_strndup(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
