/* tty_rounds.c: fixture for the prompt tests (prompt_test.py): prints
 * "round N done" every 0.4 s of wall time (however fast it is traced),
 * argv[1] rounds (default 8), then asks "name? " and echoes the line it
 * reads as "got: ...". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned sink;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 8;
	char line[128];

	for (int r = 1; r <= rounds; r++) {
		long long end = now_ns() + 400000000LL;

		while (now_ns() < end)
			for (int i = 0; i < 1000; i++)
				sink += (unsigned)i ^ (sink >> 3);
		printf("round %d done\n", r);
		fflush(stdout);
	}
	printf("name? ");
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin))
		printf("got: %s", line);
	return 0;
}
