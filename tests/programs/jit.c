/* jit.c: runs code it wrote into anonymous executable memory, as a JIT does
 * (the trace must decode it live and from a saved bundle). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void) {
  /* mov $3,%ecx; xor %eax,%eax; 1: add $7,%eax; dec %ecx; jnz 1b; ret */
  static const unsigned char code[] = { 0xb9, 0x03, 0x00, 0x00, 0x00, 0x31, 0xc0,
                                        0x83, 0xc0, 0x07, 0xff, 0xc9, 0x75, 0xf9, 0xc3 };
  void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return 1;
  memcpy(mem, code, sizeof(code));
  int (*fn)(void) = (int (*)(void))mem;
  printf("%d\n", fn());
  return 0;
}
