#!/usr/bin/env python3
"""The shell completions (share/completions/) against the binary they complete.

  scripts/check_completions.py BUILD/sim/drainsim SOURCE_DIR

Reads the commands, each command's long options and the values of its options that take
one of a few words ("--format TEXT:{table,md,json,csv}") from `drainsim --help` and
`drainsim COMMAND --help`, then asks each completion what it offers, as a shell would:

- bash (drainsim.bash): calls the completion function with COMP_WORDS set;
- zsh (_drainsim): types the line and a TAB into an interactive zsh on a pseudo-terminal
  (zsh/zpty) with compinit loaded, and records what the completion system is given.

Each must offer exactly the commands, each command's options (hidden ones aside), each
listed value set, and JSON files and folders (not other files) for a scenario. A new
option, command or value that a completion does not know fails here. Without zsh the zsh
part is skipped (said on stdout).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILURES = []


def check(what, got, expected):
    if set(got) != set(expected):
        FAILURES.append(f"{what}: got {sorted(set(got))}, expected {sorted(set(expected))}")


def parse_help(drainsim):
    """{command: {"options": [...], "values": {option: [...]}}} from the help texts."""
    top = subprocess.run([drainsim, "--help"], capture_output=True, text=True, check=True).stdout
    commands = [[c] for c in re.findall(r"^  ([a-z0-9]+) ", top.split("Subcommands:")[1], re.M)]
    out = {}
    while commands:
        command = commands.pop(0)
        text = subprocess.run([drainsim, *command, "--help"], capture_output=True, text=True,
                              check=True).stdout
        options, values = [], {}
        for line in text.split("Options:")[1].split("Subcommands:")[0].splitlines():
            m = re.match(r"^  (?:-[a-z],)?(--[a-z-]+)(?: [A-Z]+(?::\{([^}]*)\})?)?", line)
            if not m or m.group(1) == "--help":
                continue
            options.append(m.group(1))
            if m.group(2):
                values[m.group(1)] = m.group(2).split(",")
        # A command of commands (import k8s): each is checked as well.
        subs = re.findall(r"^  ([a-z0-9]+) ", text.split("Subcommands:")[1], re.M) \
            if "Subcommands:" in text else []
        commands += [command + [sub] for sub in subs]
        out[" ".join(command)] = {"options": options, "values": values, "subcommands": subs}
    return out


def bash_complete(script, cwd, words, function="_drainsim"):
    """What the bash completion offers for `words` (the last one being completed)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (f"source '{script}'\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
               f"{function}\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], cwd=cwd,
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        FAILURES.append(f"bash {words}: exit {p.returncode}: {p.stderr}")
    return [w for w in p.stdout.splitlines() if w]


ZSH_DRIVER = r"""
# Types each line of $2 (a file) and a TAB into an interactive zsh, printing what the
# completion system was offered for it.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT='' RPROMPT=''; unsetopt zle_bracketed_paste 2>/dev/null; fpath=('$1' \$fpath)"
zpty -w z 'autoload -Uz compinit; compinit -u -D; zstyle ":completion:*" menu no'
zpty -w z 'compadd () { local -a hits; builtin compadd -O hits "$@"; (( $#hits )) && print -r -- "HITS:${(j:|:)hits}"; builtin compadd "$@" }'
zpty -w z '_check_tab() { zle complete-word; print -r -- "DONE"; BUFFER=""; }'
zpty -w z 'zle -N _check_tab; bindkey "^I" _check_tab; print READY'
zpty -r z out '*READY*'
local line n=0
for line in "${(@f)$(<$2)}"; do
  zpty -n -w z "$line"$'\t'
  zpty -r z out '*DONE*'
  out=${out//$'\r'/}
  print -r -- "CASE $n"
  print -rl -- ${(M)${(f)out}:#*HITS:*}
  n=$((n + 1))
done
zpty -d z
"""


def zsh_complete_all(source_dir, cwd, lines):
    """What the zsh completion offers for each line, in order."""
    with tempfile.TemporaryDirectory() as tmp:
        driver = os.path.join(tmp, "driver.zsh")
        cases = os.path.join(tmp, "cases.txt")
        with open(driver, "w") as f:
            f.write(ZSH_DRIVER)
        with open(cases, "w") as f:
            f.write("\n".join(lines) + "\n")
        p = subprocess.run(["zsh", "-f", driver, os.path.join(source_dir, "share", "completions"),
                            cases], cwd=cwd, capture_output=True, text=True, timeout=300)
    results = {}
    current = None
    for raw in p.stdout.splitlines():
        raw = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", raw)
        if raw.startswith("CASE "):
            current = int(raw.split()[1])
            results[current] = []
        elif current is not None:  # the test's words have no spaces
            for hits in re.findall(r"HITS:(\S+)", raw):
                results[current] += hits.split("|")
    if len(results) != len(lines):
        FAILURES.append(f"zsh: {len(results)} of {len(lines)} cases ran: {p.stderr[-2000:]}")
    return [results.get(i, []) for i in range(len(lines))]


def main():
    drainsim, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    cli = parse_help(drainsim)
    commands = [c for c in cli if " " not in c]
    bash_script = os.path.join(source_dir, "share", "completions", "drainsim.bash")

    with tempfile.TemporaryDirectory() as cwd:
        for name in ("a.json", "notes.txt"):
            open(os.path.join(cwd, name), "w").close()
        os.mkdir(os.path.join(cwd, "sub"))
        scenario_files = ["a.json", "sub"]

        # What each shell is asked, and what it must offer.
        cases = [(["drainsim", ""], commands), (["drainsim", "help", ""], commands),
                 (["drainsim", "run", ""], scenario_files),
                 (["drainsim", "validate", "a.json", ""], scenario_files)]
        for command, spec in cli.items():
            words = ["drainsim", *command.split()]
            cases.append((words + ["--"], ["--help"] + spec["options"]))
            for option, values in spec["values"].items():
                cases.append((words + [option, ""], values))
            if spec["subcommands"]:
                cases.append((words + [""], spec["subcommands"]))

        for words, expected in cases:
            check("bash: " + " ".join(words), bash_complete(bash_script, cwd, words), expected)
        check("bash: drainsim-viewer --view",
              bash_complete(bash_script, cwd, ["drainsim-viewer", "--view", ""],
                            "_drainsim_viewer"),
              ["timeline", "series", "summary", "sweep", "compare"])

        if shutil.which("zsh"):
            lines = [" ".join(words) for words, _ in cases]
            for (words, expected), got in zip(cases, zsh_complete_all(source_dir, cwd, lines)):
                if words[-1] == "--":  # zsh offers -h beside --help
                    got = [g for g in got if g != "-h"]
                check("zsh: " + " ".join(words), got, expected)
        else:
            print("zsh not installed: the zsh completion is not checked")

    for f in FAILURES:
        print("FAIL", f)
    if FAILURES:
        print(f"{len(FAILURES)} failures; the completions are share/completions/drainsim.bash "
              "and share/completions/_drainsim")
        return 1
    print(f"completions: {len(cases)} cases ok in bash"
          + (" and zsh" if shutil.which("zsh") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
