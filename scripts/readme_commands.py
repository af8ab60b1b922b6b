#!/usr/bin/env python3
"""Runs the commands of README.md as written, so a command that fails as written fails CI
(ctest docs.readme_commands).

usage: readme_commands.py DRAINSIM_BINARY SOURCE_DIR [--viewer VIEWER_BINARY]
                          [--readme FILE] [--list] [--timeout SECONDS]

Which blocks. A fenced block opened with ```sh, ```bash or ```shell holds commands; in a
```console block the commands are the lines that start with "$ " (the rest is output).
Other fenced blocks (plain ```, ```json, ...) are output or code and are not read. An HTML
comment `<!-- not tested: REASON -->` on the lines just before a block (blank lines may
separate them) skips the whole block; the reason is required and printed (a marker with no
reason is an error).

Which lines. Blank lines and lines starting with "#" are not commands. A command starts at
column 0; a line after one that ends in "\\", or an indented line, continues it. The
command's text goes to bash unchanged (so an indented line with no "\\" before it runs, and
fails, as it would in a terminal). A trailing comment may declare the exit status the
command is expected to give, `# ... exit N ...` (e.g. conformance on a profile that fails
checks exits 1); otherwise the command must exit 0.

What is not run, each listed with its reason (first rule that matches):
  - usage synopses: a command that names the program bare (`drainsim`, `drainsim-viewer`,
    not `build/sim/drainsim`) and has an optional group `[...]` or a placeholder in
    capitals (SCENARIO, PART..., FILE). A command written with the build path is always
    run, so a real command with a placeholder in it fails rather than being skipped;
  - `scripts/setup.sh`: installs Debian packages as root and builds (network, minutes);
  - `scripts/package.sh`: builds the project twice, trains and packages it (minutes);
  - apt, apt-get, dpkg, sudo, npm: install system or network packages;
  - cmake, ctest, cpack, ninja, make: build, install or test the project; this test runs
    against the build it is part of, and an install writes outside any temporary folder;
  - `drainsim real` and `--engines ...real...`: need the real job systems and brokers
    (Redis, RabbitMQ, PostgreSQL, Sidekiq, ...) that scripts/setup.sh installs;
  - `drainsim-viewer` without --render (or --help/--version): opens a window that waits
    for a person to close it;
  - `drainsim-viewer` when no --viewer is given (the viewer is not built).

Rewrites (small seeds and grids, so the whole README runs in about half a minute), applied
to commands that run drainsim, each printed beside the command when it applies; nothing
else about a command is changed:
  R1 `--seeds N` with N > 2 becomes `--seeds 2`;
  R2 `--repeats N` with N > 1 becomes `--repeats 1`;
  R3 `sweep`, `compare` and `fidelity` with no `--seeds` get `--seeds 2` after the
     subcommand (their default is 10); `fidelity` with no `--repeats` gets `--repeats 1`
     (default 3 real-time runs per engine);
  R4 `--grid PATH=START..END/STEP` becomes `--grid PATH=START,END` (the range's two ends),
     and `--grid PATH=V1,V2,V3,...` keeps its first two values.
Only the size of the work changes, never whether a command can succeed: these commands
exit non-zero only on bad input or a failed audit. `tune` is the exception and runs with
its own seeds (R1 and R3 leave a command with `drainsim tune` alone): it recommends the
least setting whose 95 % upper bound meets the targets, and over 2 seeds that bound is so
wide that nothing meets them (exit 1). The README's tune takes under a second as written.

Where. Each block runs in a fresh temporary folder holding a copy of SOURCE_DIR (without
.git and build folders: any top-level folder with a CMakeCache.txt or named build*), so
relative paths (scenarios/..., examples/..., results/...) resolve and nothing is ever
written into the source tree. In it, build/sim is a link to DRAINSIM_BINARY's folder and
build/viewer to VIEWER_BINARY's (the only paths through which a command could write into
the build), so `build/sim/drainsim` works as written; both folders
are also first on PATH, so a bare `drainsim` works too. The commands of a block run in
order in the same folder (a later one may read what an earlier one wrote), each with
`bash -e -o pipefail -c`, stdin from /dev/null, QT_QPA_PLATFORM=offscreen, and a timeout.

Output: each command as run, then its exit status and time, and on failure the tail of its
stderr (stdout when stderr is empty). Exit 0 when every command that ran gave its expected
status, 1 otherwise (or on a marker without a reason), 2 on bad usage. --list prints what
would run (with the rewrites) and what is skipped and why, and runs nothing.
"""

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

SHELL_LANGS = {"sh", "bash", "shell"}
CONSOLE_LANGS = {"console"}
MARKER = re.compile(r"^\s*<!--\s*not tested\b\s*:?\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]+(\.\.\.)?$")
EXPECTED_EXIT = re.compile(r"\bexit (\d+)\b")
DEFAULT_TIMEOUT_S = 300
TAIL_LINES = 20

SMALL_SEEDS = 2
SMALL_REPEATS = 1
SEEDED_SUBCOMMANDS = ("sweep", "compare", "fidelity")
OWN_SEEDS = re.compile(r"(^|[\s/;|&(])drainsim\s+tune\b")  # see the module doc

PROGRAMS = {"drainsim", "drainsim-viewer"}
INSTALLERS = {"apt", "apt-get", "dpkg", "sudo", "npm"}
BUILD_TOOLS = {"cmake", "ctest", "cpack", "ninja", "make"}

REASON_SYNOPSIS = "a usage synopsis (bare program name with [options] or PLACEHOLDERS)"
REASON_SETUP = ("scripts/setup.sh installs Debian packages as root and builds "
                "(network, minutes)")
REASON_PACKAGE = ("scripts/package.sh builds the project twice, trains and packages it "
                  "(minutes)")
REASON_INSTALL = "installs system or network packages"
REASON_BUILD = ("builds, installs or tests the project: this test runs against the build "
                "it is part of")
REASON_REAL = ("needs the real job systems and brokers (Redis, RabbitMQ, PostgreSQL, "
               "Sidekiq, ...) that scripts/setup.sh installs")
REASON_WINDOW = "opens the viewer's window, which waits for a person to close it"
REASON_NO_VIEWER = "the viewer is not built (no --viewer given)"


@dataclass
class Command:
    line: int   # 1-based line in the Markdown file
    text: str   # as written (continuation lines joined with their newlines)


@dataclass
class Block:
    line: int                  # the opening fence's line
    lang: str
    skip_reason: str | None    # from a `<!-- not tested: ... -->` marker
    commands: list = field(default_factory=list)


class MarkdownError(Exception):
    """The Markdown breaks a rule of this script (a marker without a reason, ...)."""


def extract(markdown):
    """The shell blocks of a Markdown text, with their commands (see the module doc)."""
    lines = markdown.split("\n")
    blocks = []
    errors = []
    pending_marker = None  # (line, reason) of a marker waiting for its block
    i = 0
    while i < len(lines):
        text = lines[i]
        m = MARKER.match(text)
        if m:
            if not m.group(1):
                errors.append(f"line {i + 1}: `<!-- not tested -->` needs a reason: "
                              "`<!-- not tested: REASON -->`")
            pending_marker = (i + 1, m.group(1))
            i += 1
            continue
        fence = FENCE.match(text)
        if not fence:
            if text.strip() and pending_marker:
                errors.append(f"line {pending_marker[0]}: a `not tested` marker must come "
                              "just before a fenced block")
                pending_marker = None
            i += 1
            continue
        mark, lang = fence.group(1), fence.group(2).lower()
        start = i + 1
        body = []
        i += 1
        while i < len(lines):
            close = re.match(r"^ {0,3}(`{3,}|~{3,})\s*$", lines[i])
            if close and close.group(1)[0] == mark[0] and len(close.group(1)) >= len(mark):
                break
            body.append((i + 1, lines[i]))
            i += 1
        i += 1  # past the closing fence
        reason = pending_marker[1] if pending_marker else None
        pending_marker = None
        if lang in SHELL_LANGS:
            blocks.append(Block(start, lang, reason, split_commands(body)))
        elif lang in CONSOLE_LANGS:
            blocks.append(Block(start, lang, reason, split_console(body)))
    if errors:
        raise MarkdownError("\n".join(errors))
    return blocks


def split_commands(body):
    """Commands of a sh block: each starts at column 0; `\\` or indentation continues it."""
    commands = []
    continued = False
    for line, text in body:
        if not continued and (not text.strip() or text.startswith("#")):
            continue
        if commands and (continued or text[:1].isspace()):
            commands[-1].text += "\n" + text
        else:
            commands.append(Command(line, text))
        continued = text.endswith("\\")
    return commands


def split_console(body):
    """Commands of a console block: lines starting with "$ ", with their `\\` lines."""
    commands = []
    continued = False
    for line, text in body:
        if continued:
            commands[-1].text += "\n" + text
        elif text.startswith("$ "):
            commands.append(Command(line, text[2:]))
        else:
            continue
        continued = text.endswith("\\")
    return commands


def tokens(text):
    """The command's words, comments dropped; None when the quoting does not parse."""
    try:
        return shlex.split(text.replace("\\\n", " "), comments=True)
    except ValueError:
        return None


def comment(text):
    """The trailing comment of the command's last line: from a `#` that starts a word
    outside quotes."""
    last = text.split("\n")[-1]
    quote = None
    k = 0
    while k < len(last):
        ch = last[k]
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                k += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            k += 1
        elif ch == "#" and (k == 0 or last[k - 1].isspace()):
            return last[k:]
        k += 1
    return ""


def expected_exit(text):
    m = EXPECTED_EXIT.search(comment(text))
    return int(m.group(1)) if m else 0


def program_words(words):
    """The words that are commands' names: the first, and the first after ; | && || do."""
    names = []
    expect = True
    for w in words:
        if expect and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w):
            continue  # an environment assignment before the program
        if expect:
            names.append(w)
        expect = w in {";", "|", "&&", "||", "do", "then", "else", "(", "{"} or w.endswith(";")
    return names


def classify(text, have_viewer):
    """None when the command runs, else the reason it is not run."""
    words = tokens(text)
    if words is None or not words:
        return None  # bash will say what is wrong with it
    names = [os.path.basename(w.rstrip(";")) for w in program_words(words)]
    first = words[0]
    if first in PROGRAMS and any(w.startswith("[") or PLACEHOLDER.match(w) for w in words[1:]):
        return REASON_SYNOPSIS
    if any(w.endswith("scripts/setup.sh") or w == "setup.sh" for w in words):
        return REASON_SETUP
    if any(w.endswith("scripts/package.sh") for w in words):
        return REASON_PACKAGE
    if INSTALLERS & set(names):
        return REASON_INSTALL
    if BUILD_TOOLS & set(names):
        return REASON_BUILD
    for k, w in enumerate(words):
        base = os.path.basename(w)
        if base == "drainsim" and k + 1 < len(words) and words[k + 1] == "real":
            return REASON_REAL
        if w.startswith("--engines") and re.search(r"\breal\b", " ".join(words[k:k + 2])):
            return REASON_REAL
    if any(os.path.basename(w) == "drainsim-viewer" for w in words):
        if not have_viewer:
            return REASON_NO_VIEWER
        if not {"--render", "--help", "-h", "--version"} & set(words):
            return REASON_WINDOW
    return None


def runs_drainsim(text):
    return re.search(r"(^|[\s/;|&(])drainsim(-viewer)?\b", text) is not None


def rewrite(text):
    """The command with small seeds and grids, and the rules applied (R1..R4)."""
    if not runs_drainsim(text):
        return text, []
    applied = []
    own_seeds = OWN_SEEDS.search(text) is not None

    def seeds(m):
        if own_seeds or int(m.group(2)) <= SMALL_SEEDS:
            return m.group(0)
        applied.append("R1")
        return f"--seeds{m.group(1)}{SMALL_SEEDS}"
    text = re.sub(r"--seeds([ =])(\d+)\b", seeds, text)

    def repeats(m):
        if int(m.group(2)) <= SMALL_REPEATS:
            return m.group(0)
        applied.append("R2")
        return f"--repeats{m.group(1)}{SMALL_REPEATS}"
    text = re.sub(r"--repeats([ =])(\d+)\b", repeats, text)

    def add_defaults(m):
        sub = m.group(2)
        rest = text[m.end():]
        rest = re.split(r"[;|&]|\bdone\b", rest, maxsplit=1)[0]  # this command only
        added = ""
        if not re.search(r"--seeds\b", rest):
            added += f" --seeds {SMALL_SEEDS}"
        if sub == "fidelity" and not re.search(r"--repeats\b", rest):
            added += f" --repeats {SMALL_REPEATS}"
        if added:
            applied.append("R3")
        return m.group(0) + added
    text = re.sub(r"(^|[\s/;|&(])drainsim\s+(" + "|".join(SEEDED_SUBCOMMANDS) + r")\b",
                  add_defaults, text)

    def grid(m):
        path, value = m.group(2), m.group(3)
        r = re.fullmatch(r"([^.,]+(?:\.\d+)?[a-z]*)\.\.([^/,]+)/([^/,]+)", value)
        if r:
            applied.append("R4")
            return f"--grid{m.group(1)}{path}={r.group(1)},{r.group(2)}"
        if re.search(r"[\[\]{}]", value):
            return m.group(0)  # JSON values: left alone
        values = value.split(",")
        if len(values) > 2:
            applied.append("R4")
            return f"--grid{m.group(1)}{path}={values[0]},{values[1]}"
        return m.group(0)
    text = re.sub(r"--grid([ =])([\w.\[\]-]+)=([^\s'\"\\;|&]+)", grid, text)
    return text, sorted(set(applied))


def copy_tree(source, dest):
    """A copy of the source tree without .git and build folders."""
    source = os.path.abspath(source)

    def ignore(folder, names):
        skipped = {n for n in names if n in {".git", "node_modules", "__pycache__"}}
        if os.path.abspath(folder) == source:
            skipped |= {n for n in names
                        if n.startswith("build")
                        or os.path.exists(os.path.join(folder, n, "CMakeCache.txt"))}
        return skipped
    shutil.copytree(source, dest, ignore=ignore, symlinks=True)


def prepare(workdir, drainsim, viewer):
    build = os.path.join(workdir, "build")
    os.makedirs(build, exist_ok=True)
    os.symlink(os.path.dirname(os.path.abspath(drainsim)), os.path.join(build, "sim"))
    if viewer:
        os.symlink(os.path.dirname(os.path.abspath(viewer)), os.path.join(build, "viewer"))


def environment(drainsim, viewer):
    env = dict(os.environ)
    dirs = [os.path.dirname(os.path.abspath(drainsim))]
    if viewer:
        dirs.append(os.path.dirname(os.path.abspath(viewer)))
    env["PATH"] = os.pathsep.join(dirs + [env.get("PATH", "/usr/bin:/bin")])
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def tail(text, n=TAIL_LINES):
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[-n:])


def run_one(text, cwd, env, timeout):
    """(exit status or None on timeout, stdout, stderr, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", text], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    return code, out, err, time.monotonic() - start


def indent(text, prefix="    "):
    return "\n".join(prefix + line for line in text.split("\n"))


def main(argv=None, out=sys.stdout):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("drainsim")
    parser.add_argument("source_dir")
    parser.add_argument("--viewer")
    parser.add_argument("--readme", help="the Markdown file (default SOURCE_DIR/README.md)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S)
    args = parser.parse_args(argv)

    readme = args.readme or os.path.join(args.source_dir, "README.md")
    name = os.path.relpath(readme, args.source_dir) if not args.readme else readme
    with open(readme, encoding="utf-8") as f:
        try:
            blocks = extract(f.read())
        except MarkdownError as e:
            print(f"{name}: {e}", file=out)
            return 1
    for path in [args.drainsim] + ([args.viewer] if args.viewer else []):
        if not args.list and not os.access(path, os.X_OK):
            print(f"not an executable: {path}", file=out)
            return 2

    env = environment(args.drainsim, args.viewer)
    ran = skipped = 0
    failed = []
    total_start = time.monotonic()
    for block in blocks:
        print(f"== {name}:{block.line}: ```{block.lang} block", file=out)
        if block.skip_reason:
            for c in block.commands:
                print(f"skip  {name}:{c.line}: {c.text.splitlines()[0]}", file=out)
            print(f"      (not tested: {block.skip_reason})", file=out)
            skipped += len(block.commands)
            continue
        with tempfile.TemporaryDirectory(prefix="readme-") as tmp:
            workdir = None
            for c in block.commands:
                reason = classify(c.text, bool(args.viewer))
                if reason:
                    print(f"skip  {name}:{c.line}: {c.text.splitlines()[0]}", file=out)
                    print(f"      ({reason})", file=out)
                    skipped += 1
                    continue
                text, rules = rewrite(c.text)
                want = expected_exit(c.text)
                note = f"   [{', '.join(rules)}]" if rules else ""
                print(f"run   {name}:{c.line}: {text}{note}", file=out)
                if args.list:
                    if want:
                        print(f"      (expects exit {want})", file=out)
                    continue
                if workdir is None:  # a fresh copy for each block that runs something
                    workdir = os.path.join(tmp, "tree")
                    copy_tree(args.source_dir, workdir)
                    prepare(workdir, args.drainsim, args.viewer)
                ran += 1
                code, stdout, stderr, secs = run_one(text, workdir, env, args.timeout)
                if code == want:
                    print(f"      -> exit {code} ({secs:.1f} s)", file=out)
                    continue
                what = (f"timed out after {args.timeout:.0f} s" if code is None
                        else f"exit {code}, expected {want}")
                print(f"      -> FAILED: {what} ({secs:.1f} s)", file=out)
                shown = stderr if stderr.strip() else stdout
                if shown.strip():
                    print(indent(tail(shown)), file=out)
                failed.append((c.line, c.text.splitlines()[0], what))
                out.flush()
    if args.list:
        print(f"{skipped} skipped; the rest would run", file=out)
        return 0
    print(f"{ran} commands ran, {len(failed)} failed, {skipped} not run "
          f"({time.monotonic() - total_start:.0f} s)", file=out)
    for line, first, what in failed:
        print(f"FAILED {name}:{line}: {first} ({what})", file=out)
    if failed:
        print("Fix the command in the Markdown (it fails for a reader too). A command that "
              "exits non-zero on purpose says so in its comment, `# exit N: why`; a block "
              "that cannot run here follows `<!-- not tested: REASON -->`. The rules: "
              "scripts/readme_commands.py's header.", file=out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
