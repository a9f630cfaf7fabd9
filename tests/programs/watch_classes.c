/* Watchpoint fixture (tests/watch_test.py W3): one store (or load) of each
 * kind the code cache's checks must catch, each into its own watched
 * variable, in order: a store through a pointer, libc's memcpy and memset,
 * rep stosq, a push, a load, xchg, lock cmpxchg, a vector store. */
#include <string.h>

long w_ptr __attribute__((aligned(64)));
char w_copy[64] __attribute__((aligned(64)));
char w_set[64] __attribute__((aligned(64)));
long w_rep[32] __attribute__((aligned(64)));
long w_stack[32] __attribute__((aligned(64)));
long w_read __attribute__((aligned(64))) = 11;
long w_xchg __attribute__((aligned(64)));
long w_cas __attribute__((aligned(64)));
long w_vec[4] __attribute__((aligned(64)));
long sink;
static char src[64] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+";

__attribute__((noinline)) static long *pick(long *p)
{
	return p;
}

int main(int argc, char **argv)
{
	long *p = pick(&w_ptr);
	size_t n = (size_t)argc + 47;	/* 48: not known to the compiler */

	(void)argv;
	for (int i = 0; i < 200; i++)
		sink += i;
	*p = 42;
	memcpy(w_copy, src, n);
	memset(w_set, 9, n);
	__asm__ volatile("rep stosq" : : "D"(w_rep), "c"(32L), "a"(5L) : "memory");
	__asm__ volatile("mov %%rsp, %%rdx\n\t"
			 "lea w_stack+256(%%rip), %%rsp\n\t"
			 "pushq $77\n\t"
			 "mov %%rdx, %%rsp" : : : "rdx", "memory");
	sink = w_read + 1;
	__atomic_exchange_n(&w_xchg, 3, __ATOMIC_SEQ_CST);
	__sync_val_compare_and_swap(&w_cas, 0, 4);
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n\t"
			 "movdqu %%xmm0, w_vec+16(%%rip)" : : : "xmm0", "memory");
	return (int)sink - 12;
}
