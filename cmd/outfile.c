/* cmd/outfile.c: checked output files (see outfile.h).  The FILE writes
 * through a cookie that keeps the errno of the first failed write: stdio's
 * error flag alone loses it, and an unchecked fwrite loses the failure. */
#include "cmd/outfile.h"
#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

struct outfile {
	int fd;
	int err;	/* errno of the first failure, 0 if none */
};

static ssize_t of_write(void *c, const char *buf, size_t n)
{
	struct outfile *o = c;
	size_t done = 0;

	if (o->err) {
		errno = o->err;
		return -1;
	}
	while (done < n) {
		ssize_t w = write(o->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			errno = o->err;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int of_close(void *c)
{
	struct outfile *o = c;
	int r = close(o->fd);

	if (r < 0 && !o->err)
		o->err = errno;
	/* the cookie stays until cmd_outfile_close has read err */
	return r;
}

/* Each open file's cookie, found again at the close. */
static struct {
	FILE *f;
	struct outfile *o;
} open_files[8];

FILE *cmd_outfile_open(struct cmd_ctx *ctx, const char *path)
{
	static const cookie_io_functions_t io = { .write = of_write, .close = of_close };
	struct outfile *o;
	FILE *f;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	size_t i;

	if (fd < 0) {
		cmd_error(ctx, "cannot write '%s': %s", path, strerror(errno));
		return NULL;
	}
	for (i = 0; i < sizeof(open_files) / sizeof(open_files[0]) && open_files[i].f; i++)
		;
	o = xcalloc(1, sizeof(*o));
	o->fd = fd;
	if (i == sizeof(open_files) / sizeof(open_files[0]) || !(f = fopencookie(o, "w", io))) {
		close(fd);
		free(o);
		cmd_error(ctx, "cannot write '%s': too many open output files", path);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	open_files[i].f = f;
	open_files[i].o = o;
	return f;
}

static struct outfile *cookie_of(FILE *f, int take)
{
	for (size_t i = 0; i < sizeof(open_files) / sizeof(open_files[0]); i++)
		if (open_files[i].f == f) {
			struct outfile *o = open_files[i].o;

			if (take)
				open_files[i].f = NULL;
			return o;
		}
	return NULL;
}

int cmd_outfile_failed(FILE *f)
{
	struct outfile *o = cookie_of(f, 0);

	return ferror(f) || (o && o->err);
}

enum cmd_status cmd_outfile_close(struct cmd_ctx *ctx, const char *path, FILE *f,
				  enum cmd_status st)
{
	struct outfile *o = cookie_of(f, 1);
	int bad = ferror(f), e;

	bad |= fclose(f) != 0;
	e = o && o->err ? o->err : EIO;
	bad |= o && o->err;
	free(o);
	if (bad)
		return cmd_error(ctx, "cannot write '%s': %s", path, strerror(e));
	return st;
}
