/* cmd/script.c: echo-and-run of command scripts, LLDB batch style. */
#include "cmd/script.h"
#include "core/session/session.h"
#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Has the pipe fd a writer, or data?  tee(2) copies without taking: 0
 * when it is empty with no writer (a read would see the end at once),
 * EAGAIN when a writer is there but has written nothing yet. */
static int pipe_has_writer(int fd)
{
	int p[2], ok;
	ssize_t k;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return 1;	/* (cannot tell: read it) */
	k = tee(fd, p[1], 1, SPLICE_F_NONBLOCK);
	ok = k > 0 || (k < 0 && errno == EAGAIN);
	close(p[0]);
	close(p[1]);
	return ok;
}

FILE *script_open(const char *path, char *why, size_t n)
{
	struct stat sb;
	FILE *f;
	/* O_NONBLOCK: opening a FIFO does not wait for a writer */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, n, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) < 0 || !(S_ISREG(sb.st_mode) || S_ISFIFO(sb.st_mode))) {
		snprintf(why, n, "not a regular file");
		close(fd);
		return NULL;
	}
	if (S_ISFIFO(sb.st_mode) && !pipe_has_writer(fd)) {
		snprintf(why, n, "a FIFO with no writer");
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (!(f = fdopen(fd, "r"))) {
		snprintf(why, n, "%s", strerror(errno));
		close(fd);
	}
	return f;
}

enum cmd_status script_run_line(struct session *s, const char *line, FILE *out, FILE *err, int *failed)
{
	const char *p = line;
	enum cmd_status st;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return CMD_OK;
	fprintf(out, "%s%s\n", settings_get(&s->settings, SETTING_PROMPT), p);
	fflush(out);
	st = cmd_run_line(s, p, out, err);
	if (st == CMD_ERROR)
		*failed = 1;
	return st;
}

enum cmd_status script_run_file(struct session *s, FILE *in, FILE *out, FILE *err, int *failed)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	enum cmd_status st = CMD_OK;

	while (!s->term_signal && (len = getline(&line, &cap, in)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		st = script_run_line(s, line, out, err, failed);
		if (st == CMD_EXIT)
			break;
		if (st == CMD_ERROR && settings_get_bool(&s->settings, SETTING_STOP_ON_ERROR))
			break;
		st = CMD_OK;
	}
	free(line);
	return st;
}
