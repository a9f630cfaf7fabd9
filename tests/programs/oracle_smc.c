/* oracle_smc.c: a program that patches its own .text.  patchme() is run
 * (so a tracer has seen it), then its page is made writable and two bytes
 * are stored into it: a je becomes a jne and an immediate changes; the
 * function runs again and must compute with the new code, in the writable
 * page and once it is read-only again; patched back, the old code; an
 * immediate changed by a write to /proc/self/mem (the page read-only);
 * then the je made two nops (another shape: the instructions after it
 * start elsewhere) for a round, and put back.  The exit status says
 * whether every round ran the code as it was then (0: it did). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

void oracle_begin(void) { __asm__ volatile("" ::: "memory"); }
void oracle_end(void) { __asm__ volatile("" ::: "memory"); }

/* int patchme(int n, int *konst): the sum of the odd i < n (even ones
 * once the je is a jne); *konst = 0x11223344 (0x11223399 patched) */
int patchme(int n, int *konst);
extern unsigned char patch_jcc[], patch_imm[];
__asm__(".text\n"
	".globl patchme\n.type patchme,@function\n"
	"patchme:\n"
	"  xor %eax,%eax\n  xor %ecx,%ecx\n"
	"1: cmp %edi,%ecx\n  jge 3f\n  test $1,%cl\n"
	".globl patch_jcc\npatch_jcc:\n  je 2f\n"	/* (short: 74 xx) */
	"  add %ecx,%eax\n"
	"2: inc %ecx\n  jmp 1b\n"
	"3:\n.globl patch_imm\npatch_imm:\n  movl $0x11223344,(%rsi)\n  ret\n"
	".size patchme, .-patchme\n");

int main(void) {
  uintptr_t page = (uintptr_t)patch_jcc & ~(uintptr_t)4095;
  int k[6] = { 0 }, sum[6], fd;
  unsigned char b55 = 0x55, jcc[2];

  oracle_begin();
  sum[0] = patchme(40, &k[0]);
  if (mprotect((void *)page, 8192, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
    return 2;
  *(volatile unsigned char *)patch_jcc = 0x75;
  *(volatile unsigned char *)(patch_imm + 2) = 0x99;
  sum[1] = patchme(40, &k[1]);		/* in a writable page */
  mprotect((void *)page, 8192, PROT_READ | PROT_EXEC);
  sum[2] = patchme(40, &k[2]);		/* read-only again */
  mprotect((void *)page, 8192, PROT_READ | PROT_WRITE | PROT_EXEC);
  *(volatile unsigned char *)patch_jcc = 0x74;
  mprotect((void *)page, 8192, PROT_READ | PROT_EXEC);
  sum[3] = patchme(40, &k[3]);
  /* through /proc/self/mem, the page read-only */
  if ((fd = open("/proc/self/mem", O_RDWR)) < 0 ||
      pwrite(fd, &b55, 1, (off_t)(uintptr_t)(patch_imm + 2)) != 1)
    return 2;
  close(fd);
  sum[4] = patchme(40, &k[4]);
  /* another shape: the je gone (two nops), then back */
  mprotect((void *)page, 8192, PROT_READ | PROT_WRITE | PROT_EXEC);
  jcc[0] = patch_jcc[0];
  jcc[1] = patch_jcc[1];
  ((volatile unsigned char *)patch_jcc)[0] = 0x90;
  ((volatile unsigned char *)patch_jcc)[1] = 0x90;
  sum[5] = patchme(40, &k[5]);
  ((volatile unsigned char *)patch_jcc)[0] = jcc[0];
  ((volatile unsigned char *)patch_jcc)[1] = jcc[1];
  mprotect((void *)page, 8192, PROT_READ | PROT_EXEC);
  oracle_end();
  for (int i = 0; i < 6; i++)
    printf("sum=%d konst=%x\n", sum[i], k[i]);
  return sum[0] == 400 && k[0] == 0x11223344 && sum[1] == 380 && k[1] == 0x11223399 &&
         sum[2] == 380 && k[2] == 0x11223399 && sum[3] == 400 && k[3] == 0x11223399 &&
         sum[4] == 400 && k[4] == 0x11223355 && sum[5] == 780 && k[5] == 0x11223355 ? 0 : 1;
}
