/* dlopen.c: loads tests/programs/libplugin.so at run time and calls it. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  char path[4096];
  const char *slash = strrchr(argv[0], '/');
  int dir = slash ? (int)(slash - argv[0]) : 1;

  (void)argc;
  snprintf(path, sizeof(path), "%.*s/libplugin.so", dir, slash ? argv[0] : ".");
  void *h = dlopen(path, RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*fn)(int) = (int (*)(int))dlsym(h, "plugin_twice");
  printf("%d\n", fn(21));
  dlclose(h);
  return 0;
}
