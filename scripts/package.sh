#!/usr/bin/env bash
# The Debian package as released: link-time and profile-guided optimisation (README,
# "Installing"). Needs what scripts/setup.sh installs.
#   scripts/package.sh
# 1. builds drainsim, drainsim-worker and drainsim-viewer instrumented
#    (-DDRAINSIM_PGO=GENERATE) in BUILD-pgo/;
# 2. runs the training below with them, which writes the profile into BUILD-pgo-profile/;
# 3. rebuilds the same tree from scratch with that profile (-DDRAINSIM_PGO=USE), with LTO
#    both times; a file left without its profile fails here;
# 4. checks that the optimised drainsim gives the golden outputs (scripts/golden.py), then
#    runs cpack -G DEB: BUILD-pgo/drainsim_VERSION_ARCH.deb.
# BUILD is $DRAINSIM_BUILD_DIR, or build/ beside scripts/; build/ itself is not touched.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${DRAINSIM_BUILD_DIR:-$here/build}"
tree="$build-pgo"
profile="$build-pgo-profile"
python=/usr/bin/python3
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON

# One tree for both builds: Qt's moc files include the viewer's headers by a path through
# the tree, and a function's profile must come from the same path (in two trees the USE
# build failed with -Wcoverage-mismatch). No tests or benchmarks: the training runs none.
configure() {
  cmake -S "$here" -B "$tree" -G Ninja -DDRAINSIM_UNITY_BUILD=ON -DDRAINSIM_LTO=ON \
    -DDRAINSIM_PGO="$1" -DDRAINSIM_PGO_DIR="$profile" -DDRAINSIM_BUILD_TESTS=OFF \
    -DDRAINSIM_BUILD_BENCHMARKS=OFF -DDRAINSIM_WERROR=$werror -DPython3_EXECUTABLE=$python \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
}

SECONDS=0
configure GENERATE
cmake --build "$tree" -j "$(nproc)" --clean-first
echo "package: built instrumented in ${SECONDS} s"

# The training: what users run, each small. Virtual-time runs of several scenarios (the
# reference fleet cut to 5 minutes, the timeline on in some), compare, sweep and tune
# (several threads), export, a process-engine run (drainsim-worker), and the viewer
# rendering each view offscreen. The build's own runs (help2man) are dropped first.
rm -rf "$profile"
SECONDS=0
train=$(mktemp -d)
trap 'rm -rf "$train"' EXIT
(
  cd "$here"
  set -x
  ds="$tree/sim/drainsim"
  "$ds" run scenarios/bench-reference.json --set duration=5m --out "$train/reference.json"
  "$ds" run scenarios/rolling-restart.json --timeline --out "$train/rr.json"
  for s in oom-kill node-drain scale-down docker-stop double-sigterm long-jobs-short-grace; do
    "$ds" run "scenarios/$s.json" --out "$train/$s.json"
  done
  "$ds" run scenarios/oom-kill.json --set worker.profile=celery --set worker.options.acks_late=true \
    --timeline --out "$train/oom-celery.json"
  "$ds" compare scenarios/rolling-restart.json --profiles all --seeds 3 --format json --out "$train/compare.json"
  "$ds" sweep scenarios/rolling-restart.json --grid worker.grace_period=5s..60s/5s \
    --out "$train/sweep.json"
  "$ds" tune scenarios/rolling-restart.json --max-job-loss 0 --max-interrupted 0.1% >/dev/null
  "$ds" conformance --profile sidekiq >/dev/null || true  # exit 1: some checks fail, by design
  "$ds" export --format chrome-trace "$train/rr.json" --out "$train/rr.trace.json"
  "$ds" run scenarios/rolling-restart.json --engine process --time-scale 50 --out "$train/process.json"
  for v in timeline series summary; do
    QT_QPA_PLATFORM=offscreen "$tree/viewer/drainsim-viewer" --render "$train/$v.png" --view "$v" \
      "$train/rr.json"
  done
  QT_QPA_PLATFORM=offscreen "$tree/viewer/drainsim-viewer" --render "$train/sweep.png" \
    --view sweep "$train/sweep.json"
  QT_QPA_PLATFORM=offscreen "$tree/viewer/drainsim-viewer" --render "$train/compare.png" \
    --view compare "$train/compare.json"
) >"$train/log" 2>&1 || { cat "$train/log" >&2; echo "package: the training failed" >&2; exit 1; }
echo "package: trained in ${SECONDS} s, $(find "$profile" -name '*.gcda' | wc -l) profiles in $profile"

SECONDS=0
configure USE
log="$tree/pgo-build.log"
cmake --build "$tree" -j "$(nproc)" --clean-first 2>&1 | tee "$log"
echo "package: built from the profile in ${SECONDS} s"
if grep -q 'Wmissing-profile\|Wcoverage-mismatch' "$log"; then
  echo "package: files compiled without their profile (above): is the training complete?" >&2
  exit 1
fi

"$python" "$here/scripts/golden.py" "$tree/sim/drainsim" "$here"
(cd "$tree" && cpack -G DEB)
