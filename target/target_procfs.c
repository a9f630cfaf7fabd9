/* target/target_procfs.c: what target/ reads of /proc besides memory:
 * a thread's signal sets (status), the process's mappings (maps), and the
 * processes that go by a name, for an attach by name (split from
 * target_proc.c). */
#include "target/target_int.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int target_thread_sigsets(pid_t pid, pid_t tid, struct target_sigsets *s)
{
	char path[80], line[256];
	unsigned long long v;
	FILE *f;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SigPnd: %llx", &v) == 1)
			s->pending = v;
		else if (sscanf(line, "SigBlk: %llx", &v) == 1)
			s->blocked = v;
		else if (sscanf(line, "SigCgt: %llx", &v) == 1)
			s->caught = v;
		else if (sscanf(line, "SigIgn: %llx", &v) == 1)
			s->ignored = v;
	}
	fclose(f);
	return 0;
}

/* The kernel writes a newline in a mapped file's path as "\012" (and
 * escapes nothing else): the path as the file system names it, when that
 * file exists (a name holding a real backslash stays as it is). */
static void map_unescape(char *path)
{
	char buf[sizeof(((struct target_map *)0)->path)], *o = buf;
	struct stat st;

	if (path[0] != '/' || !strstr(path, "\\012"))
		return;
	for (const char *c = path; *c; c++) {
		if (!strncmp(c, "\\012", 4)) {
			*o++ = '\n';
			c += 3;
		} else {
			*o++ = *c;
		}
	}
	*o = 0;
	if (stat(buf, &st) == 0 || stat(path, &st) < 0)
		strcpy(path, buf);
}

int target_maps(struct target_proc *p, struct target_map **out, int *n,
		struct ptdb_err *err)
{
	char path[64], line[512];
	int cap = 0;
	FILE *f;

	*out = NULL;
	*n = 0;
	if (!p->alive)
		return target_nproc_err(p, err);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	f = fopen(path, "r");
	if (!f)
		return ptdb_err_errno(err, "cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		struct target_map m;
		unsigned long long s, e, off;
		int pos = 0;

		memset(&m, 0, sizeof(m));
		if (sscanf(line, "%llx-%llx %4s %llx %*s %*s%n", &s, &e,
			   m.perms, &off, &pos) < 4)
			continue;
		m.start = s;
		m.end = e;
		m.offset = off;
		if (pos > 0) {
			char *q = line + pos;

			q += strspn(q, " \t");
			q[strcspn(q, "\n")] = '\0';
			snprintf(m.path, sizeof(m.path), "%s", q);
			map_unescape(m.path);
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[(*n)++] = m;
	}
	fclose(f);
	return 0;
}

/* Reads /proc/PID/NAME's first line (at most n-1 bytes) into buf. */
static int proc_line(long pid, const char *name, char *buf, size_t n)
{
	char path[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	if (!(f = fopen(path, "r")))
		return -1;
	ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int base_is(const char *path, const char *name)
{
	const char *b = strrchr(path, '/');

	return !strcmp(b ? b + 1 : path, name);
}

/* Does process pid go by name (its comm, the basename of its executable or
 * of its argv[0]), and can it be attached (not ptdb, not a zombie, not
 * traced already)? */
static int proc_named(long pid, const char *name)
{
	char buf[4096], path[64];
	const char *st;
	ssize_t len;
	int match = 0;
	FILE *f;

	if (pid == (long)getpid())
		return 0;
	if (proc_line(pid, "comm", buf, sizeof(buf)) == 0 && !strcmp(buf, name))
		match = 1;
	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	if (!match && (len = readlink(path, buf, sizeof(buf) - 1)) > 0) {
		buf[len] = 0;
		if (len > 10 && !strcmp(buf + len - 10, " (deleted)"))
			buf[len - 10] = 0;
		match = base_is(buf, name);
	}
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	if (!match && (f = fopen(path, "r"))) {
		size_t got = fread(buf, 1, sizeof(buf) - 1, f);

		fclose(f);
		buf[got] = 0;	/* argv[0] ends at its NUL */
		match = got > 0 && base_is(buf, name);
	}
	if (!match)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "State:", 6)) {
			for (st = buf + 6; *st == ' ' || *st == '\t'; st++)
				;
			if (*st == 'Z' || *st == 'X')
				match = 0;
		} else if (!strncmp(buf, "TracerPid:", 10) && atol(buf + 10) != 0) {
			match = 0;
		}
	}
	fclose(f);
	return match;
}

/* The processes that go by name (see proc_named), at most max of them in
 * pids; their count (beyond max too), -1 when /proc cannot be read. */
int target_pids_named(const char *name, pid_t *pids, int max)
{
	struct dirent *e;
	DIR *dir = opendir("/proc");
	int count = 0;

	if (!dir)
		return -1;
	while ((e = readdir(dir))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || !proc_named(pid, name))
			continue;
		if (count < max)
			pids[count] = (pid_t)pid;
		count++;
	}
	closedir(dir);
	return count;
}
