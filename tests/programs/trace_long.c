/* A long straight-line loop: many instructions per traced branch, so a
 * trace of millions of instructions records in about a second (the REPL's
 * Ctrl-C test interrupts dumping it). */
volatile unsigned sink;

int main(void)
{
  unsigned a = 1, b = 2, c = 3, d = 4;

  for (int i = 0; i < 150000; i++) {
    a = a * 3 + b;
    b ^= a >> 3;
    c += a + b;
    d ^= c << 1;
    a += d;
    b -= c;
    c ^= d >> 2;
    d += a ^ b;
  }
  sink = a + b + c + d;
  return 0;
}
