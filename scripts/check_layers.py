#!/usr/bin/env python3
"""The layer rule, checked (ctest layers.includes; docs/architecture.md).

sim/ has one folder per layer. A file may include only from its own folder and from the
folders below it:

    base < engine < model < profiles < io, process < run < analysis < cli

io and process are side by side: neither includes the other. Includes of our own headers
name their folder (#include "model/backend.h"). Besides:
- a test (*_test.cpp) may also use testing/ and every layer up to run/ as its harness;
  testing/ is for tests only;
- base, model and profiles include no nlohmann_json, Boost or <filesystem>, and engine
  no nlohmann_json or <filesystem> (its Asio runtime, a library of its own, may use Asio);
- the viewer's reader includes only base/ of the simulator, its widgets also the reader;
  bench/ may include any layer;
- no circle of files: a unit (a .h with its .cpp) never includes, through others, a unit
  that includes it (tests left out: nothing includes them; a header with no .cpp of its
  own is part of the units that include it).

    scripts/check_layers.py SOURCE_DIR     # exit 1 and one line per broken include
"""

import os
import re
import sys

RANK = {"base": 0, "engine": 1, "model": 2, "profiles": 3, "io": 4, "process": 4, "run": 5,
        "analysis": 6, "cli": 7}
TEST_HARNESS_RANK = RANK["run"]
THIRD_PARTY = {
    "base": ("nlohmann/", "boost/", "filesystem"),
    "engine": ("nlohmann/", "boost/", "filesystem"),
    "model": ("nlohmann/", "boost/", "filesystem"),
    "profiles": ("nlohmann/", "boost/", "filesystem"),
}
# Where the engine may use Asio: the real-time runtime (library drainsim_realtime).
ASIO_ALLOWED = {"sim/engine/asio_runtime.h", "sim/engine/asio_runtime.cpp",
                "sim/engine/asio_runtime_test.cpp", "sim/engine/job_runner_test.cpp"}
# Includes that break the rule today, each with the step that removes it. An entry that no
# longer matches anything is an error too, so the list only ever shrinks.
KNOWN = {}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SOURCE = (".h", ".cpp")


def files_under(root, folder):
    for dirpath, _, names in os.walk(os.path.join(root, folder)):
        for n in sorted(names):
            if n.endswith(SOURCE):
                yield os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/")


def includes(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        text = f.read()
    for m in INCLUDE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        yield line, m.group(1) == '"', m.group(2)


def check_sim(root, rel, used_known):
    parts = rel.split("/")
    folder = parts[1] if len(parts) > 2 else None
    is_test = rel.endswith("_test.cpp")
    errors = []
    if folder not in RANK and folder != "testing":
        return [f"{rel}: not in a layer folder ({', '.join(RANK)} or testing)"]
    for line, quoted, name in includes(root, rel):
        shown = f'"{name}"' if quoted else f"<{name}>"
        where = f"{rel}:{line}: #include {shown}"
        if not quoted:
            if (rel, name) in KNOWN:
                used_known.add((rel, name))
                continue
            banned = THIRD_PARTY.get(folder, ())
            if any(name.startswith(b) for b in banned):
                if name.startswith("boost/asio") and rel in ASIO_ALLOWED:
                    continue
                errors.append(f"{where}: the {folder} layer uses no {name.split('/')[0]}")
            continue
        if name.endswith(".moc"):
            continue
        if "/" not in name:
            errors.append(f"{where}: name the folder (#include \"{folder}/{name}\")")
            continue
        target = name.split("/")[0]
        if target == "testing":
            if not is_test and folder != "testing":
                errors.append(f"{where}: testing/ is for tests only")
            continue
        if target not in RANK:
            errors.append(f"{where}: {target}/ is not a layer")
            continue
        if folder == "testing":
            if RANK[target] > TEST_HARNESS_RANK:
                errors.append(f"{where}: test helpers use layers up to run/ only")
            continue
        if target == folder or RANK[target] < RANK[folder]:
            continue
        if is_test and RANK[target] <= TEST_HARNESS_RANK:
            continue
        side = "sideways" if RANK[target] == RANK[folder] else "upward"
        errors.append(f"{where}: {folder}/ may not include {target}/ ({side})")
    return errors


def check_viewer(root, rel):
    # viewer/reader/ (or the flat viewer/ of old) may include base/ only; viewer/widgets/
    # also the reader. Local includes name no sim/ folder.
    errors = []
    for line, quoted, name in includes(root, rel):
        if not quoted or "/" not in name:
            continue
        target = name.split("/")[0]
        if target in ("reader", "widgets"):
            if target == "widgets" and "/reader/" in rel:
                errors.append(f"{rel}:{line}: #include \"{name}\": the reader includes no widget")
            continue
        if target != "base":
            errors.append(f"{rel}:{line}: #include \"{name}\": the viewer uses only base/ of "
                          "the simulator")
    return errors


def unit_of(rel):
    return rel.rsplit(".", 1)[0]


def circles(root):
    """Each circle of units (sim/run/models: models.h with models.cpp) as a list of units.

    A header with no .cpp of its own (a folder's shared internals, such as
    viewer/reader/reader_internal.h) is part of every unit that includes it: its includes
    count as theirs."""
    direct = {}
    for top in ("sim", "viewer"):
        for rel in files_under(root, top):
            if rel.endswith("_test.cpp"):
                continue
            out = direct.setdefault(unit_of(rel), set())
            for _, quoted, name in includes(root, rel):
                if not quoted or "/" not in name or name.endswith(".moc"):
                    continue
                if os.path.exists(os.path.join(root, f"{top}/{name}")):
                    out.add(unit_of(f"{top}/{name}"))
    compiled = {u for u in direct if os.path.exists(os.path.join(root, u + ".cpp"))}

    def reach(unit, seen):
        # The compiled units `unit` includes, through header-only ones.
        found = set()
        for t in direct.get(unit, ()):
            if t in compiled:
                found.add(t)
            elif t not in seen:
                seen.add(t)
                found |= reach(t, seen)
        return found

    edges = {u: reach(u, {u}) - {u} for u in sorted(compiled)}
    # Tarjan's strongly connected components; a component of two units or more is a circle.
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def check(root):
    errors = []
    used_known = set()
    for rel in files_under(root, "sim"):
        errors += check_sim(root, rel, used_known)
    for rel in files_under(root, "viewer"):
        errors += check_viewer(root, rel)
    for circle in circles(root):
        errors.append(f"a circle of files: {' -> '.join(circle)} include each other (merge them, "
                      "or move what both need into a unit of its own)")
    for key in sorted(set(KNOWN) - used_known):
        errors.append(f"{key[0]}: no longer includes <{key[1]}>: remove it from KNOWN in "
                      "scripts/check_layers.py")
    return errors


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else ".")
    errors = check(root)
    for e in errors:
        print(e)
    if errors:
        print(f"layers: {len(errors)} includes break the layer rule (scripts/check_layers.py)")
        return 1
    print(f"layers: every include follows the rule ({len(KNOWN)} known exceptions)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
