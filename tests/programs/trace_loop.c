int main() {
  int ret = 0;

  for (int i = 0; i < 4; i++)
    ret ^= 1;

  return ret;
}
