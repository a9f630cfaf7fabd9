/* bp_syscall.c: a breakpoint on a system call that waits for another
 * thread.  The worker tells main it is ready, then reads a pipe with its
 * own `syscall` instruction at the label worker_read_insn; main writes
 * the byte the worker waits for only once the worker sleeps in that read
 * (its /proc state S).  Stepping the worker over a breakpoint on that
 * instruction while main is held never ends: the read returns only once
 * main has written. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <sys/syscall.h>

static int ready[2], token[2];

static long read_insn(int fd, char *c)
{
	long rax = SYS_read;

	__asm__ volatile(".globl worker_read_insn\nworker_read_insn:\n\tsyscall"
			 : "+a"(rax)
			 : "D"((long)fd), "S"(c), "d"(1L)
			 : "rcx", "r11", "memory");
	return rax;
}

static void *worker(void *arg)
{
	char c;
	int tid = (int)syscall(SYS_gettid);

	(void)arg;
	if (write(ready[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	if (read_insn(token[0], &c) != 1)
		return NULL;
	printf("worker read %c\n", c);
	return NULL;
}

int main(void)
{
	pthread_t t;
	char c, path[64], stat[256];
	int tid;

	if (pipe(ready) < 0 || pipe(token) < 0)
		return 1;
	pthread_create(&t, NULL, worker, NULL);
	if (read(ready[0], &tid, sizeof(tid)) != sizeof(tid))
		return 1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	for (;;) {	/* until the worker sleeps in its read */
		FILE *f = fopen(path, "r");
		char *e;

		if (!f)
			return 1;
		e = fgets(stat, sizeof(stat), f) ? strrchr(stat, ')') : NULL;
		fclose(f);
		if (!e)
			return 1;
		if (e[2] == 'S')
			break;
	}
	c = 't';
	if (write(token[1], &c, 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("done\n");
	return 0;
}
