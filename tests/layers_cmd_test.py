"""Layers of cmd/ and core/symbols/: no circles, cmd/ on core's types only.

  L1  no file of cmd/ includes, directly or through other headers, a header
      of trace/ (cmd/ sees the cursor, the call tree and the trace figures
      as core's own types: core/tracing/cursor.h, calls.h, trace_info.h)
  L2  no call circle between the files of cmd/: a file's undefined
      symbols (nm of its .o) resolved to the file that defines them give
      the edges; every strongly connected component has one file
  L3  no include circle between the modules of cmd/ (x.c and x.h are one
      module; an edge where a module's files include another's header)
  L4, L5  the same two for core/symbols/

Run alone: python3 tests/layers_cmd_test.py [-v] (after make ptdb): prints
the circles found.  run_all() is the suite run-all.py calls.
"""
import os
import re
import subprocess
import sys

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(room, exts=(".c", ".h")):
    d = os.path.join(ROOT, room)
    return sorted(room + "/" + f for f in os.listdir(d) if f.endswith(exts))


def includes(path):
    """The quoted includes of path (repository-relative, as -I. finds them)."""
    try:
        with open(os.path.join(ROOT, path)) as f:
            text = f.read()
    except OSError:
        return []
    return [i for i in INCLUDE.findall(text) if os.path.exists(os.path.join(ROOT, i))]


def reaches(path, want):
    """The first include chain from path to a header that want(header) accepts."""
    seen = set()
    stack = [(path, [path])]
    while stack:
        f, chain = stack.pop()
        for h in includes(f):
            if want(h):
                return chain + [h]
            if h not in seen:
                seen.add(h)
                stack.append((h, chain + [h]))
    return None


def sccs(graph):
    """Tarjan's strongly connected components of {node: set(nodes)}."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def circles(graph):
    return [c for c in sccs(graph) if len(c) > 1 or c[0] in graph.get(c[0], ())]


def nm_symbols(obj):
    p = subprocess.run(["nm", obj], capture_output=True, text=True)
    if p.returncode != 0:
        raise OSError(p.stderr.strip() or "nm failed on " + obj)
    defined, undefined = set(), set()
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRVWG":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def call_graph(room):
    """{file.c: set(file.c it calls or reads)} from nm of the room's objects."""
    objs = {}
    for src in sources(room, (".c",)):
        obj = os.path.join(ROOT, src[:-2] + ".o")
        if not os.path.exists(obj):
            raise OSError("%s is not built (make ptdb first)" % (src[:-2] + ".o"))
        objs[src] = nm_symbols(obj)
    owner = {}
    for src, (defined, _) in objs.items():
        for s in defined:
            owner[s] = src
    graph = {}
    for src, (_, undefined) in objs.items():
        graph[src] = {owner[s] for s in undefined if s in owner and owner[s] != src}
    return graph


def module(path):
    return os.path.splitext(path)[0]


def include_graph(room):
    """{module: set(modules whose header it includes)}; x.c and x.h are one."""
    graph = {}
    for f in sources(room):
        m = module(f)
        graph.setdefault(m, set())
        for h in includes(f):
            if os.path.dirname(h) == room and module(h) != m:
                graph[m].add(module(h))
    return graph


def describe(graph, comp):
    """The edges inside one circle, one line each."""
    lines = []
    members = set(comp)
    for v in comp:
        inside = sorted(graph[v] & members)
        if inside:
            lines.append("%s -> %s" % (v, ", ".join(inside)))
    return "\n".join(lines)


def check_circles(name, graph):
    found = circles(graph)
    if found:
        results.fail(name, "\n".join("circle of %d: %s\n%s" % (len(c), " ".join(c), describe(graph, c))
                                     for c in found))
    else:
        results.ok("%s (%d files)" % (name, len(graph)))


def check_no_trace_headers():
    bad = []
    for f in sources("cmd"):
        chain = reaches(f, lambda h: h.startswith("trace/"))
        if chain:
            bad.append(" -> ".join(chain))
    if bad:
        results.fail("L1 cmd/ includes no trace/ header", "\n".join(bad))
    else:
        results.ok("L1 cmd/ includes no trace/ header")


def run_all():
    check_no_trace_headers()
    for tag, room in (("L2", "cmd"), ("L4", "core/symbols")):
        try:
            check_circles("%s no call circle in %s/" % (tag, room), call_graph(room))
        except OSError as e:
            results.fail("%s no call circle in %s/" % (tag, room), str(e))
    for tag, room in (("L3", "cmd"), ("L5", "core/symbols")):
        check_circles("%s no include circle in %s/" % (tag, room), include_graph(room))


if __name__ == "__main__":
    run_all()
    sys.exit(results.summary())
