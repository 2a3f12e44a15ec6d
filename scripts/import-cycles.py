#!/usr/bin/env python3
"""Lists import circles between the files of src/ (a file imports another
when it names a path into it: `use crate::a::b`, `super::b`, `self::b`).
Exit 1 when there is a circle; docs/architecture.md says there is none."""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def module_of(path):
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


files = {}
for dirpath, _, names in os.walk(ROOT):
    for name in names:
        if name.endswith(".rs"):
            path = os.path.join(dirpath, name)
            files[module_of(path)] = path
modules = set(files)


def resolve(base, parts):
    """The longest known module that the path parts name."""
    for n in range(len(parts), 0, -1):
        cand = tuple(base) + tuple(parts[:n])
        if cand in modules:
            return cand
    return None


def strip_tests(text):
    # Test modules may import anything of their parent.
    at = text.find("#[cfg(test)]\nmod tests")
    return text if at < 0 else text[:at]


edges = {m: set() for m in modules}
path_re = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
for mod, path in files.items():
    text = strip_tests(open(path).read())
    # Comments name paths without importing them.
    text = re.sub(r"//[^\n]*", "", text)
    is_dir_mod = os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")
    # Expand `use x::{a, b::c}` groups one level, enough for this crate.
    text = re.sub(r"((?:crate|super|self)(?:::\w+)*)::\{([^{}]*)\}",
                  lambda m: " ".join(f"{m.group(1)}::{p.strip()}" for p in m.group(2).split(",") if p.strip()), text)
    for head, rest in path_re.findall(text):
        parts = [p for p in rest.split("::") if p]
        if head == "crate":
            base = ()
        else:
            base = list(mod if is_dir_mod else mod[:-1])
            if head == "super":
                while parts and parts[0] == "super":
                    parts.pop(0)
                    base = base[:-1]
                base = base[:-1] if is_dir_mod else base
            target = None
        target = resolve(base, parts)
        if target and target != mod and not (mod[:len(target)] == target):
            edges[mod].add(target)

# Tarjan's strongly connected components.
index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
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
            out.append(comp)


for v in sorted(modules):
    if v not in index:
        visit(v)
for comp in out:
    print("circle:", ", ".join("::".join(c) or "crate" for c in sorted(comp)))
print(f"{len(modules)} files, {sum(len(e) for e in edges.values())} imports, {len(out)} circle(s)")
sys.exit(1 if out else 0)
