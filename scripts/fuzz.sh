#!/usr/bin/env bash
# Runs the libFuzzer targets of a DRAINSIM_FUZZ=ON build (docs/reliability.md), each for
# SECONDS on its seed corpus (fuzz/CMakeLists.txt writes BUILD/fuzz/NAME.seeds), as many at
# once as there are cores. The corpus each grows is kept in BUILD/fuzz/corpus/NAME, so a
# later run goes on from it. An input that crashes a target (or hangs it for 10 s, or
# makes it use more than 2 GB) is written to BUILD/fuzz/findings/NAME/: copy it into
# fuzz/regressions/NAME/ with a name that says what it does, and ctest Fuzz.NAME replays
# it from then on. Exits 1 when any target found something.
#   scripts/fuzz.sh BUILD [SECONDS] [NAME...]    (default: 60 s, every target)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${1:?usage: scripts/fuzz.sh BUILD [SECONDS] [NAME...]}"
build=$(cd "$build" && pwd)
seconds="${2:-60}"
shift $(( $# < 2 ? $# : 2 ))
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$build"/fuzz/*.seeds; do names+=("$(basename "$f" .seeds)"); done
fi
jobs="${FUZZ_JOBS:-$(nproc)}"

fuzz_one() {
  local name=$1 build=$2 seconds=$3 here=$4
  local bin="$build/fuzz/fuzz_$name" corpus="$build/fuzz/corpus/$name"
  local findings="$build/fuzz/findings/$name"
  mkdir -p "$corpus" "$findings"
  local seeds=()
  while IFS= read -r d; do [ -d "$d" ] && seeds+=("$d"); done < "$build/fuzz/$name.seeds"
  local dict=()
  case "$name" in
    http_request) dict=(-dict="$here/fuzz/http.dict") ;;
    duration | worker_env) ;;
    *) dict=(-dict="$here/fuzz/json.dict") ;;
  esac
  # -timeout: one input running 10 s is a hang; -rss_limit_mb: 2 GB is a memory bomb.
  if "$bin" "$corpus" "${seeds[@]}" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/" \
      >"$build/fuzz/$name.log" 2>&1; then
    echo "fuzz $name: $(grep -m1 -o 'Done [0-9]* runs in [0-9]* second(s)' "$build/fuzz/$name.log"), corpus $(ls "$corpus" | wc -l) inputs, no finding"
  else
    echo "fuzz $name: FOUND A BUG (log: $build/fuzz/$name.log):"
    grep -m3 -E 'ERROR|runtime error|fuzz target:|terminate called|Test unit written' \
      "$build/fuzz/$name.log" | sed 's/^/    /'
    return 1
  fi
}
export -f fuzz_one

status=0
printf '%s\n' "${names[@]}" |
  xargs -P "$jobs" -I{} bash -c 'fuzz_one "$@"' _ {} "$build" "$seconds" "$here" || status=1
if [ $status -ne 0 ]; then
  echo "fuzz: findings in $build/fuzz/findings/ (copy each into fuzz/regressions/NAME/)"
fi
exit $status
