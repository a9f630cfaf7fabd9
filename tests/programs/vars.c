/* vars.c: data for frame variable / target variable / expression. */
#include <stdio.h>
#include <string.h>

enum color { RED, GREEN = 5, BLUE };

struct point { int x, y; };

struct node {
  int val;
  struct node *next;
};

typedef struct {
  char name[8];
  const char *label;
  unsigned flags : 3;
  unsigned mode : 5;
  enum color c;
  struct point pts[2];
  union { int i; float f; } u;
  double d;
  int grid[2][3];
  int (*op)(int, int);
  _Bool ok;
} record;

int counter = 7;
static long total = -3;
const char *greeting = "hi there";
struct point origin = { 1, 2 };

__attribute__((noinline)) int add(int a, int b) {
  int s = a + b;
  counter += s;
  return s;
}

__attribute__((noinline)) int walk(struct node *head, record *r) {
  int sum = 0;
  for (struct node *p = head; p; p = p->next)
    sum += p->val;
  r->d = sum / 2.0;
  return sum + r->pts[1].y;
}

int main(int argc, char **argv) {
  struct node n3 = { 3, NULL }, n2 = { 2, &n3 }, n1 = { 1, &n2 };
  record rec;
  memset(&rec, 0, sizeof(rec));
  strcpy(rec.name, "rec");
  rec.label = "a label";
  rec.flags = 5;
  rec.mode = 17;
  rec.c = GREEN;
  rec.pts[1].y = 40;
  rec.u.i = 65;
  rec.grid[1][2] = 9;
  rec.op = add;
  rec.ok = 1;
  char ch = 'z';
  int r = add(argc, 2);
  int w = walk(&n1, &rec);
  total += r + w + ch;
  printf("%d %d %ld %s\n", r, w, total, argv[0]);
  return 0;
}
