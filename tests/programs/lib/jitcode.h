/* jitcode.h: the code the JIT fixtures write, round after round: a loop
 * count, an addend and a branch's condition that change, so stale code
 * computes another result, and a shape that changes too (round % 3 one-byte
 * nops first: every instruction moves), so a trace decoded against
 * another round's bytes goes wrong; int3s after the code.
 *   [nop...] mov $n,%ecx; xor %eax,%eax; 1: add $k,%eax; dec %ecx; jnz 1b;
 *   test $1,%al; je/jne 2f; add $100,%eax; 2: ret */
#include <string.h>

enum { JIT_LEN = 32 };

static void jit_code(unsigned char *p, int round)
{
  int pad = round % 3;

  static const unsigned char t[24] = { 0xb9, 0, 0, 0, 0, 0x31, 0xc0, 0x05, 0, 0, 0, 0,
                                            0xff, 0xc9, 0x75, 0xf7, 0xa8, 0x01, 0x74, 0x03,
                                            0x83, 0xc0, 0x64, 0xc3 };
  int n = 3 + round, k = 7 + 2 * round;

  memset(p, 0xcc, JIT_LEN);
  memset(p, 0x90, pad);
  p += pad;
  memcpy(p, t, sizeof(t));
  memcpy(p + 1, &n, 4);
  memcpy(p + 8, &k, 4);
  p[18] = round & 1 ? 0x75 : 0x74;
}

/* What round's code returns. */
static int jit_expect(int round)
{
  int v = (3 + round) * (7 + 2 * round);
  int skip = round & 1 ? (v & 1) != 0 : (v & 1) == 0;

  return skip ? v : v + 100;
}
