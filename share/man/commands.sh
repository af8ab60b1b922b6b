#!/bin/sh
# Writes the COMMANDS section of drainsim(1) for help2man's --include: every command that
# `drainsim --help` lists (and those of a command of commands: import k8s), with its
# usage, description, arguments and options, read from `drainsim COMMAND --help`. Relies
# on CLI11's layout: a name column of 30 characters, the description after it on the same
# line, or on the next line indented by 30 spaces when the name is longer, and wrapped onto
# more such lines (help_command.cpp).
#   share/man/commands.sh BUILD/sim/drainsim [OUT]     (default: stdout)
set -eu
drainsim=$1
if [ $# -gt 1 ]; then exec > "$2"; fi

echo "[COMMANDS]"
# The commands `drainsim [COMMAND] --help` lists under "Subcommands:".
commands() {
  "$drainsim" "$@" --help | awk '/^Subcommands:$/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}
# Every command, and the commands of a command of commands (import k8s) after it.
for command in $(commands); do
  echo "$command"
  for sub in $(commands "$command"); do echo "$command $sub"; done
done |
while read -r command; do
  # shellcheck disable=SC2086 # "import k8s" is two words
  "$drainsim" $command --help | awk '
    # roff: a backslash is \e, a line may not begin with a control character.
    function text(s) {
      gsub(/\\/, "\\e", s)
      if (s ~ /^[.'"'"']/) s = "\\&" s
      return s
    }
    function item(name, description,    word, rest) {
      if (name == "-h,--help") return
      word = name
      sub(/ .*/, "", word)
      rest = substr(name, length(word) + 2)
      gsub(/\\/, "\\e", word)
      gsub(/-/, "\\-", word)
      print ".TP"
      print "\\fB" word "\\fR" (rest == "" ? "" : " " text(rest))
      if (description != "") print text(description)
    }
    # An item: its name, then its description, joined from the lines it is wrapped on.
    function flush() {
      if (name != "") item(name, desc)
      name = ""
      desc = ""
    }
    function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }
    NR == 1 { description = $0; next }
    /^Usage: / {
      sub(/^Usage: [^ ]*/, "drainsim")
      print ".SS \"" $0 "\""
      print text(description)
      next
    }
    BEGIN { indent = sprintf("%30s", "") }
    substr($0, 1, 30) == indent && length($0) > 30 {  # the description, or more of it
      desc = desc (desc == "" ? "" : " ") trim($0)
      next
    }
    /^  [^ ]/ {
      flush()
      # A name shorter than the column has its description after it, from column 31; a
      # longer one has it on the lines below.
      if (length($0) > 30 && substr($0, 30, 1) == " ") {
        name = trim(substr($0, 1, 30))
        desc = trim(substr($0, 31))
      } else {
        name = trim($0)
      }
      next
    }
    { flush() }
    END { flush() }
  '
done
