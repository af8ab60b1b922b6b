#!/usr/bin/env bash
# The viewer's screenshots in docs/images/, each taken from a real window under Xvfb (not
# --render): the shipped rolling restart's timeline framed on its deploy, its series, the
# summary of two seeds side by side, and the reference hour (5 M attempts) in replica rows.
#   scripts/screenshots.sh [BUILD_DIR] [OUT_DIR]
# Needs xvfb-run (Debian: xvfb). The reference hour's timeline (731 MB) is
# DRAINSIM_REFERENCE_TIMELINE if set, else BUILD_DIR/bench/bench-reference.results.json,
# written once (about 20 s) if missing, as viewer_bench does.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
out=${2:-$here/docs/images}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v xvfb-run >/dev/null || { echo "screenshots.sh: needs xvfb-run (apt-get install xvfb)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here"
drainsim=$build/sim/drainsim
viewer=$build/viewer/drainsim-viewer
"$drainsim" run scenarios/rolling-restart.json --timeline --out "$tmp/rolling-restart.json" >/dev/null
"$drainsim" run scenarios/rolling-restart.json --seed 2 --timeline \
  --out "$tmp/rolling-restart-seed2.json" >/dev/null
ref=${DRAINSIM_REFERENCE_TIMELINE:-$build/bench/bench-reference.results.json}
if [ ! -f "$ref" ]; then
  "$drainsim" run scenarios/bench-reference.json --timeline --out "$ref" >/dev/null
fi
ln -s "$(cd "$(dirname "$ref")" && pwd)/$(basename "$ref")" "$tmp/bench-reference.json"
cd "$tmp"  # the windows name the files as given: short names, not temporary paths

# shot NAME SIZE VIEWER-ARGS...: a window of SIZE on a screen of SIZE, grabbed once drawn: the
# view alone (--screenshot leaves out the menu, toolbar, tabs, status bar and choosers).
shot() {
  local name=$1 size=$2
  shift 2
  XDG_RUNTIME_DIR=$tmp xvfb-run -a -s "-screen 0 ${size}x24" \
    "$viewer" --size "$size" --screenshot "$out/$name.png" "$@"
}
shot viewer-timeline 1600x900 --view timeline --around deploy rolling-restart.json
shot viewer-series 1600x900 --view series rolling-restart.json
shot viewer-summary 1600x900 --view summary rolling-restart.json rolling-restart-seed2.json
# Tall enough for all 100 replica rows at 14 px a row (a smaller picture squeezes them).
shot viewer-reference-hour 1600x1700 --view timeline bench-reference.json
