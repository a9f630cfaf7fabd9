/* plugin.c: the shared library tests/programs/dlopen loads. */
int plugin_twice(int x) {
  return 2 * x;
}
