/* oracle_sys.c: system calls the cache engine runs in place, between
 * oracle_begin() and oracle_end().  Its branches follow what a SYSCALL
 * leaves behind: the flags (the kernel keeps them; the check before an
 * in-cache SYSCALL must not change them), rcx (the original next pc, as
 * natively), r11 (the flags again) and rax for numbers the check must
 * send out or let the kernel refuse (upper half set, x32's bit, >= 512),
 * a call that unblocks a pending signal (delivered right after it), and
 * calls the engine must see (rt_sigaction, mmap) among them.  Exit
 * status 0 when every check held. */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

void oracle_begin(void) {}
void oracle_end(void) {}

static volatile int hits, bad;

static void on_usr1(int s) { (void)s; hits++; }

/* syscall with rax = nr and the carry flag cf; returns rax, *cf_after the
 * carry after it, *rcx_ok whether rcx held the address after the SYSCALL */
static long sys_cf(uint64_t nr, int cf, int *cf_after, int *rcx_ok)
{
  uint64_t rax = nr, rcx, after;
  uint8_t c;

  __asm__ volatile(
      "cmpb $1, %b[cf]\n\t"	/* CF = (cf < 1) */
      "cmc\n\t"			/* CF = cf */
      "syscall\n\t"
      "1: setc %[c]\n\t"
      "lea 1b(%%rip), %[after]\n\t"
      : "+a"(rax), "=c"(rcx), [c] "=r"(c), [after] "=r"(after)
      : [cf] "q"((uint8_t)cf)
      : "r11", "memory", "cc");
  *cf_after = c;
  *rcx_ok = rcx == after;
  return (long)rax;
}

int main(void)
{
  sigset_t usr1;
  struct sigaction sa = { 0 };
  long pid = getpid();
  char rnd[8];

  sa.sa_handler = on_usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  oracle_begin();
  for (int i = 0; i < 40; i++) {
    int cf, ok;
    long r;

    r = sys_cf(39, i & 1, &cf, &ok);			/* getpid */
    bad += r != pid || cf != (i & 1) || !ok;
    r = sys_cf((1ull << 32) | 39, !(i & 1), &cf, &ok);	/* eax 39: getpid */
    bad += r != pid || cf != !(i & 1) || !ok;
    r = sys_cf(0x40000000u | 39, 1, &cf, &ok);		/* x32 */
    bad += !ok || cf != 1;
    r = sys_cf(600, 0, &cf, &ok);				/* none */
    bad += r != -38 || !ok || cf != 0;
    r = sys_cf(0x200 | 39, 1, &cf, &ok);			/* none: bits 8-15 are 2 */
    bad += r != -38 || !ok || cf != 1;
    bad += getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd);	/* 318: bits 8-15 are 1 */
    if (i % 8 == 0) {
      void *p;

      sigaction(SIGUSR1, &sa, NULL);			/* seen by the engine */
      sigprocmask(SIG_BLOCK, &usr1, NULL);
      raise(SIGUSR1);
      sigprocmask(SIG_UNBLOCK, &usr1, NULL);		/* delivered right after */
      p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED)
        munmap(p, 4096);
    }
  }
  oracle_end();
  return bad || hits != 5;
}
