/* tests/fuzz/fuzz.c: the scratch directory and command running that every
 * fuzz harness uses (see fuzz.h). */
#include "tests/fuzz/fuzz.h"
#include "cmd/cmd.h"
#include "cmd/builtin.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the command tree, as main.c hands it to the dispatcher */
__attribute__((constructor)) static void hand_tree(void)
{
	cmd_set_tree(cmd_builtin_root(), cmd_builtin_aliases());
}

static char dir[64];
static FILE *devnull;

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4200];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p) < 0) {
			/* a subdirectory (traces/): one level is all the harnesses make */
			DIR *sd = opendir(p);
			struct dirent *se;
			char q[8400];

			while (sd && (se = readdir(sd))) {
				snprintf(q, sizeof(q), "%s/%s", p, se->d_name);
				unlink(q);
			}
			if (sd)
				closedir(sd);
			rmdir(p);
		}
	}
	closedir(d);
	rmdir(dir);
}

const char *fuzz_dir(void)
{
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/ptdb-fuzz-XXXXXX");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			exit(1);
		}
		atexit(remove_dir);
	}
	return dir;
}

const char *fuzz_write(const char *name, const void *data, size_t n)
{
	static char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	f = fopen(path, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n)) {
		perror(path);
		exit(1);
	}
	fclose(f);
	return path;
}

int fuzz_run(struct session *s, const char *line)
{
	if (!devnull && !(devnull = fopen("/dev/null", "w"))) {
		perror("/dev/null");
		exit(1);
	}
	return (int)cmd_run_line(s, line, devnull, devnull);
}

void fuzz_session(const char *first, const char *const *then)
{
	struct session s;

	session_init(&s);
	s.batch = 1;
	if (fuzz_run(&s, first) == 0)
		for (; *then; then++)
			fuzz_run(&s, *then);
	session_release(&s);
}

char *fuzz_strndup(const uint8_t *data, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		abort();
	memcpy(p, data, n);
	p[n] = 0;
	return p;
}
