"""The rooms of the code stay layered (issue 25): no room includes a header
of a room above it, no room calls a function of a room above it, and no
circle of includes or calls runs between rooms.

From the top: cmd/, then core/'s rooms session/, tracing/, collectors/,
data/, symbols/ (core/README), then the libraries' rooms target/, trace/,
disasm/ and base/ under everything.  The includes are read from the
sources (#include "room/..."); the calls from the built objects (nm: a
symbol one room's object needs and another room's object defines), so
'make check' builds first.  A lower room gets what it needs of a higher
one handed to it (core/collectors/collector.h's struct dbg_host,
core/data/value.h's struct value_env, core/tracing/dbg_trace_int.h's
struct dbg_trace_host).

KNOWN lists the includes that still go up, each to be cut (then removed
from here: an entry that no longer occurs fails too, so the list only
shrinks).
"""
import collections
import glob
import os
import re
import subprocess

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Higher rank: higher room.  The four libraries' rooms share the bottom:
# between them the rule is only that none of them includes core/ or cmd/.
RANK = {"cmd": 6, "session": 5, "tracing": 4, "collectors": 3, "data": 2, "symbols": 1,
        "target": 0, "trace": 0, "disasm": 0, "base": 0}

# What each room must never include besides the rooms above it (the
# rooms' READMEs): symbols/ is the only user of libdwarf and libelf and
# sits on base/ alone.
NEVER = {"symbols": {"target", "trace", "disasm"}}

# Up-includes not cut yet (none: the trace session's state is its own
# struct dbg_tracing, core/tracing/tracing.h, which struct dbg begins with).
KNOWN = set()


def room_of(path):
    """The room of a repository path ("core/data/expr.c" -> "data"), or None."""
    parts = path.split("/")
    if parts[0] == "core" and len(parts) > 2:
        return parts[1]
    return parts[0] if parts[0] in RANK and len(parts) > 1 else None


def sources():
    pats = ["core/*/*.[ch]", "cmd/*.[ch]", "base/*.[ch]", "target/*.[ch]", "trace/*.[ch]",
            "disasm/*.[ch]"]
    for pat in pats:
        for p in sorted(glob.glob(os.path.join(ROOT, pat))):
            yield os.path.relpath(p, ROOT)


def includes():
    """(file, header) for every #include "room/..." of the sources."""
    out = []
    for f in sources():
        with open(os.path.join(ROOT, f), errors="replace") as fh:
            for line in fh:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m and room_of(m.group(1)):
                    out.append((f, m.group(1)))
    return out


def goes_up(a, b):
    """Whether room a depending on room b breaks the layering."""
    if a == b:
        return False
    if b in NEVER.get(a, ()):
        return True
    return RANK[b] > RANK[a]


def cycles(edges):
    """The strongly connected components of more than one room."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check_includes():
    inc = includes()
    up, seen_known = [], set()
    edges = collections.defaultdict(set)
    for f, h in inc:
        a, b = room_of(f), room_of(h)
        if a == b:
            continue
        if (f, h) in KNOWN:
            seen_known.add((f, h))
            continue
        edges[a].add(b)
        if goes_up(a, b):
            up.append("%s includes %s (%s above %s)" % (f, h, b, a))
    name = "layers: no room includes a header of a room above it"
    results.fail(name, "\n".join(up)) if up else results.ok(name + " (%d includes)" % len(inc))
    stale = sorted(KNOWN - seen_known)
    name = "layers: every known up-include still occurs (else drop it from KNOWN)"
    results.fail(name, "\n".join("%s -> %s" % k for k in stale)) if stale else results.ok(name)
    circ = cycles(edges)
    name = "layers: no include circle between rooms"
    results.fail(name, "\n".join(" <-> ".join(c) for c in circ)) if circ else results.ok(name)


def nm_symbols(obj):
    p = subprocess.run(["nm", obj], capture_output=True, text=True)
    defined, needed = set(), set()
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRVW":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            needed.add(f[1])
    return defined, needed


def check_calls():
    name = "layers: no room calls into a room above it, no call circle between rooms"
    objs = []
    for pat in ["core/*/*.o", "cmd/*.o", "base/*.o", "target/*.o", "trace/*.o", "disasm/*.o"]:
        objs += sorted(glob.glob(os.path.join(ROOT, pat)))
    if not objs:
        results.fail(name, "no objects: build first (make ptdb)")
        return
    owner, need = {}, {}
    for o in objs:
        rel = os.path.relpath(o, ROOT)
        if rel == "cmd/main.o":
            continue
        d, n = nm_symbols(o)
        for s in d:
            owner[s] = rel
        need[rel] = n
    edges = collections.defaultdict(set)
    up = []
    for rel, syms in sorted(need.items()):
        for s in sorted(syms):
            if s not in owner:
                continue
            a, b = room_of(rel), room_of(owner[s])
            if a == b:
                continue
            edges[a].add(b)
            if goes_up(a, b):
                up.append("%s calls %s (%s, %s above %s)" % (rel[:-2] + ".c", s,
                                                            owner[s][:-2] + ".c", b, a))
    circ = cycles(edges)
    why = up + ["circle: " + " <-> ".join(c) for c in circ]
    results.fail(name, "\n".join(why)) if why else results.ok(name + " (%d objects)" % len(objs))


def run_all():
    check_includes()
    check_calls()


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
