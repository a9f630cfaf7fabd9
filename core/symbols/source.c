/* core/symbols/source.c: source listings in LLDB's layout.  LLDB prints
 * "%2s %-4u\t" before each line; we render that tab as spaces (text at
 * column 8 for up to 4-digit numbers) and drop trailing blanks. */
#include "core/symbols/source.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>

static void source_emit(FILE *out, const char *prefix, unsigned no,
			const char *text, size_t len)
{
	char head[64];
	int w = snprintf(head, sizeof(head), "%s%-4u", prefix, no);

	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' ||
		       text[len - 1] == '\r'))
		len--;
	if (len == 0) {		/* no trailing spaces on empty lines */
		while (w > 0 && head[w - 1] == ' ')
			head[--w] = '\0';
		fprintf(out, "%s\n", head);
		return;
	}
	fprintf(out, "%s%*s%.*s\n", head, 8 - w % 8, "", (int)len, text);
}

/* Reads path, calls back per line in [first, last]. */
static int source_walk(FILE *out, const char *path, unsigned first,
		       unsigned last, unsigned mark, unsigned column, const char *marker,
		       const char *other, struct ptdb_err *err)
{
	/* O_NONBLOCK: a FIFO named by the debug information must not hang
	 * the session (regular files ignore the flag) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned no = 0;
	int shown = 0;

	if (fd < 0)
		return ptdb_err_errno(err, "cannot read source file '%s'", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ptdb_err_set(err, "cannot read source file '%s': not a regular file", path);
	}
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return ptdb_err_errno(err, "cannot read source file '%s'", path);
	}
	while ((len = getline(&buf, &cap, f)) >= 0 && ++no <= last) {
		if (len && buf[len - 1] == '\n')
			len--;
		if (no < first)
			continue;
		source_emit(out, no == mark ? marker : other, no, buf, (size_t)len);
		shown++;
		if (no == mark && column) {
			fputs("        ", out);
			for (unsigned i = 0; i + 1 < column && i < (size_t)len; i++)
				fputc(buf[i] == '\t' ? '\t' : ' ', out);
			fputs("^\n", out);
		}
	}
	free(buf);
	fclose(f);
	return shown;
}

int source_list(FILE *out, const char *path, unsigned line, unsigned column,
		struct ptdb_err *err)
{
	unsigned first = line > 3 ? line - 3 : 1;

	return source_walk(out, path, first, first + 6, line, column, "-> ", "   ", err) < 0 ?
	       -1 : 0;
}

int source_list_mixed(FILE *out, const char *path, unsigned first, unsigned last,
		      int pc_in, struct ptdb_err *err)
{
	return source_walk(out, path, first ? first : 1, last, last, 0, pc_in ? "-> " : "** ",
			   pc_in ? "-> " : "   ", err);
}

int source_list_range(FILE *out, const char *path, unsigned first,
		      unsigned last, struct ptdb_err *err)
{
	return source_walk(out, path, first ? first : 1, last, 0, 0, "-> ", "   ", err);
}
