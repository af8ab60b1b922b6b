#!/usr/bin/env python3
"""The map cannot go stale (ctest docs.architecture_map; docs/architecture.md).

docs/architecture.md is where someone new finds their way. This check fails when the code
has something the map does not name:
- every source file of sim/, viewer/, bench/ and fuzz/ but the tests (*_test.cpp): by its name in
  a code span, with or without its folder and extension (`run/models.h`, `models.cpp`,
  `models`; a .h and its .cpp are one concept, so naming either names both);
- every folder of sim/ and viewer/ that holds source files (`run/`, `viewer/reader/`);
- every entry point: each program CMake builds outside the tests (`drainsim`,
  `drainsim-worker`, `drainsim-viewer`, the benchmarks), and each subcommand of drainsim
  (`drainsim NAME`, or NAME in a code span);
and when the map names a file that is not there any more.

    scripts/check_map.py SOURCE_DIR     # exit 1 and one line per thing not on the map
"""

import os
import re
import sys

MAP = "docs/architecture.md"
SOURCE = (".h", ".cpp")
CODE = re.compile(r"`([^`\n]+)`")
PROGRAM = re.compile(r"^\s*(?:add_executable|qt_add_executable)\(\s*([A-Za-z0-9_\-]+)(\$?)", re.M)
SUBCOMMAND = re.compile(r'subcommand\(\s*app,\s*"([a-z\-]+)"')
HELP = re.compile(r'add_subcommand\(\s*"([a-z\-]+)"')


def sources(root):
    for top in ("sim", "viewer", "bench", "fuzz"):
        for dirpath, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d != "testdata")
            for n in sorted(names):
                if n.endswith(SOURCE) and not n.endswith("_test.cpp"):
                    yield os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/")


def spans(text):
    """Every name a code span gives: the span, its words, and each path's last parts."""
    named = set()
    for m in CODE.finditer(text):
        for word in re.split(r"[\s,;()=<>\"']+", m.group(1)):
            word = word.strip(".:*")
            if not word:
                continue
            parts = word.strip("/").split("/")
            for i in range(len(parts)):
                named.add("/".join(parts[i:]))
    return named


def programs(root):
    out = set()
    for dirpath, _, names in os.walk(root):
        if "CMakeLists.txt" not in names or "/build" in dirpath or "node_modules" in dirpath:
            continue
        with open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8") as f:
            for name, templated in PROGRAM.findall(f.read()):
                if not name.endswith("_test") and not templated:  # fuzz_${name}: the targets
                    out.add(name)
    return out


def subcommands(root):
    out = set()
    cli = os.path.join(root, "sim", "cli")
    for n in sorted(os.listdir(cli)):
        if n.endswith(".cpp") and not n.endswith("_test.cpp"):
            with open(os.path.join(cli, n), encoding="utf-8") as f:
                text = f.read()
            out.update(SUBCOMMAND.findall(text))
            out.update(HELP.findall(text))
    return out


def check(root):
    path = os.path.join(root, MAP)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    named = spans(text)
    stems = {re.sub(r"\.(h|cpp)$", "", n) for n in named}  # models.h names models.cpp too
    errors = []
    folders = set()
    for rel in sources(root):
        folder = os.path.dirname(rel)
        folders.add(folder)
        base = os.path.basename(rel)
        stem = base.rsplit(".", 1)[0]
        inner = rel.split("/", 1)[1]  # run/models.h: as includes name it
        if not ({stem, inner.rsplit(".", 1)[0]} & stems):
            errors.append(f"{rel}: named nowhere in {MAP} (say what it is where its folder is)")
    for folder in sorted(folders):
        short = folder.split("/", 1)[1] if folder.startswith("sim/") else folder
        if not ({short + "/", folder + "/", short, folder} & named):
            errors.append(f"{folder}/: a folder named nowhere in {MAP}")
    for program in sorted(programs(root)):
        if program not in named:
            errors.append(f"{program}: a program CMake builds, named nowhere in {MAP}")
    for command in sorted(subcommands(root)):
        if command not in named and f"drainsim {command}" not in text:
            errors.append(f"drainsim {command}: a subcommand named nowhere in {MAP}")
    # A file the map names as a path must exist (a stale path is a wrong map).
    for m in CODE.finditer(text):
        word = m.group(1).strip()
        if re.fullmatch(r"(sim/|viewer/|bench/|scripts/)?[a-z_]+/[a-z_/]+\.(h|cpp|py)", word):
            candidates = [word] if word.startswith(("sim/", "viewer/", "bench/", "scripts/")) \
                else [f"sim/{word}", f"viewer/{word}", word]
            if not any(os.path.exists(os.path.join(root, c)) for c in candidates):
                errors.append(f"{MAP}: names `{word}`, which is not there")
    return errors


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else ".")
    errors = check(root)
    for e in errors:
        print(e)
    if errors:
        print(f"map: {MAP} is stale: {len(errors)} finding(s) above (scripts/check_map.py)")
        return 1
    print(f"map: {MAP} names every source file, folder, program and subcommand")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
