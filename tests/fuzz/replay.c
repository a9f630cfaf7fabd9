/* tests/fuzz/replay.c: runs a fuzz harness on every file named (or every
 * file of the directories named), without libFuzzer: make check replays the
 * committed corpus with the normal compiler so fixed crashes stay fixed.
 * Prints one line per input and exits nonzero only by crashing, as the
 * harnesses report bugs by crashing (the sanitizer build). */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			if (!(buf = realloc(buf, cap)))
				abort();
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	printf("replay %s (%zu bytes)\n", path, n);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int bad = 0, total = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;
		char **names = NULL;
		int nn = 0;

		if (stat(argv[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]) < 0;
			total++;
			continue;
		}
		if (!(d = opendir(argv[i]))) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			bad = 1;
			continue;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			names = realloc(names, sizeof(*names) * (size_t)(nn + 1));
			if (!names || !(names[nn] = malloc(strlen(argv[i]) + strlen(e->d_name) + 2)))
				abort();
			sprintf(names[nn++], "%s/%s", argv[i], e->d_name);
		}
		closedir(d);
		qsort(names, (size_t)nn, sizeof(*names), cmp);
		for (int k = 0; k < nn; k++) {
			bad |= run_file(names[k]) < 0;
			total++;
			free(names[k]);
		}
		free(names);
	}
	printf("replayed %d inputs\n", total);
	return bad || !total;
}
